// A child process for the concurrent-append test: opens a Store on DATABASE_URL and runs WRITERS
// concurrent loops of audit.append until it has written COUNT entries, then prints the elapsed ms.
// Spawned with `node --import tsx`, so it runs the TypeScript sources directly.
import { AuditLog } from '../../src/areas/audit/log.js';
import { systemClock } from '../../src/infra/lib/clock.js';
import { Store } from '../../src/infra/store/db.js';

const databaseUrl = process.env.DATABASE_URL;
const writers = Number(process.env.WRITERS ?? '4');
const count = Number(process.env.COUNT ?? '5000');
const name = process.env.WRITER_NAME ?? `pid-${process.pid}`;
if (!databaseUrl) throw new Error('DATABASE_URL is required');

const store = Store.open({ databaseUrl, dataDir: '.', poolSize: writers });
const audit = new AuditLog(store, systemClock);
let next = 0;
const started = performance.now();
try {
  await Promise.all(
    Array.from({ length: writers }, async (_, writer) => {
      // Each loop takes the next number until COUNT are taken: the loops share the work.
      for (let index = next++; index < count; index = next++) {
        await audit.append({ actor: name, action: 'test.concurrent', target: `writer-${writer}`, detail: { index } });
      }
    }),
  );
  process.stdout.write(`${JSON.stringify({ name, count, ms: Math.round(performance.now() - started) })}\n`);
} finally {
  await store.close();
}
