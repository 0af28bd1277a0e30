// A fake chat-completions upstream on 127.0.0.1 (plain node:http): answers JSON or SSE as the
// request asks, proposes tool calls when told, fails on demand and counts what it received.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ScriptedUpstream } from './scripted-upstream.js';

export type { SeenRequest } from './scripted-upstream.js';

export interface FakeReply {
  /** An error answer instead of a completion. */
  status?: number;
  headers?: Record<string, string>;
  /** The assistant's text; streamed in `chunks` when given, else in pieces of 8 characters. */
  text?: string;
  chunks?: string[];
  toolCalls?: Array<{ name: string; arguments: string }>;
  /** Close the connection without an answer. */
  hangUp?: boolean;
  /** Never answer (for timeouts). */
  stall?: boolean;
  /** Milliseconds between streamed content chunks. */
  delayMs?: number;
}

export class FakeOpenAI extends ScriptedUpstream<FakeReply> {
  fallback: FakeReply = { text: 'Hello from the fake upstream.' };

  constructor() {
    super('/v1');
  }

  protected answer(request: IncomingMessage, response: ServerResponse, body: any): void {
    const reply = this.nextReply();
    if (reply.stall === true) return;
    if (reply.hangUp === true) {
      request.socket.destroy();
      return;
    }
    if (reply.status !== undefined && reply.status !== 200) {
      response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      response.end(JSON.stringify({ error: { message: `fake failure ${reply.status}`, type: 'server_error' } }));
      return;
    }
    if (body.stream === true) void this.stream(body, reply, response);
    else this.complete(body, reply, response);
  }

  private complete(body: any, reply: FakeReply, response: ServerResponse): void {
    const toolCalls = (reply.toolCalls ?? []).map((call, index) => ({ id: `call_${index}`, type: 'function', function: call }));
    response.writeHead(200, { 'content-type': 'application/json', ...reply.headers });
    response.end(
      JSON.stringify({
        id: 'chatcmpl-fake',
        object: 'chat.completion',
        created: 1_700_000_000,
        model: body.model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: reply.text ?? null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
            finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
            logprobs: null,
          },
        ],
        usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
      }),
    );
  }

  private async stream(body: any, reply: FakeReply, response: ServerResponse): Promise<void> {
    response.writeHead(200, { 'content-type': 'text/event-stream', ...reply.headers });
    response.on('close', () => {
      if (!response.writableFinished) this.aborted += 1;
    });
    const base = { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1_700_000_000, model: body.model };
    const send = (choices: unknown[], extra: Record<string, unknown> = {}) => response.write(`data: ${JSON.stringify({ ...base, choices, ...extra })}\n\n`);
    send([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
    const text = reply.text ?? '';
    const chunks = reply.chunks ?? (text.match(/[\s\S]{1,8}/g) ?? []);
    for (const chunk of chunks) {
      if (response.destroyed) return;
      send([{ index: 0, delta: { content: chunk }, finish_reason: null }]);
      if (reply.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    }
    (reply.toolCalls ?? []).forEach((call, index) => {
      send([{ index: 0, delta: { tool_calls: [{ index, id: `call_${index}`, type: 'function', function: { name: call.name, arguments: '' } }] }, finish_reason: null }]);
      for (const piece of call.arguments.match(/[\s\S]{1,5}/g) ?? []) {
        send([{ index: 0, delta: { tool_calls: [{ index, function: { arguments: piece } }] }, finish_reason: null }]);
      }
    });
    send([{ index: 0, delta: {}, finish_reason: (reply.toolCalls ?? []).length > 0 ? 'tool_calls' : 'stop' }]);
    if (body.stream_options?.include_usage === true) send([], { usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 } });
    response.end('data: [DONE]\n\n');
  }
}
