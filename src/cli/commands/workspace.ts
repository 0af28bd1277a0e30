// parapet workspace plan|apply <file|dir> and parapet workspace export: the whole gateway
// configuration as code, through /api/workspace. A directory is sent as its YAML and JSON files
// (merged by the gateway). plan prints each change like infrastructure-as-code tools do; with
// --exit-code it exits 2 when there is something to change (drift in CI). apply exits 1 when a
// change failed. API errors are thrown as ApiError; index.ts prints them and exits 1.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { clientFor, withConnectionOptions, type ConnectionOptions } from '../client.js';
import type { ApiAnswer } from '../../api/answers.js';

/** The gateway's limits (src/areas/workspace/schemas.ts), checked here first for a clearer message. */
const MAX_SOURCE_CHARS = 2 * 1_048_576;
const MAX_FILES = 100;
const MAX_DIRECTORY_DEPTH = 4;
const DOCUMENT_FILE = /\.(ya?ml|json)$/;
/** Values longer than this are cut in the printed plan (--json has them whole). */
const SHOWN_VALUE = 120;
/** plan --exit-code: changes to make. */
const EXIT_CHANGES = 2;

type Plan = ApiAnswer<'/api/workspace/plan', 'post'>;

type ApplyResult = ApiAnswer<'/api/workspace/apply', 'post'>;

type Source = string | { files: Record<string, string> };

/** A file as it is, or a directory's document files (below it, at most four levels) by relative name. */
export function readSource(target: string): Source {
  const stat = statSync(target);
  if (!stat.isDirectory()) {
    if (stat.size > MAX_SOURCE_CHARS * 4) throw new Error(`${target} is larger than the gateway reads (${MAX_SOURCE_CHARS} characters)`);
    return readFileSync(target, 'utf8');
  }
  const files: Record<string, string> = {};
  const walk = (directory: string, prefix: string, depth: number) => {
    for (const entry of readdirSync(directory, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (entry.name.startsWith('.')) continue;
      const full = path.join(directory, entry.name);
      if (entry.isDirectory()) {
        if (depth < MAX_DIRECTORY_DEPTH) walk(full, `${prefix}${entry.name}/`, depth + 1);
        continue;
      }
      if (!DOCUMENT_FILE.test(entry.name)) continue;
      if (Object.keys(files).length >= MAX_FILES) throw new Error(`${target} holds more than ${MAX_FILES} document files; the gateway reads at most ${MAX_FILES}`);
      files[`${prefix}${entry.name}`] = readFileSync(full, 'utf8');
    }
  };
  walk(target, '', 0);
  if (Object.keys(files).length === 0) throw new Error(`${target} holds no .yaml, .yml or .json file`);
  return { files };
}

function shown(value: unknown): string {
  const text = value === undefined || value === null ? '(none)' : JSON.stringify(value);
  return text.length > SHOWN_VALUE ? `${text.slice(0, SHOWN_VALUE - 1)}…` : text;
}

const SIGNS = { create: '+', change: '~', delete: '-' } as const;

/** The plan as people read it: one line per resource, one per changed field, then the counts. */
export function formatPlan(plan: Plan): string {
  const lines: string[] = [];
  for (const change of plan.changes) {
    lines.push(`${SIGNS[change.action]} ${change.kind} ${change.key} (${change.action})`);
    if (change.action === 'change') for (const field of change.fields) lines.push(`    ${field.path}: ${shown(field.from)} → ${shown(field.to)}`);
    if (change.blocked !== undefined) lines.push(`    ! cannot be applied: ${change.blocked}`);
  }
  if (plan.changes.length === 0) lines.push('No changes: the gateway matches the workspace.');
  const { create, change, delete: deleted, blocked } = plan.counts;
  lines.push(`Plan: ${create} to create, ${change} to change, ${deleted} to delete (${blocked} blocked); ${plan.unchanged} unchanged.${plan.prune ? '' : ' prune: false, nothing is deleted.'}`);
  return `${lines.join('\n')}\n`;
}

export function formatApply(result: ApplyResult): string {
  const lines = result.applied.map((done) => `${SIGNS[done.action as keyof typeof SIGNS] ?? '*'} ${done.kind} ${done.key}: ${done.action}d`);
  for (const failed of result.failed) lines.push(`! ${failed.kind} ${failed.key} (${failed.action}) ${failed.attempted ? 'failed' : 'not applied'}: ${failed.reason}`);
  lines.push(`Applied ${result.counts.applied}, failed ${result.counts.failed}; ${result.unchanged} unchanged.`);
  return `${lines.join('\n')}\n`;
}

function sourceOrExit(target: string): Source | null {
  try {
    return readSource(target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    process.stderr.write(`parapet: ${code === 'ENOENT' ? `${target}: no such file or directory` : (error as Error).message}\n`);
    process.exitCode = 1;
    return null;
  }
}

export function registerWorkspaceCommands(program: Command): void {
  const workspace = program.command('workspace').description('the whole gateway configuration as code: plan, apply, export');

  withConnectionOptions(
    workspace
      .command('plan')
      .description('show what applying a workspace file or directory would create, change and delete (changes nothing)')
      .argument('<path>', 'a workspace document (.yaml, .json) or a directory of them')
      .option('--json', 'print the plan as JSON')
      .option('--exit-code', `exit ${EXIT_CHANGES} when there are changes (0 when none)`),
  ).action(async (target: string, options: ConnectionOptions & { json?: boolean; exitCode?: boolean }) => {
    const source = sourceOrExit(target);
    if (source === null) return;
    const plan = await clientFor(options).json<Plan>('POST', '/api/workspace/plan', { source });
    process.stdout.write(options.json === true ? `${JSON.stringify(plan, null, 2)}\n` : formatPlan(plan));
    if (options.exitCode === true && plan.changes.length > 0) process.exitCode = EXIT_CHANGES;
  });

  withConnectionOptions(
    workspace
      .command('apply')
      .description('apply a workspace file or directory through each area of the gateway (admin token); exits 1 when a change failed')
      .argument('<path>', 'a workspace document (.yaml, .json) or a directory of them')
      .option('--json', 'print the result as JSON'),
  ).action(async (target: string, options: ConnectionOptions & { json?: boolean }) => {
    const source = sourceOrExit(target);
    if (source === null) return;
    const result = await clientFor(options).json<ApplyResult>('POST', '/api/workspace/apply', { source });
    process.stdout.write(options.json === true ? `${JSON.stringify(result, null, 2)}\n` : formatApply(result));
    if (result.failed.length > 0) process.exitCode = 1;
  });

  withConnectionOptions(
    workspace
      .command('export')
      .description('print the whole configuration as one workspace document (no secrets: credentials by environment variable name)')
      .option('--json', 'JSON instead of YAML')
      .option('-o, --output <file>', 'write to this file instead of standard output'),
  ).action(async (options: ConnectionOptions & { json?: boolean; output?: string }) => {
    const response = await clientFor(options).request('GET', `/api/workspace/export?format=${options.json === true ? 'json' : 'yaml'}`);
    const text = options.json === true ? `${JSON.stringify(await response.json(), null, 2)}\n` : await response.text();
    if (options.output === undefined) process.stdout.write(text);
    else writeFileSync(options.output, text);
  });
}
