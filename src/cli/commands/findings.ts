// parapet findings list|show|suppress|resolve|reopen: the findings queue through the HTTP API
// (GET and PATCH /api/findings). API errors are thrown as ApiError; index.ts prints them.
import { InvalidArgumentError, type Command } from 'commander';
import { clientFor, withConnectionOptions, type ConnectionOptions } from '../client.js';
import type { ApiItem } from '../../api/answers.js';

type FindingLine = ApiItem<'/api/findings'>;

const STATUSES = ['open', 'suppressed', 'resolved'];
const SEVERITIES = ['critical', 'high', 'medium', 'low'];

const oneOf = (allowed: string[]) => (value: string) => {
  if (!allowed.includes(value)) throw new InvalidArgumentError(`one of ${allowed.join(', ')}`);
  return value;
};

function parseLimit(value: string): number {
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new InvalidArgumentError('a whole number from 1 to 500');
  return limit;
}

/** A plain table, columns padded to their widest cell; the last column (title) is not padded. */
export function findingsTable(items: FindingLine[]): string {
  const rows = [
    ['ID', 'SEVERITY', 'STATUS', 'OCCURRENCES', 'LAST SEEN', 'TITLE'],
    ...items.map((item) => [
      item.id,
      item.severity,
      item.status,
      String(item.occurrences),
      item.last_seen_at.replace(/\.\d+Z$/, 'Z'),
      item.title,
    ]),
  ];
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows
    .map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join('  '))
    .join('\n');
}

type ListOptions = ConnectionOptions & {
  status?: string;
  severity?: string;
  type?: string;
  agent?: string;
  limit: number;
  cursor?: string;
  json?: boolean;
};

async function changeStatus(
  id: string,
  options: ConnectionOptions & { json?: boolean },
  body: { status: string; suppression_reason?: string; note?: string },
): Promise<void> {
  const finding = await clientFor(options).json<FindingLine>('PATCH', `/api/findings/${encodeURIComponent(id)}`, body);
  if (options.json) process.stdout.write(`${JSON.stringify(finding, null, 2)}\n`);
  else process.stdout.write(`${finding.id} is now ${finding.status}: ${finding.title}\n`);
}

export function registerFindingsCommands(program: Command): void {
  const findings = program.command('findings').description('the findings queue: list, show, suppress, resolve, reopen');

  withConnectionOptions(
    findings
      .command('list')
      .description('findings, newest first')
      .option('--status <status>', `one of ${STATUSES.join(', ')}`, oneOf(STATUSES))
      .option('--severity <severity>', `one of ${SEVERITIES.join(', ')}`, oneOf(SEVERITIES))
      .option('--type <type>', 'a finding type (GET /api/findings/types)')
      .option('--agent <slug>', "a registered agent's slug")
      .option('--limit <n>', 'how many (1-500)', parseLimit, 20)
      .option('--cursor <cursor>', 'the next page, as a previous list printed it')
      .option('--json', 'print the API answer as JSON'),
  ).action(async (options: ListOptions) => {
    const query = new URLSearchParams({ limit: String(options.limit) });
    for (const key of ['status', 'severity', 'type', 'agent', 'cursor'] as const) {
      const value = options[key];
      if (value !== undefined) query.set(key, value);
    }
    const page = await clientFor(options).json<{ items: FindingLine[]; next_cursor: string | null }>('GET', `/api/findings?${query}`);
    if (options.json) {
      process.stdout.write(`${JSON.stringify(page, null, 2)}\n`);
      return;
    }
    if (page.items.length === 0) {
      process.stdout.write('no findings\n');
      return;
    }
    process.stdout.write(`${findingsTable(page.items)}\n`);
    if (page.next_cursor !== null) process.stdout.write(`more: --cursor ${page.next_cursor}\n`);
  });

  withConnectionOptions(findings.command('show').description('one finding, as JSON').argument('<finding_id>', 'fnd_…')).action(
    async (id: string, options: ConnectionOptions) => {
      const finding = await clientFor(options).json('GET', `/api/findings/${encodeURIComponent(id)}`);
      process.stdout.write(`${JSON.stringify(finding, null, 2)}\n`);
    },
  );

  withConnectionOptions(
    findings
      .command('suppress')
      .description('suppress a finding: it stays out of the open queue and still counts recurrences')
      .argument('<finding_id>', 'fnd_…')
      .requiredOption('--reason <text>', 'why it needs no action (suppression_reason)')
      .option('--json', 'print the finding as JSON'),
  ).action(async (id: string, options: ConnectionOptions & { reason: string; json?: boolean }) =>
    changeStatus(id, options, { status: 'suppressed', suppression_reason: options.reason }),
  );

  withConnectionOptions(
    findings
      .command('resolve')
      .description('resolve a finding; if it recurs it reopens and raises false_resolution')
      .argument('<finding_id>', 'fnd_…')
      .requiredOption('--note <text>', 'what was done about it')
      .option('--json', 'print the finding as JSON'),
  ).action(async (id: string, options: ConnectionOptions & { note: string; json?: boolean }) =>
    changeStatus(id, options, { status: 'resolved', note: options.note }),
  );

  withConnectionOptions(
    findings
      .command('reopen')
      .description('reopen a suppressed or resolved finding')
      .argument('<finding_id>', 'fnd_…')
      .requiredOption('--note <text>', 'why it needs attention again')
      .option('--json', 'print the finding as JSON'),
  ).action(async (id: string, options: ConnectionOptions & { note: string; json?: boolean }) =>
    changeStatus(id, options, { status: 'open', note: options.note }),
  );
}
