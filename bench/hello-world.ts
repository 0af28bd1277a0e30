// The benchmark baseline: a bare Fastify server on 127.0.0.1:$PORT whose only route, GET /, returns a small
// JSON object.
import Fastify from 'fastify';

const port = Number(process.env.PORT);
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  process.stderr.write(`hello-world: PORT must be an integer from 1 to 65535, got ${JSON.stringify(process.env.PORT)}\n`);
  process.exit(2);
}

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
// The baseline for guard checks: a bare route answering 1 KB of JSON.
const kilobyte = { items: Array.from({ length: 16 }, (_, index) => ({ id: index, text: 'x'.repeat(40) })) };
app.get('/1k', async () => kilobyte);
await app.listen({ port, host: '127.0.0.1' });
