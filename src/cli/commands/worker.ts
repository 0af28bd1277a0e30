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
      const [
        { AuditLog },
        { AuditCheckpoints },
        { loadConfig },
        { EvidenceService },
        { FileEvidenceStorage },
        { registerJobHandlers },
        { JobQueue },
        { Worker },
        { systemClock },
        { Sealer },
        { PolicyStore, policySnapshot },
        { SHIPPED_PACKS },
        { PolicyRegistry },
        { Store },
        path,
      ] = await Promise.all([
        import('../../areas/audit/log.js'),
        import('../../areas/audit/checkpoints.js'),
        import('../../infra/config/load.js'),
        import('../../areas/evidence/service.js'),
        import('../../areas/evidence/storage.js'),
        import('../../areas/jobs/handlers.js'),
        import('../../infra/jobs/queue.js'),
        import('../../infra/jobs/worker.js'),
        import('../../infra/lib/clock.js'),
        import('../../infra/lib/sealed.js'),
        import('../../areas/policies/store.js'),
        import('../../engine/policy/packs/index.js'),
        import('../../engine/policy/registry.js'),
        import('../../infra/store/db.js'),
        import('node:path'),
      ]);
      const config = loadConfig();
      const store = Store.open({ databaseUrl: config.database_url, dataDir: config.data_dir });
      await store.migrate();
      const clock = systemClock;
      const audit = new AuditLog(store, clock);
      const queue = new JobQueue(store, clock, { retryBaseMs: config.job_retry_base_ms });
      const evidence = new EvidenceService({
        store,
        audit,
        clock,
        queue,
        storage: new FileEvidenceStorage(path.join(config.data_dir, 'evidence')),
        policies: policiesFrom(new PolicyRegistry(SHIPPED_PACKS), new PolicyStore(store), policySnapshot),
        checkpoints: new AuditCheckpoints(store, audit, new Sealer({ secretKey: config.secret_key, dataDir: config.data_dir }), clock),
      });
      const worker = new Worker({
        queue,
        pollMs: config.job_poll_ms,
        leaseMs: config.job_lease_ms,
        onEvent: (event) => process.stderr.write(logLine(event)),
        onError: (error) => process.stderr.write(`${new Date().toISOString()}  job queue failed: ${(error as Error).message ?? String(error)}\n`),
      });
      registerJobHandlers(worker, { evidenceBuild: evidence.handleJob });
      worker.start();
      process.stderr.write(`worker ${worker.id} started on ${store.dialect} (kinds: ${worker.kinds().join(', ')})\n`);

      const signal = await new Promise<string>((resolve) => {
        process.once('SIGTERM', () => resolve('SIGTERM'));
        process.once('SIGINT', () => resolve('SIGINT'));
      });
      process.stderr.write(`worker ${worker.id}: ${signal}, finishing the job in hand\n`);
      await worker.stop();
      await store.close();
      process.stderr.write(`worker ${worker.id} stopped\n`);
    });
}

/** The evidence builder's view of the policies in force: the stored live set, read when a package is built. */
function policiesFrom<R, S extends { reload(registry: R): Promise<void> }, L>(registry: R, stored: S, snapshot: (registry: R) => L) {
  return { sync: () => stored.reload(registry), list: async () => snapshot(registry) };
}
