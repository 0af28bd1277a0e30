// Process entry: config → store (+ migrations) → bootstrap admin token → buildApp → listen.
// SIGTERM and SIGINT drain in-flight requests, then close the database.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './infra/config/load.js';
import type { Config } from './infra/config/schema.js';
import { Store } from './infra/store/db.js';

export interface Running {
  url: string;
  stop(): Promise<void>;
}

export async function serve(config: Config): Promise<Running> {
  const store = Store.open({ databaseUrl: config.database_url, dataDir: config.data_dir });
  await store.migrate();
  const app = await buildApp({ config, store });
  const minted = await app.services.tokens.ensureAdminToken(config.admin_token);
  if (minted !== null) announceAdminToken(config, minted);

  app.log.info({ ms: Math.round(app.services.detectors.warmUp()) }, 'detectors warmed up');
  const url = await app.listen({ port: config.port, host: config.host });
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
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
    running.stop().then(
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
