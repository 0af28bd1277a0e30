// parapet serve | migrate.
// Heavy modules load inside the actions, so `--help` answers at once.
import type { Command } from 'commander';

export function registerServerCommands(program: Command): void {
  program
    .command('serve')
    .description('start the gateway (settings from parapet.yaml and PARAPET_* variables)')
    .action(async () => {
      const { runServer } = await import('../../main.js');
      await runServer();
    });

  program
    .command('migrate')
    .description('apply pending database migrations and print the latest one')
    .action(async () => {
      const { loadConfig } = await import('../../infra/config/load.js');
      const { Store } = await import('../../infra/store/db.js');
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
