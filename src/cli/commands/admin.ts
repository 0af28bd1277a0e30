// parapet admin token create|list|revoke: bootstrap commands that act on the same storage as the
// server (same environment), so that a fresh installation can mint its first tokens.
import { InvalidArgumentError, type Command } from 'commander';
import type { TokenRoleChoice, TokenService } from '../../areas/tokens/service.js';

const ROLES: TokenRoleChoice[] = ['viewer', 'operator', 'admin', 'traffic'];

async function withTokens<T>(work: (tokens: TokenService) => Promise<T>): Promise<T> {
  // Loaded here rather than at the top so that `--help` does not open database drivers.
  const [{ AuditLog }, { loadConfig }, { systemClock }, { Store }, { TokenService }] = await Promise.all([
    import('../../areas/audit/log.js'),
    import('../../infra/config/load.js'),
    import('../../infra/lib/clock.js'),
    import('../../infra/store/db.js'),
    import('../../areas/tokens/service.js'),
  ]);
  const config = loadConfig();
  const store = Store.open({ databaseUrl: config.database_url, dataDir: config.data_dir });
  try {
    await store.migrate();
    return await work(new TokenService(store, new AuditLog(store, systemClock), null, systemClock));
  } finally {
    await store.close();
  }
}

function parseRole(value: string): TokenRoleChoice {
  if (!ROLES.includes(value as TokenRoleChoice)) throw new InvalidArgumentError(`one of ${ROLES.join(', ')}`);
  return value as TokenRoleChoice;
}

function parseDays(value: string): number {
  const days = Number(value);
  if (!Number.isInteger(days) || days < 1 || days > 3650) throw new InvalidArgumentError('a whole number of days from 1 to 3650');
  return days;
}

export function registerAdminCommands(program: Command): void {
  const token = program
    .command('admin')
    .description('bootstrap administration against the local storage')
    .command('token')
    .description('operator and traffic tokens');

  token
    .command('create')
    .description('mint a token; the raw value is printed alone on the last line, once')
    .requiredOption('--name <name>', 'who or what the token is for')
    .requiredOption('--role <role>', `one of ${ROLES.join(', ')}`, parseRole)
    .option('--ttl-days <days>', 'days until it expires (default: never)', parseDays)
    .action(async (options: { name: string; role: TokenRoleChoice; ttlDays?: number }) => {
      const created = await withTokens((tokens) =>
        tokens.mint(
          { name: options.name, role: options.role, owner: options.name, createdBy: 'cli', ttlDays: options.ttlDays ?? null },
          'cli',
        ),
      );
      const expiry = created.expires_at === null ? 'never expires' : `expires ${created.expires_at}`;
      process.stdout.write(`created ${created.kind} token ${created.id} (role ${created.role ?? 'traffic'}, ${expiry})\n`);
      process.stdout.write(`${created.token}\n`);
    });

  token
    .command('list')
    .description('list tokens (never their values)')
    .option('--limit <n>', 'how many, newest first', (value) => Number.parseInt(value, 10), 50)
    .option('--json', 'print JSON')
    .action(async (options: { limit: number; json?: boolean }) => {
      const items = await withTokens((tokens) => tokens.listAll(options.limit));
      if (options.json) {
        process.stdout.write(`${JSON.stringify(items, null, 2)}\n`);
        return;
      }
      for (const item of items) {
        process.stdout.write(
          `${item.id}  ${item.status.padEnd(7)}  ${(item.role ?? 'traffic').padEnd(8)}  ${item.name}  (${item.token_hint})\n`,
        );
      }
    });

  token
    .command('revoke')
    .description('revoke a token by id')
    .argument('<token_id>', 'the id, as `parapet admin token list` shows it')
    .action(async (tokenId: string) => {
      const revoked = await withTokens((tokens) => tokens.revoke(null, tokenId));
      process.stdout.write(`revoked ${revoked.id} (${revoked.name})\n`);
    });
}
