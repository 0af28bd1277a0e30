// parapet jobs list|retry: clients of /api/jobs.
import type { Command } from 'commander';
import { clientFor, withConnectionOptions, type ConnectionOptions } from '../client.js';
import type { ApiItem } from '../../api/answers.js';

type Job = ApiItem<'/api/jobs'>;

const line = (job: Job) =>
  `${job.id}  ${job.status.padEnd(7)}  ${job.kind}  attempts ${job.attempts}/${job.max_attempts}${job.last_error === null ? '' : `  last error: ${job.last_error}`}`;

export function registerJobsCommands(program: Command): void {
  const jobs = program.command('jobs').description('the job queue: background work, retries and dead jobs');

  withConnectionOptions(
    jobs
      .command('list')
      .description('jobs, newest first; dead ones included')
      .option('--status <status>', 'queued, running, done or dead')
      .option('--kind <kind>', 'only this kind, e.g. evidence.build')
      .option('--limit <n>', 'how many', (value) => Number.parseInt(value, 10), 20)
      .option('--json', 'print JSON'),
  ).action(async (options: ConnectionOptions & { status?: string; kind?: string; limit: number; json?: boolean }) => {
    const query = new URLSearchParams({ limit: String(options.limit) });
    if (options.status !== undefined) query.set('status', options.status);
    if (options.kind !== undefined) query.set('kind', options.kind);
    const page = await clientFor(options).json<{ items: Job[] }>('GET', `/api/jobs?${query}`);
    if (options.json) process.stdout.write(`${JSON.stringify(page.items, null, 2)}\n`);
    else for (const job of page.items) process.stdout.write(`${line(job)}\n`);
  });

  withConnectionOptions(jobs.command('retry').description('requeue a dead job').argument('<job_id>', 'the job id')).action(
    async (jobId: string, options: ConnectionOptions) => {
      const job = await clientFor(options).json<Job>('POST', `/api/jobs/${encodeURIComponent(jobId)}/retry`, {});
      process.stdout.write(`${line(job)}\n`);
    },
  );
}
