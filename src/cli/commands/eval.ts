// parapet eval gate|run (and push, from ./eval-suites.js): evaluations through the HTTP API. `gate`
// is made for CI: it prints a plain table a build log keeps, and its exit code is the verdict —
// 0 passed, 1 not passed, 2 when the gate could not be asked (bad usage, no connection, refused).
import { CommanderError, InvalidArgumentError, type Command } from 'commander';
import { clientFor, withConnectionOptions, type ConnectionOptions } from '../client.js';
import type { ApiAnswer } from '../../api/answers.js';
import { registerEvalSuiteCommands } from './eval-suites.js';

/** The exit code when the gate could not give a verdict (usage, connection, a refused request). */
const EXIT_UNUSABLE = 2;
const POLL_MS = 1000;

type GateAnswer = ApiAnswer<'/api/eval/gate', 'post'>;

type RunAnswer = ApiAnswer<'/api/eval/runs/{run_id}', 'get'>;

type TargetOptions = ConnectionOptions & { suite: string; target?: Record<string, unknown>; scorer?: string[]; baseline?: string; json?: boolean };
type GateOptions = TargetOptions & { threshold?: Record<string, number>; minPassRate?: number; run?: string };
type RunOptions = TargetOptions & { runner?: string; wait?: boolean };

function parseTarget(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new InvalidArgumentError('a JSON object, e.g. \'{"type":"guard","policy":"baseline","mode":"enforce"}\'');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new InvalidArgumentError('a JSON object with a type (guard, model or http)');
  return parsed as Record<string, unknown>;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function parseThreshold(value: string, previous: Record<string, number> | undefined): Record<string, number> {
  const match = /^([^=\s]+)=([0-9.]+)$/.exec(value);
  const rate = match === null ? Number.NaN : Number(match[2]);
  if (match === null || !Number.isFinite(rate) || rate < 0 || rate > 1) throw new InvalidArgumentError('scorer=rate, the rate from 0 to 1 (e.g. verdict=0.95)');
  return { ...previous, [match[1] as string]: rate };
}

function parseRate(value: string): number {
  const rate = Number(value);
  if (value.trim() === '' || !Number.isFinite(rate) || rate < 0 || rate > 1) throw new InvalidArgumentError('a number from 0 to 1');
  return rate;
}

const percent = (rate: number | null): string => (rate === null ? '-' : `${(rate * 100).toFixed(1)}%`);

/** A plain table, columns padded to their widest cell. */
function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join('  ')).join('\n');
}

/** The gate's answer as a CI log shows it: the scorers table, the regressions, the reasons, the run. */
export function gateReport(suite: string, answer: GateAnswer, caseKeys: ReadonlyMap<string, string | null> = new Map()): string {
  const rows = [
    ['SCORER', 'PASS RATE', 'THRESHOLD', 'OK'],
    ...answer.scorers.map((item) => [item.scorer, percent(item.pass_rate), percent(item.threshold), item.passed ? 'ok' : 'FAIL']),
  ];
  if (answer.min_pass_rate !== null) {
    const ok = answer.pass_rate !== null && answer.pass_rate >= answer.min_pass_rate;
    rows.push(['(all scorers)', percent(answer.pass_rate), percent(answer.min_pass_rate), ok ? 'ok' : 'FAIL']);
  }
  const lines = [`eval gate: suite ${suite}, run ${answer.run_id}`, '', table(rows), ''];
  const comparison = answer.comparison;
  if (comparison !== null) {
    lines.push(
      `against baseline ${comparison.baseline_run_id}: ${comparison.regressed.length} regressed, ${comparison.improved.length} improved; exact McNemar p = ${comparison.test.p_value.toPrecision(3)}${comparison.significant ? ' (significant)' : ''}`,
    );
    for (const id of comparison.regressed) {
      const key = caseKeys.get(id);
      lines.push(`  regressed: ${id}${key === undefined || key === null ? '' : ` (${key})`}`);
    }
    lines.push('');
  }
  if (answer.reasons.length > 0) {
    lines.push('reasons:');
    for (const reason of answer.reasons) lines.push(`  - ${reason}`);
    lines.push('');
  }
  lines.push(`${answer.passed ? 'PASSED' : 'FAILED'}: run ${answer.run_id}`);
  return `${lines.join('\n')}\n`;
}

/** Any failure to ask (connection, refusal, bad arguments) exits 2: 1 is kept for "the gate said no". */
async function unusableOnError(work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    process.stderr.write(`parapet: ${(error as Error).message}${(error as Error).cause instanceof Error ? ` (${((error as Error).cause as Error).message})` : ''}\n`);
    process.exitCode = EXIT_UNUSABLE;
  }
}

function exitUnusableOnUsageErrors(command: Command): Command {
  return command.exitOverride((error) => {
    // Help and version exit 0; a usage error is "could not ask", not "failed".
    if (error.exitCode === 0) throw error;
    throw new CommanderError(EXIT_UNUSABLE, error.code, error.message);
  });
}

function runBody(options: TargetOptions): Record<string, unknown> {
  return {
    suite: options.suite,
    ...(options.target === undefined ? {} : { target: options.target }),
    ...(options.scorer === undefined ? {} : { scorers: options.scorer }),
    ...(options.baseline === undefined ? {} : { baseline_run_id: options.baseline }),
  };
}

function withTargetOptions(command: Command): Command {
  return command
    .requiredOption('--suite <key>', 'the suite to run')
    .option('--target <json>', 'the target as JSON (default {"type":"guard"})', parseTarget)
    .option('--scorer <name>', 'a scorer (repeat for more; default: the target type\'s)', collect)
    .option('--baseline <run_id>', 'compare with this earlier run of the suite')
    .option('--json', 'print the API answer as JSON');
}

export function registerEvalCommands(program: Command): void {
  const evalCommand = program.command('eval').description('evaluations: push suite files, run suites, gate a build on the result');
  registerEvalSuiteCommands(evalCommand);

  exitUnusableOnUsageErrors(
    withConnectionOptions(
      withTargetOptions(
        evalCommand
          .command('gate')
          .description('run a suite (or reuse --run) and exit 0 when it passes the thresholds, 1 when not, 2 when the gate could not be asked'),
      )
        .option('--threshold <scorer=rate>', 'the least pass rate of a scorer, 0 to 1 (repeat for more)', parseThreshold)
        .option('--min-pass-rate <rate>', 'the least share of cases passing every scorer (default 1 without --threshold)', parseRate)
        .option('--run <run_id>', 'gate this completed run instead of running the suite'),
    ),
  ).action(async (options: GateOptions) =>
    unusableOnError(async () => {
      const client = clientFor(options);
      const body = {
        ...(options.run === undefined ? runBody(options) : { suite: options.suite, ...(options.baseline === undefined ? {} : { baseline_run_id: options.baseline }), run_id: options.run }),
        ...(options.threshold === undefined ? {} : { thresholds: options.threshold }),
        ...(options.minPassRate === undefined ? {} : { min_pass_rate: options.minPassRate }),
      };
      const answer = await client.json<GateAnswer>('POST', '/api/eval/gate', body);
      if (options.json) process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
      else {
        const keys = new Map<string, string | null>();
        if ((answer.comparison?.regressed.length ?? 0) > 0) {
          const run = await client.json<RunAnswer>('GET', `/api/eval/runs/${encodeURIComponent(answer.run_id)}`);
          for (const item of run.cases ?? []) if (item.case_id !== null) keys.set(item.case_id, item.case_key);
        }
        process.stdout.write(gateReport(options.suite, answer, keys));
      }
      process.exitCode = answer.passed ? 0 : 1;
    }),
  );

  exitUnusableOnUsageErrors(
    withConnectionOptions(
      withTargetOptions(evalCommand.command('run').description('start a run of a suite and print its id and status'))
        .option('--runner <runner>', 'auto (default), inline or job')
        .option('--wait', 'wait for a queued run to finish, polling its status'),
    ),
  ).action(async (options: RunOptions) =>
    unusableOnError(async () => {
      const client = clientFor(options);
      let run = await client.json<RunAnswer>('POST', '/api/eval/runs', { ...runBody(options), ...(options.runner === undefined ? {} : { runner: options.runner }) });
      if (options.wait) {
        while (run.status === 'queued' || run.status === 'running') {
          await new Promise((resolve) => setTimeout(resolve, POLL_MS));
          run = await client.json<RunAnswer>('GET', `/api/eval/runs/${encodeURIComponent(run.id)}`);
          if (!options.json && run.status === 'running') process.stderr.write(`${run.id}: ${run.done ?? 0}/${run.total}\n`);
        }
      }
      if (options.json) process.stdout.write(`${JSON.stringify(run, null, 2)}\n`);
      else {
        const rate = run.pass_rate === undefined || run.pass_rate === null ? '' : `, pass rate ${percent(run.pass_rate)}`;
        process.stdout.write(`${run.id} ${run.status} (${run.total} cases${rate})${run.error ? `: ${run.error}` : ''}\n`);
        if (run.comparison) {
          process.stdout.write(`against ${run.comparison.baseline_run_id}: ${run.comparison.regressed.length} regressed, ${run.comparison.improved.length} improved\n`);
        }
      }
      if (run.status === 'failed') process.exitCode = 1;
    }),
  );
}
