// Server-sent events (the WHATWG event-stream format) as model upstreams send them: only the
// `data` field matters to the proxies; several `data` lines of one event are joined by newlines.
import { StringDecoder } from 'node:string_decoder';

export class SseParser {
  private readonly decoder = new StringDecoder('utf8');
  private buffer = '';
  private data: string[] = [];

  /** The data of every event completed by this chunk. */
  push(chunk: Buffer | string): string[] {
    this.buffer += typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    const events: string[] = [];
    let newline: number;
    while ((newline = this.buffer.search(/\r\n|\r|\n/)) !== -1) {
      const line = this.buffer.slice(0, newline);
      const width = this.buffer.startsWith('\r\n', newline) ? 2 : 1;
      // A lone \r at the end of the buffer may be the first half of \r\n: wait for more.
      if (width === 1 && this.buffer[newline] === '\r' && newline === this.buffer.length - 1) break;
      this.buffer = this.buffer.slice(newline + width);
      if (line === '') {
        if (this.data.length > 0) events.push(this.data.join('\n'));
        this.data = [];
      } else if (line.startsWith('data:')) {
        this.data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
      }
    }
    return events;
  }

  /** What is left when the stream ends without a blank line after the last event. */
  end(): string[] {
    const rest = this.push('\n\n');
    return rest;
  }
}
