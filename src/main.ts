// Process entry: config → store (+ migrations) → bootstrap admin token → buildApp → listen.
// SIGTERM drains: GET /ready answers 503 at once (a load balancer stops sending here) while the
// requests in flight finish, then the server stops listening, the recorder is flushed and the
// database closed. SIGINT does the same without waiting before it stops listening.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './infra/config/load.js';
import type { Config } from './infra/config/schema.js';
import { Store } from './infra/store/db.js';

export interface Running {
  url: string;
  /** Stops; with `drain`, GET /ready answers 503 and the listener stays open until the requests in flight are done. */
  stop(options?: { drain?: boolean }): Promise<void>;
}

/** How often the drain looks at the requests in flight. */
const DRAIN_POLL_MS = 20;

export async function serve(config: Config): Promise<Running> {
  const store = Store.open({ databaseUrl: config.database_url, dataDir: config.data_dir });
  await store.migrate();
  const app = await buildApp({ config, store });
  const minted = await app.services.tokens.ensureAdminToken(config.admin_token);
  if (minted !== null) announceAdminToken(config, minted);

  app.log.info({ ms: Math.round(app.services.detectors.warmUp()) }, 'detectors warmed up');
  // Requests being answered, counted where Node hands them over, so that the drain sees every route.
  let inFlight = 0;
  app.server.on('request', (_request, response: ServerResponse) => {
    inFlight += 1;
    response.once('close', () => (inFlight -= 1));
  });
  const url = await app.listen({ port: config.port, host: config.host });
  let stopping: Promise<void> | undefined;
  const stop = (options: { drain?: boolean } = {}) =>
    (stopping ??= (async () => {
      if (options.drain === true) {
        app.services.health.startDraining();
        // Half the shutdown budget at most: closing (in-flight requests, the recorder's flush) needs the rest.
        const until = Date.now() + config.shutdown_timeout_ms / 2;
        while (inFlight > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
      }
      await app.close();
      await store.close();
    })());
  return { url, stop };
}

/** Shows the minted bootstrap token once and keeps it in `<data dir>/admin-token` (mode 0600). */
function announceAdminToken(config: Config, raw: string): void {
  mkdirSync(config.data_dir, { recursive: true });
  const file = path.join(config.data_dir, 'admin-token');
  writeFileSync(file, `${raw}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  process.stdout.write(
    `\nParapet minted the first admin token. It is shown this once and kept in ${file} (mode 0600):\n\n  ${raw}\n\n`,
  );
}

export async function runServer(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const running = await serve(config);
  const shutdown = (signal: string) => {
    const timer = setTimeout(() => {
      process.stderr.write(`shutdown: requests still running after ${config.shutdown_timeout_ms} ms; exiting\n`);
      process.exit(1);
    }, config.shutdown_timeout_ms);
    timer.unref();
    running.stop({ drain: signal === 'SIGTERM' }).then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`shutdown after ${signal} failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}
