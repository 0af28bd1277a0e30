// A chat tool's incoming webhook on 127.0.0.1: records every request (path, headers, JSON body) and
// answers the statuses a test scripts, in order, then 200 ("ok", as chat tools do).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatDelivery {
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or the raw text when it is not JSON. */
  body: any;
}

/** What the fake reads of a request body at most. */
const MAX_BODY_BYTES = 1_048_576;

export class FakeChatWebhook {
  readonly received: ChatDelivery[] = [];
  private readonly scripted: number[] = [];
  private server: Server | undefined;
  private origin = '';

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      request.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes <= MAX_BODY_BYTES) chunks.push(chunk);
      });
      request.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // Kept as text: a test that expects JSON says so.
        }
        this.received.push({ path: request.url ?? '', method: request.method ?? '', headers: request.headers, body });
        const status = this.scripted.shift() ?? 200;
        response.writeHead(status, { 'content-type': 'text/plain' });
        response.end(status >= 200 && status < 300 ? 'ok' : `scripted failure ${status}`);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** The webhook URL for a path (e.g. `/services/T0/B0/secret`). */
  url(path: string): string {
    return this.origin + path;
  }

  /** The next answers' statuses, in order; after them every request gets 200. */
  answer(...statuses: number[]): void {
    this.scripted.push(...statuses);
  }

  /** What reached one path. */
  to(path: string): ChatDelivery[] {
    return this.received.filter((delivery) => delivery.path === path);
  }

  reset(): void {
    this.received.length = 0;
    this.scripted.length = 0;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => (this.server === undefined ? resolve() : this.server.close(() => resolve())));
  }
}
