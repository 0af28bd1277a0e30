// parapet policy validate|lint|simulate|push|mode|canary: policy as code through the HTTP API
// (/api/policies/...), made for a policy repository checked in CI: every check exits non-zero when
// it fails. API errors are thrown as ApiError; index.ts prints them and exits 1.
import { readFileSync } from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';
import { ApiError, clientFor, withConnectionOptions, type ConnectionOptions } from '../client.js';
import type { ApiAnswer } from '../../api/answers.js';

interface LintFinding {
  severity: string;
  code: string;
  policy: string;
  rule_id?: string;
  message: string;
}

type LintReport = ApiAnswer<'/api/policies/lint', 'get'>;

type Validation = ApiAnswer<'/api/policies/validate', 'post'>;

type Simulation = ApiAnswer<'/api/policies/simulate', 'post'>;

type SavedVersion = ApiAnswer<'/api/policies', 'post'>;

type PolicySummary = ApiAnswer<'/api/policies/{key}/mode', 'post'>;

type Canary = ApiAnswer<'/api/policies/{key}/canary', 'get'>;

const MODES = ['observe', 'enforce'];
const LEVELS = ['org', 'team', 'agent', 'environment'];
const COMPOSES = ['merge', 'override'];
const CANARY_ACTIONS = ['start', 'advance', 'rollback', 'status'];
/** How many changed decisions simulate lists before it says how many more there are. */
const SHOWN_CHANGES = 20;

const oneOf = (allowed: string[]) => (value: string) => {
  if (!allowed.includes(value)) throw new InvalidArgumentError(`one of ${allowed.join(', ')}`);
  return value;
};

const wholeNumber = (min: number, max = Number.MAX_SAFE_INTEGER) => (value: string) => {
  const number = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(number) || number < min || number > max) {
    throw new InvalidArgumentError(max === Number.MAX_SAFE_INTEGER ? `a whole number, ${min} or more` : `a whole number from ${min} to ${max}`);
  }
  return number;
};

function fraction(value: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number < 0 || number > 1) throw new InvalidArgumentError('a fraction from 0 to 1 (0.05 is 5 percentage points)');
  return number;
}

function canarySteps(value: string): number[] {
  const parts = value.split(',').map((part) => part.trim());
  const steps = parts.map(Number);
  if (parts.length > 20 || steps.some((step, index) => parts[index] === '' || !Number.isInteger(step) || step < 1 || step > 100)) {
    throw new InvalidArgumentError('a comma-separated list of 1 to 20 percentages from 1 to 100, such as 5,25,50,100');
  }
  if (steps.some((step, index) => index > 0 && step <= (steps[index - 1] ?? 0))) throw new InvalidArgumentError('percentages in increasing order, such as 5,25,50,100');
  return steps;
}

/** Why a file could not be read, in a few words. */
function readFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : code === 'EACCES' ? 'permission denied' : (error as Error).message;
}

/** Reads a policy file, with a message that names the file when it cannot. */
export function readPolicyFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read policy file ${file}: ${readFailure(error)}`);
  }
}

/**
 * One validation error as a compiler prints it (`file:line:column: message`), so editors and CI
 * annotate the line. Only the first line of a message is kept: YAML errors append a code excerpt.
 */
export function diagnostic(file: string, error: Validation['errors'][number]): string {
  const where = error.line === null ? file : error.column === null ? `${file}:${error.line}` : `${file}:${error.line}:${error.column}`;
  const message = (error.message.split('\n')[0] ?? '').trim().replace(/:$/, '');
  return `${where}: ${error.path === '' ? '' : `${error.path}: `}${message}`;
}

/** A plain table, columns padded to their widest cell; the last column is not padded. */
export function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows
    .map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join('  '))
    .join('\n');
}

function countsText(counts: Record<string, number>): string {
  const parts = Object.entries(counts).map(([severity, count]) => `${count} ${severity}`);
  return parts.length === 0 ? 'no findings' : parts.join(', ');
}

function transitionsText(transitions: Record<string, number>): string {
  const parts = Object.entries(transitions).map(([transition, count]) => `${transition} ${count}`);
  return parts.length === 0 ? 'none' : parts.join(', ');
}

function lintTable(findings: LintFinding[]): string {
  return table([
    ['SEVERITY', 'CODE', 'POLICY', 'RULE', 'MESSAGE'],
    ...findings.map((finding) => [finding.severity, finding.code, finding.policy, finding.rule_id ?? '-', finding.message]),
  ]);
}

const percent = (rate: number | null) => (rate === null ? 'n/a' : `${(rate * 100).toFixed(1)}%`);

export function canaryText(canary: Canary): string {
  const step = `step ${canary.step_index + 1} of ${canary.steps.length} (${canary.steps.join(',')})`;
  const lines = [
    `canary of ${canary.key}: ${canary.state}${canary.state === 'running' ? ` at ${canary.percent}%` : ''}, version ${canary.candidate_version} against ${canary.baseline_version}, ${step}`,
  ];
  const check = canary.last_check;
  if (check === null) lines.push('last check: none yet');
  else {
    lines.push(`last check ${check.at.replace(/\.\d+Z$/, 'Z')}: ${check.outcome}: ${check.why}`);
    lines.push(
      `  candidate ${check.candidate.calls} calls, ${check.candidate.blocked} blocked (${percent(check.candidate.block_rate)}); baseline ${check.baseline.calls} calls, ${check.baseline.blocked} blocked (${percent(check.baseline.block_rate)})`,
    );
  }
  return lines.join('\n');
}

/** Checks that --scope-id comes with a --level it belongs to (the org level has no scope id). */
function scopeBinding(options: ScopeOptions, command: Command): { level?: string; scope_id?: string; compose?: string } {
  if (options.scopeId !== undefined && options.level === undefined) command.error('error: --scope-id needs --level (team, agent or environment)');
  if (options.scopeId !== undefined && options.level === 'org') command.error('error: --level org takes no --scope-id: an org-level policy applies everywhere');
  return {
    ...(options.level === undefined ? {} : { level: options.level }),
    ...(options.scopeId === undefined ? {} : { scope_id: options.scopeId }),
    ...(options.compose === undefined ? {} : { compose: options.compose }),
  };
}

type ScopeOptions = { level?: string; scopeId?: string; compose?: string };

const writeJson = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

/** Adds --level, --scope-id and --compose (where a policy applies and how it combines). */
function withScopeOptions(command: Command): Command {
  return command
    .option('--level <level>', `where it applies: one of ${LEVELS.join(', ')}`, oneOf(LEVELS))
    .option('--scope-id <id>', 'the team, agent or environment it applies to (with --level)')
    .option('--compose <compose>', `how it combines with policies above it: one of ${COMPOSES.join(', ')}`, oneOf(COMPOSES));
}

export function registerPolicyCommands(program: Command): void {
  const policy = program.command('policy').description('policy as code: validate, lint, simulate, push, mode, canary (non-zero exit on failure, for CI)');

  withConnectionOptions(
    policy
      .command('validate')
      .description('validate policy YAML files; errors print as file:line:column: message')
      .argument('<file...>', 'policy YAML files')
      .option('--strict', "also fail when the lint of the set each file would make does not pass (critical or high findings)"),
  ).action(async (files: string[], options: ConnectionOptions & { strict?: boolean }) => {
    const client = clientFor(options);
    let failed = false;
    for (const file of files) {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (error) {
        process.stdout.write(`${file}: cannot read: ${readFailure(error)}\n`);
        failed = true;
        continue;
      }
      if (text.trim() === '') {
        process.stdout.write(`${file}:1:1: the file is empty\n`);
        failed = true;
        continue;
      }
      let result: Validation;
      try {
        result = await client.json<Validation>('POST', '/api/policies/validate', { body: text });
      } catch (error) {
        // A text the API refuses outright (larger than 256 KB) fails this file, not the others.
        if (!(error instanceof ApiError) || error.status !== 400) throw error;
        process.stdout.write(`${file}: ${error.message}\n`);
        failed = true;
        continue;
      }
      if (!result.valid) {
        for (const error of result.errors) process.stdout.write(`${diagnostic(file, error)}\n`);
        failed = true;
        continue;
      }
      const lint = result.lint;
      const lintNote = lint === null ? '' : `; lint ${lint.passed ? 'passed' : 'failed'} (${countsText(lint.counts)})`;
      process.stdout.write(`${file}: ok: policy ${result.key ?? '?'}, ${result.rules} rule${result.rules === 1 ? '' : 's'}${lintNote}\n`);
      if (options.strict && lint !== null && !lint.passed) {
        for (const finding of lint.findings) {
          process.stdout.write(`${file}: lint ${finding.severity} ${finding.code}: ${finding.policy}${finding.rule_id === undefined ? '' : `/${finding.rule_id}`}: ${finding.message}\n`);
        }
        failed = true;
      }
    }
    if (failed) process.exitCode = 1;
  });

  withConnectionOptions(
    policy
      .command('lint')
      .description('lint the policies in force; exit 1 when it does not pass (critical or high findings)')
      .option('--json', 'print the API answer as JSON'),
  ).action(async (options: ConnectionOptions & { json?: boolean }) => {
    const report = await clientFor(options).json<LintReport>('GET', '/api/policies/lint');
    if (options.json) writeJson(report);
    else {
      if (report.findings.length > 0) process.stdout.write(`${lintTable(report.findings)}\n`);
      process.stdout.write(`lint ${report.passed ? 'passed' : 'failed'}: ${countsText(report.counts)}\n`);
    }
    if (!report.passed) process.exitCode = 1;
  });

  withConnectionOptions(
    policy
      .command('simulate')
      .description('replay recorded decisions against the policy in a file and report the ones whose verdict changes')
      .argument('<file>', 'policy YAML file')
      .option('--agent <slug>', 'only decisions of this agent')
      .option('--since-days <n>', 'how far back (1-365 days)', wholeNumber(1, 365))
      .option('--limit <n>', 'at most this many decisions (1-50000)', wholeNumber(1, 50_000))
      .option('--persist', 'save the simulation (its id is printed)')
      .option('--max-changes <n>', 'exit 1 when more decisions than this change (a CI guard)', wholeNumber(0))
      .option('--json', 'print the API answer as JSON'),
  ).action(
    async (
      file: string,
      options: ConnectionOptions & { agent?: string; sinceDays?: number; limit?: number; persist?: boolean; maxChanges?: number; json?: boolean },
    ) => {
      const body = {
        body: readPolicyFile(file),
        ...(options.agent === undefined ? {} : { agent: options.agent }),
        ...(options.sinceDays === undefined ? {} : { since_days: options.sinceDays }),
        ...(options.limit === undefined ? {} : { limit: options.limit }),
        ...(options.persist ? { persist: true } : {}),
      };
      const result = await clientFor(options).json<Simulation>('POST', '/api/policies/simulate', body);
      if (options.json) writeJson(result);
      else {
        const lines = [
          `policy ${result.policy}: ${result.examined} decisions examined since ${result.since.replace(/\.\d+Z$/, 'Z')}${result.without_facts > 0 ? ` (${result.without_facts} without recorded facts, skipped)` : ''}`,
          `changed: ${result.changed} verdicts (${result.effective_changed} effective verdicts)`,
          `transitions: ${transitionsText(result.transitions)}`,
        ];
        if (result.simulation_id !== null) lines.push(`saved as ${result.simulation_id}`);
        if (result.changes.length > 0) {
          const shown = result.changes.slice(0, SHOWN_CHANGES);
          lines.push(
            table([
              ['DECISION', 'AT', 'AGENT', 'SURFACE', 'BEFORE', 'AFTER'],
              ...shown.map((change) => [change.decision_id, change.at.replace(/\.\d+Z$/, 'Z'), change.agent, change.surface, change.verdict_before, change.verdict_after]),
            ]),
          );
          if (result.changes.length > shown.length) lines.push(`... and ${result.changes.length - shown.length} more (--json lists them all)`);
        }
        process.stdout.write(`${lines.join('\n')}\n`);
      }
      if (options.maxChanges !== undefined && result.changed > options.maxChanges) {
        process.stderr.write(`parapet: ${result.changed} decisions change verdict, more than --max-changes ${options.maxChanges}\n`);
        process.exitCode = 1;
      }
    },
  );

  withConnectionOptions(
    withScopeOptions(
      policy
        .command('push')
        .description('save the policy in a file as its next version (opens a change proposal; nothing goes live)')
        .argument('<file>', 'policy YAML file')
        .option('--notes <text>', 'what changed and why')
        .option('--mode <mode>', `mode of the version: one of ${MODES.join(', ')}`, oneOf(MODES)),
    ).option('--json', 'print the API answer as JSON'),
  ).action(async (file: string, options: ConnectionOptions & ScopeOptions & { notes?: string; mode?: string; json?: boolean }, command: Command) => {
    const binding = scopeBinding(options, command);
    const body = {
      body: readPolicyFile(file),
      ...(options.notes === undefined ? {} : { notes: options.notes }),
      ...(options.mode === undefined ? {} : { mode: options.mode }),
      ...binding,
    };
    const saved = await clientFor(options).json<SavedVersion>('POST', '/api/policies', body);
    if (options.json) {
      writeJson(saved);
      return;
    }
    process.stdout.write(
      [
        `saved ${saved.key} version ${saved.version} (${saved.status})`,
        `proposal ${saved.proposal_id}: ${saved.approvals_needed} approval${saved.approvals_needed === 1 ? '' : 's'} needed`,
        `loosening: ${saved.loosening ? 'yes' : 'no'}`,
        `lint: ${saved.lint.passed ? 'passed' : 'failed'} (${countsText(saved.lint.counts)})`,
        `simulation: ${saved.simulation.examined} decisions examined, ${saved.simulation.changed} changed (${transitionsText(saved.simulation.transitions)})`,
      ].join('\n') + '\n',
    );
  });

  withConnectionOptions(
    withScopeOptions(
      policy
        .command('mode')
        .description("set a policy's mode and scope; with --version, make that saved version live")
        .argument('<key>', 'policy key')
        .argument('<mode>', `one of ${MODES.join(', ')}`, oneOf(MODES))
        .option('--version <n>', 'make this saved version live', wholeNumber(1)),
    ).option('--json', 'print the API answer as JSON'),
  ).action(async (key: string, mode: string, options: ConnectionOptions & ScopeOptions & { version?: number; json?: boolean }, command: Command) => {
    const body = { mode, ...(options.version === undefined ? {} : { version: options.version }), ...scopeBinding(options, command) };
    const summary = await clientFor(options).json<PolicySummary>('POST', `/api/policies/${encodeURIComponent(key)}/mode`, body);
    if (options.json) {
      writeJson(summary);
      return;
    }
    const scope = summary.level === 'org' ? 'org' : `${summary.level} ${summary.scope_id}`;
    process.stdout.write(`${summary.key}: ${summary.mode}, live version ${summary.version ?? 'none'}, ${scope}, ${summary.compose}\n`);
  });

  withConnectionOptions(
    policy
      .command('canary')
      .description("a policy's canary: start, advance (exit 2 when it rolled back), rollback, status")
      .argument('<key>', 'policy key')
      .argument('<action>', `one of ${CANARY_ACTIONS.join(', ')}`, oneOf(CANARY_ACTIONS))
      .option('--candidate <n>', 'start: the saved version to canary', wholeNumber(1))
      .option('--steps <list>', 'start: cohort percentages, such as 5,25,50,100', canarySteps)
      .option('--max-delta <x>', 'start: roll back when the candidate blocks this much more (0-1)', fraction)
      .option('--max-drop <x>', 'start: roll back when the candidate blocks this much less (0-1)', fraction)
      .option('--min-dwell <seconds>', 'start: least time at each step (0-2592000 s)', wholeNumber(0, 30 * 86_400))
      .option('--min-sample <n>', 'start: least calls in each cohort before judging', wholeNumber(1, 10_000_000))
      .option('--json', 'print the API answer as JSON'),
  ).action(
    async (
      key: string,
      action: string,
      options: ConnectionOptions & { candidate?: number; steps?: number[]; maxDelta?: number; maxDrop?: number; minDwell?: number; minSample?: number; json?: boolean },
      command: Command,
    ) => {
      const startOnly = (['candidate', 'steps', 'maxDelta', 'maxDrop', 'minDwell', 'minSample'] as const).filter((name) => options[name] !== undefined);
      if (action !== 'start' && startOnly.length > 0) command.error(`error: ${startOnly.map((name) => `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')} only go with start`);
      if (action === 'start' && options.candidate === undefined) command.error("error: start needs --candidate <n> (the saved version to canary)");
      const client = clientFor(options);
      const base = `/api/policies/${encodeURIComponent(key)}/canary`;
      let canary: Canary;
      if (action === 'status') canary = await client.json<Canary>('GET', base);
      else if (action === 'start') {
        canary = await client.json<Canary>('POST', `${base}/start`, {
          candidate_version: options.candidate,
          ...(options.steps === undefined ? {} : { steps: options.steps }),
          ...(options.maxDelta === undefined ? {} : { max_block_rate_delta: options.maxDelta }),
          ...(options.maxDrop === undefined ? {} : { max_block_rate_drop: options.maxDrop }),
          ...(options.minDwell === undefined ? {} : { min_dwell_seconds: options.minDwell }),
          ...(options.minSample === undefined ? {} : { min_sample: options.minSample }),
        });
      } else canary = await client.json<Canary>('POST', `${base}/${action}`);
      if (options.json) writeJson(canary);
      else process.stdout.write(`${canaryText(canary)}\n`);
      // A pipeline that advances the canary must stop when the check rolled it back.
      if (action === 'advance' && canary.last_check?.outcome === 'rolled_back') process.exitCode = 2;
    },
  );
}
