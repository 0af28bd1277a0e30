// parapet evidence create|list|download: clients of /api/evidence.
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { clientFor, withConnectionOptions, type ConnectionOptions } from '../client.js';
import type { ApiAnswer, ApiItem } from '../../api/answers.js';

const collect = (value: string, previous: string[]) => [...previous, value];

type EvidencePackage = ApiItem<'/api/evidence'>;

function describe(item: EvidencePackage): string {
  const counts = item.counts === null ? '' : ` ${Object.entries(item.counts).map(([key, n]) => `${key} ${n}`).join(', ')};`;
  const size = item.size_bytes === null ? '' : ` ${item.size_bytes} bytes;`;
  const job = item.job_id === null ? '' : ` job ${item.job_id}`;
  return `${item.id} ${item.status}${counts}${size}${job}`.replace(/;$/, '');
}

export function registerEvidenceCommands(program: Command): void {
  const evidence = program.command('evidence').description('evidence packages: records of a period, hashed and zipped for auditors');

  withConnectionOptions(
    evidence
      .command('create')
      .description('build an evidence package; prints its id and status (queued_for_retry: a job finishes it later)')
      .option('--agent <slug>', 'an agent whose records go in (repeat for several; default every agent)', collect, [])
      .option('--control <key>', 'a control the package is evidence for (repeatable)', collect, [])
      .option('--from <iso>', 'start of the period, ISO 8601 (default 30 days before --to)')
      .option('--to <iso>', 'end of the period, ISO 8601 (default now)')
      .option('--json', 'print the answer as JSON'),
  ).action(async (options: ConnectionOptions & { agent: string[]; control: string[]; from?: string; to?: string; json?: boolean }) => {
    const body: Record<string, unknown> = {};
    if (options.agent.length > 0) body.agents = options.agent;
    if (options.control.length > 0) body.controls = options.control;
    if (options.from !== undefined) body.period_from = options.from;
    if (options.to !== undefined) body.period_to = options.to;
    // 201 answers the package; 202 only its id, status and job.
    const answer = await clientFor(options).json<ApiAnswer<'/api/evidence', 'post'>>('POST', '/api/evidence', body);
    const summary = { ...answer, counts: answer.counts ?? null, size_bytes: answer.size_bytes ?? null, manifest_sha256: answer.manifest_sha256 ?? null, job_id: answer.job_id ?? null };
    process.stdout.write(options.json ? `${JSON.stringify(answer, null, 2)}\n` : `${describe(summary)}\n`);
  });

  withConnectionOptions(
    evidence
      .command('list')
      .description('evidence packages, newest first')
      .option('--limit <n>', 'how many', (value) => Number.parseInt(value, 10), 20)
      .option('--json', 'print JSON'),
  ).action(async (options: ConnectionOptions & { limit: number; json?: boolean }) => {
    const page = await clientFor(options).json<{ items: EvidencePackage[] }>('GET', `/api/evidence?limit=${options.limit}`);
    if (options.json) process.stdout.write(`${JSON.stringify(page.items, null, 2)}\n`);
    else for (const item of page.items) process.stdout.write(`${describe(item)}\n`);
  });

  withConnectionOptions(
    evidence
      .command('download')
      .description('save a ready package as a zip; verify it with: unzip FILE -d pkg && (cd pkg && sha256sum -c SHA256SUMS)')
      .argument('<package_id>', 'the id `parapet evidence create` printed')
      .option('-o, --output <file>', 'where to write it (default <package_id>.zip)'),
  ).action(async (packageId: string, options: ConnectionOptions & { output?: string }) => {
    const response = await clientFor(options).request('GET', `/api/evidence/${encodeURIComponent(packageId)}/download`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    const file = options.output ?? `${packageId}.zip`;
    await writeFile(file, bytes);
    process.stdout.write(`wrote ${file} (${bytes.length} bytes)\n`);
  });
}
