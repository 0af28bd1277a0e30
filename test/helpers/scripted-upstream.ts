// The part every fake model provider shares: a node:http server on 127.0.0.1, the requests it
// received (path, headers, parsed JSON body), replies scripted in order with a fallback, and a
// count of streams the gateway aborted. Each fake answers in its own wire format.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

export abstract class ScriptedUpstream<Reply> {
  readonly requests: SeenRequest[] = [];
  /** Streams the client (the gateway) closed before their end. */
  aborted = 0;
  /** Replies used in order; when empty, `fallback` answers. */
  readonly script: Reply[] = [];
  abstract fallback: Reply;
  private server: Server | null = null;
  url = '';

  /** @param basePath what `url` ends with: `/v1` for providers whose base URL includes it. */
  constructor(private readonly basePath: '' | '/v1') {}

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const parts: Buffer[] = [];
      request.on('data', (part: Buffer) => parts.push(part));
      request.on('end', () => {
        const body = JSON.parse(Buffer.concat(parts).toString('utf8') || '{}');
        this.requests.push({ path: request.url ?? '', headers: request.headers, body });
        this.answer(request, response, body);
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}${this.basePath}`;
  }

  /** The next scripted reply, or the fallback. */
  protected nextReply(): Reply {
    return this.script.shift() ?? this.fallback;
  }

  protected abstract answer(request: IncomingMessage, response: ServerResponse, body: any): void;

  reset(): void {
    this.requests.length = 0;
    this.script.length = 0;
    this.aborted = 0;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}
