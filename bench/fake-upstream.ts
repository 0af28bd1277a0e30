// The model provider for the proxy benchmark: a chat-completions endpoint on 127.0.0.1:$PORT that
// answers at once with about 1 KB of text, as one JSON document or as server-sent events. It runs in
// its own process so that its work is not counted against the load generator.
import { createServer } from 'node:http';

const port = Number(process.env.PORT);
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  process.stderr.write(`fake-upstream: PORT must be an integer from 1 to 65535, got ${JSON.stringify(process.env.PORT)}\n`);
  process.exit(2);
}

/** About 1 KB of ordinary prose: what a short answer looks like. */
const ANSWER = (
  'Thanks for the report. The quarterly revenue grew by four percent while costs stayed flat, so the margin ' +
  'improved. The board deck should show the trend by region and call out the two large renewals in March. '
)
  .repeat(5)
  .slice(0, 1000);
const CHUNKS = 8;

const server = createServer((request, response) => {
  if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
    response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
    return;
  }
  const parts: Buffer[] = [];
  request.on('data', (part: Buffer) => parts.push(part));
  request.on('end', () => {
    let body: { model?: string; stream?: boolean } = {};
    try {
      body = JSON.parse(Buffer.concat(parts).toString('utf8')) as typeof body;
    } catch {
      response.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"bad json"}}');
      return;
    }
    const id = `chatcmpl-${Date.now().toString(36)}`;
    const model = body.model ?? 'fake-model';
    const created = Math.floor(Date.now() / 1000);
    const usage = { prompt_tokens: 250, completion_tokens: 250, total_tokens: 500 };
    if (body.stream !== true) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created,
          model,
          choices: [{ index: 0, message: { role: 'assistant', content: ANSWER }, finish_reason: 'stop' }],
          usage,
        }),
      );
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const size = Math.ceil(ANSWER.length / CHUNKS);
    for (let index = 0; index < CHUNKS; index += 1) {
      const delta = index === 0 ? { role: 'assistant', content: ANSWER.slice(0, size) } : { content: ANSWER.slice(index * size, (index + 1) * size) };
      const chunk = { id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: null }] };
      response.write(`data: ${JSON.stringify(chunk)}\n\n`);
    }
    const last = { id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage };
    response.end(`data: ${JSON.stringify(last)}\n\ndata: [DONE]\n\n`);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1');
