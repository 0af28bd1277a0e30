// The answer of a streamed proxy call, whatever the wire format: server-sent events with the verdict
// still pending (the final event's `parapet` and the X-Parapet-Verdict trailer carry it), writes that
// wait for the socket to drain, and the upstream torn down as soon as the caller goes away.
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { UpstreamAnswer } from './upstream.js';

export class EventStream {
  readonly raw: ServerResponse;
  private gone = false;

  constructor(reply: FastifyReply, answer: UpstreamAnswer) {
    reply.hijack();
    this.raw = reply.raw;
    this.raw.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-parapet-verdict': 'pending',
      trailer: 'X-Parapet-Verdict',
    });
    this.raw.on('close', () => {
      this.gone = true;
      answer.body.destroy();
    });
  }

  /** The caller closed the connection: nothing more is written, the upstream is already aborted. */
  get clientGone(): boolean {
    return this.gone;
  }

  /** Writes one or more encoded events; waits when the socket's buffer is full. */
  async write(text: string): Promise<void> {
    if (this.gone || this.raw.write(text)) return;
    const raw = this.raw;
    await new Promise<void>((resolve) => {
      const done = () => {
        raw.off('drain', done);
        raw.off('close', done);
        resolve();
      };
      raw.on('drain', done);
      raw.on('close', done);
    });
  }
}
