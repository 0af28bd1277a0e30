// parapet serve | migrate.
import type { Command } from 'commander';
import { loadConfig } from '../../config/load.js';
import { runServer } from '../../main.js';
import { Store } from '../../store/db.js';

export function registerServerCommands(program: Command): void {
  program
    .command('serve')
    .description('start the gateway (settings from parapet.yaml and PARAPET_* variables)')
    .action(async () => {
      await runServer();
    });

  program
    .command('migrate')
    .description('apply pending database migrations and print the latest one')
    .action(async () => {
      const config = loadConfig();
      const store = Store.open({ databaseUrl: config.database_url, dataDir: config.data_dir });
      try {
        const latest = await store.migrate();
        process.stdout.write(`migrated ${store.dialect} database to ${latest}\n`);
      } finally {
        await store.close();
      }
    });
}
