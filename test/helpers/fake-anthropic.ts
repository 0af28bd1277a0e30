// A fake messages upstream on 127.0.0.1 (plain node:http): answers JSON or SSE events as the
// request asks, proposes tool_use blocks when told, fails on demand, counts what it received and
// records the headers it saw.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ScriptedUpstream, type SeenRequest } from './scripted-upstream.js';

export interface FakeMessagesReply {
  /** An error answer instead of a message. */
  status?: number;
  headers?: Record<string, string>;
  /** The assistant's text; streamed in `chunks` when given, else in pieces of 8 characters. */
  text?: string;
  chunks?: string[];
  toolUses?: Array<{ name: string; input: Record<string, unknown> }>;
  /** Reasoning before the text, as a signed thinking block. */
  thinking?: string;
  /** Close the connection without an answer. */
  hangUp?: boolean;
  /** Milliseconds between streamed text deltas. */
  delayMs?: number;
}

export type SeenMessagesRequest = SeenRequest;

export const FAKE_USAGE = { input_tokens: 11, output_tokens: 7 };

export class FakeAnthropic extends ScriptedUpstream<FakeMessagesReply> {
  fallback: FakeMessagesReply = { text: 'Hello from the fake messages upstream.' };

  constructor() {
    super('');
  }

  protected answer(request: IncomingMessage, response: ServerResponse, body: any): void {
    const reply = this.nextReply();
    if (reply.hangUp === true) {
      request.socket.destroy();
      return;
    }
    if (request.url !== '/v1/messages') reply.status = 404;
    if (reply.status !== undefined && reply.status !== 200) {
      response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      response.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: `fake failure ${reply.status}` } }));
      return;
    }
    if (body.stream === true) void this.stream(body, reply, response);
    else this.complete(body, reply, response);
  }

  private complete(body: any, reply: FakeMessagesReply, response: ServerResponse): void {
    const text = reply.text ?? (reply.chunks === undefined ? undefined : reply.chunks.join(''));
    const content: unknown[] = reply.thinking === undefined ? [] : [{ type: 'thinking', thinking: reply.thinking, signature: 'sig-fake' }];
    if (text !== undefined) content.push({ type: 'text', text });
    (reply.toolUses ?? []).forEach((use, index) => content.push({ type: 'tool_use', id: `toolu_${index}`, name: use.name, input: use.input }));
    response.writeHead(200, { 'content-type': 'application/json', ...reply.headers });
    response.end(
      JSON.stringify({
        id: 'msg_fake',
        type: 'message',
        role: 'assistant',
        model: body.model,
        content,
        stop_reason: (reply.toolUses ?? []).length > 0 ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage: FAKE_USAGE,
      }),
    );
  }

  private async stream(body: any, reply: FakeMessagesReply, response: ServerResponse): Promise<void> {
    response.writeHead(200, { 'content-type': 'text/event-stream', ...reply.headers });
    response.on('close', () => {
      if (!response.writableFinished) this.aborted += 1;
    });
    const send = (type: string, data: Record<string, unknown>) => response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    send('message_start', {
      message: { id: 'msg_fake', type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 11, output_tokens: 1 } },
    });
    send('ping', {});
    let index = 0;
    if (reply.thinking !== undefined) {
      send('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      for (const piece of reply.thinking.match(/[\s\S]{1,8}/g) ?? []) send('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: piece } });
      send('content_block_delta', { index, delta: { type: 'signature_delta', signature: 'sig-fake' } });
      send('content_block_stop', { index });
      index += 1;
    }
    const chunks = reply.chunks ?? (reply.text === undefined ? [] : (reply.text.match(/[\s\S]{1,8}/g) ?? []));
    if (reply.text !== undefined || reply.chunks !== undefined) {
      send('content_block_start', { index, content_block: { type: 'text', text: '' } });
      for (const chunk of chunks) {
        if (response.destroyed) return;
        send('content_block_delta', { index, delta: { type: 'text_delta', text: chunk } });
        if (reply.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
      }
      if (response.destroyed) return;
      send('content_block_stop', { index });
      index += 1;
    }
    for (const [position, use] of (reply.toolUses ?? []).entries()) {
      send('content_block_start', { index, content_block: { type: 'tool_use', id: `toolu_${position}`, name: use.name, input: {} } });
      for (const piece of JSON.stringify(use.input).match(/[\s\S]{1,5}/g) ?? []) send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } });
      send('content_block_stop', { index });
      index += 1;
    }
    send('message_delta', { delta: { stop_reason: (reply.toolUses ?? []).length > 0 ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: FAKE_USAGE.output_tokens } });
    send('message_stop', {});
    response.end();
  }
}
