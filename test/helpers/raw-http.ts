// Raw HTTP/1.1 over node:net, for requests fetch refuses to send (control bytes in the path,
// request lines or headers beyond Node's limits) and for answers the HTTP parser writes itself.
import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends `request` as is and reads the first answer until the server closes or it is complete. */
export function rawRequest(baseUrl: string, request: string | Buffer, timeoutMs = 5000): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(Number(port), hostname, () => socket.write(request));
    const timer = setTimeout(() => socket.destroy(new Error(`no complete answer within ${timeoutMs} ms`)), timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      const parsed = parse(Buffer.concat(chunks).toString('latin1'));
      if (parsed === null) reject(new Error(`no HTTP answer: ${JSON.stringify(Buffer.concat(chunks).toString('latin1').slice(0, 200))}`));
      else resolve(parsed);
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const parsed = parse(Buffer.concat(chunks).toString('latin1'));
      // A keep-alive answer is complete once its declared length has arrived.
      if (parsed !== null && parsed.headers['content-length'] !== undefined && Buffer.byteLength(parsed.body, 'latin1') >= Number(parsed.headers['content-length'])) {
        socket.destroy();
      }
    });
    // The server may close while the request is still being written (an over-long request line):
    // what it answered before closing is the answer.
    socket.on('error', () => undefined);
    socket.on('close', finish);
  });
}

function parse(text: string): RawResponse | null {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1];
  if (status === undefined) return null;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(status), headers, body: Buffer.from(text.slice(end + 4), 'latin1').toString('utf8') };
}
