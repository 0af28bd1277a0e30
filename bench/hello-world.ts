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
await app.listen({ port, host: '127.0.0.1' });
