// A fake responses upstream on 127.0.0.1 (plain node:http): POST /v1/responses answers a response
// object or its event stream, as the request asks; proposes function calls when told, fails on
// demand, and counts what it received and which streams the gateway closed early.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ScriptedUpstream, type SeenRequest } from './scripted-upstream.js';

export interface FakeResponsesReply {
  /** An error answer instead of a response. */
  status?: number;
  /** The assistant's text; streamed in `chunks` when given, else in pieces of 8 characters. */
  text?: string;
  chunks?: string[];
  functionCalls?: Array<{ name: string; arguments: string }>;
  /** Further output items as given (a built-in tool's call), streamed as added and done. */
  items?: any[];
  /** Milliseconds between streamed text deltas. */
  delayMs?: number;
}

export type SeenResponsesRequest = SeenRequest;

export const FAKE_USAGE = { input_tokens: 11, output_tokens: 7, total_tokens: 18 };

export class FakeOpenAIResponses extends ScriptedUpstream<FakeResponsesReply> {
  fallback: FakeResponsesReply = { text: 'Hello from the fake responses upstream.' };

  constructor() {
    super('/v1');
  }

  protected answer(request: IncomingMessage, response: ServerResponse, body: any): void {
    if (request.url !== '/v1/responses') {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `no route ${request.url}`, type: 'invalid_request_error' } }));
      return;
    }
    const reply = this.nextReply();
    if (reply.status !== undefined && reply.status !== 200) {
      response.writeHead(reply.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `fake failure ${reply.status}`, type: 'server_error' } }));
      return;
    }
    if (body.stream === true) void this.stream(body, reply, response);
    else {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(this.responseObject(body, reply, 'completed')));
    }
  }

  private items(reply: FakeResponsesReply): any[] {
    const text = reply.text ?? reply.chunks?.join('');
    const items: any[] = [];
    if (text !== undefined) items.push({ type: 'message', id: 'msg_fake', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] });
    (reply.functionCalls ?? []).forEach((call, index) =>
      items.push({ type: 'function_call', id: `fc_${index}`, call_id: `call_${index}`, name: call.name, arguments: call.arguments, status: 'completed' }),
    );
    return [...items, ...(reply.items ?? [])];
  }

  private responseObject(body: any, reply: FakeResponsesReply, status: string): any {
    const output = status === 'completed' ? this.items(reply) : [];
    const text = output.filter((item) => item.type === 'message').map((item) => item.content[0].text).join('');
    return {
      id: 'resp_fake',
      object: 'response',
      created_at: 1_700_000_000,
      status,
      model: body.model,
      output,
      // Not sent by the real API (its SDK adds it); sent here so that the gateway's adjustment shows.
      output_text: text,
      usage: status === 'completed' ? FAKE_USAGE : null,
    };
  }

  private async stream(body: any, reply: FakeResponsesReply, response: ServerResponse): Promise<void> {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.on('close', () => {
      if (!response.writableFinished) this.aborted += 1;
    });
    let sequence = 0;
    const send = (event: Record<string, unknown>) => response.write(`event: ${String(event.type)}\ndata: ${JSON.stringify({ ...event, sequence_number: sequence++ })}\n\n`);
    send({ type: 'response.created', response: this.responseObject(body, reply, 'in_progress') });
    send({ type: 'response.in_progress', response: this.responseObject(body, reply, 'in_progress') });
    const items = this.items(reply);
    for (const [index, item] of items.entries()) {
      if (response.destroyed) return;
      if (item.type === 'message') {
        const ids = { item_id: item.id, output_index: index, content_index: 0 };
        send({ type: 'response.output_item.added', output_index: index, item: { ...item, status: 'in_progress', content: [] } });
        send({ type: 'response.content_part.added', ...ids, part: { type: 'output_text', text: '', annotations: [] } });
        const text = item.content[0].text as string;
        for (const chunk of reply.chunks ?? (text.match(/[\s\S]{1,8}/g) ?? [])) {
          if (response.destroyed) return;
          send({ type: 'response.output_text.delta', ...ids, delta: chunk, logprobs: [] });
          if (reply.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
        }
        send({ type: 'response.output_text.done', ...ids, text, logprobs: [] });
        send({ type: 'response.content_part.done', ...ids, part: { type: 'output_text', text, annotations: [] } });
      } else if (item.type !== 'function_call') {
        send({ type: 'response.output_item.added', output_index: index, item: { ...item, status: 'in_progress' } });
      } else {
        send({ type: 'response.output_item.added', output_index: index, item: { ...item, arguments: '', status: 'in_progress' } });
        for (const piece of (item.arguments as string).match(/[\s\S]{1,5}/g) ?? []) {
          send({ type: 'response.function_call_arguments.delta', item_id: item.id, output_index: index, delta: piece });
        }
        send({ type: 'response.function_call_arguments.done', item_id: item.id, output_index: index, name: item.name, arguments: item.arguments });
      }
      send({ type: 'response.output_item.done', output_index: index, item });
    }
    send({ type: 'response.completed', response: this.responseObject(body, reply, 'completed') });
    response.end();
  }
}
