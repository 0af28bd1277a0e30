// parapet worker: runs queued jobs against the same storage as the gateway (same environment)
// until SIGTERM or SIGINT, logging one line per job event to stderr. A worker killed in the middle
// of a job loses nothing: once its lease runs out (job_lease_ms), another worker takes the job over.
import type { Command } from 'commander';
import type { WorkerEvent } from '../../infra/jobs/worker.js';

function logLine(event: WorkerEvent): string {
  const parts = [new Date().toISOString(), `job ${event.event}`, event.job_id, event.kind, `attempt ${event.attempt}`];
  if (event.ms !== undefined) parts.push(`${event.ms} ms`);
  if (event.run_after !== undefined) parts.push(`next try after ${event.run_after}`);
  if (event.error !== undefined) parts.push(`error: ${event.error}`);
  return `${parts.join('  ')}\n`;
}

export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description('run queued jobs (evidence builds and retries) until SIGTERM or SIGINT; settings as for serve')
    .action(async () => {
      // Loaded here rather than at the top so that `--help` does not open database drivers.
      const [{ loadConfig }, { Store }, { buildServices }, { pino }] = await Promise.all([
        import('../../infra/config/load.js'),
        import('../../infra/store/db.js'),
        import('../../services.js'),
        import('pino'),
      ]);
      const config = loadConfig();
      const store = Store.open({ databaseUrl: config.database_url, dataDir: config.data_dir });
      await store.migrate();
      // The same services as the gateway's; this process runs only their jobs, with one line per event on stderr.
      const services = await buildServices({
        config,
        store,
        log: pino({ level: config.log_level }, process.stderr),
        onJobEvent: (event) => process.stderr.write(logLine(event)),
        onJobError: (error) => process.stderr.write(`${new Date().toISOString()}  job queue failed: ${(error as Error).message ?? String(error)}\n`),
      });
      const worker = services.worker;
      services.start({ runJobs: true, sweeps: false });
      process.stderr.write(`worker ${worker.id} started on ${store.dialect} (kinds: ${worker.kinds().join(', ')})\n`);

      const signal = await new Promise<string>((resolve) => {
        process.once('SIGTERM', () => resolve('SIGTERM'));
        process.once('SIGINT', () => resolve('SIGINT'));
      });
      process.stderr.write(`worker ${worker.id}: ${signal}, finishing the job in hand\n`);
      await services.close();
      await store.close();
      process.stderr.write(`worker ${worker.id} stopped\n`);
    });
}
