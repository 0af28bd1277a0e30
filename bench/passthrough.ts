// The floor of any proxy in Node, for the proxy benchmark: a server on 127.0.0.1:$PORT that sends
// each request's body on to $UPSTREAM with undici.request and pipes the answer back, checking and
// recording nothing. What Parapet costs above this is the cost of governing the call.
import { createServer } from 'node:http';
import { Agent, request } from 'undici';

const port = Number(process.env.PORT);
const upstream = process.env.UPSTREAM ?? '';
if (!Number.isInteger(port) || port <= 0 || port > 65535 || !upstream.startsWith('http')) {
  process.stderr.write('passthrough: PORT (1-65535) and UPSTREAM (a base URL) are required\n');
  process.exit(2);
}

const dispatcher = new Agent({ connections: 64, keepAliveTimeout: 60_000 });

const server = createServer((incoming, outgoing) => {
  const parts: Buffer[] = [];
  incoming.on('data', (part: Buffer) => parts.push(part));
  incoming.on('end', () => {
    const url = `${upstream}${(incoming.url ?? '/').replace(/^\/v1/, '')}`;
    request(url, {
      method: incoming.method as 'GET' | 'POST',
      headers: { 'content-type': incoming.headers['content-type'] ?? 'application/json', authorization: incoming.headers.authorization ?? '' },
      body: incoming.method === 'GET' ? null : Buffer.concat(parts),
      dispatcher,
    }).then(
      async (answer) => {
        outgoing.writeHead(answer.statusCode, { 'content-type': String(answer.headers['content-type'] ?? 'application/json') });
        for await (const chunk of answer.body) outgoing.write(chunk);
        outgoing.end();
      },
      (error: unknown) => {
        outgoing.writeHead(502, { 'content-type': 'text/plain' }).end(String(error));
      },
    );
  });
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1');
