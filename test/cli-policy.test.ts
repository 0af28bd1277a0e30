// `parapet policy validate|lint|simulate|push|mode|canary` as CI runs them: the built command
// against a gateway process, connected through PARAPET_URL and PARAPET_TOKEN, with the exit codes
// a pipeline depends on.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from './helpers/gateway.js';
import { createTestDatabase, type TestDatabase } from './helpers/postgres.js';
import { runParapet, startServerProcess, type ServerProcess } from './helpers/process.js';

const ADMIN_TOKEN = 'ppt_op_cli-policy-admin-token-0123456789ab';

const STRICT_EMAIL = `key: no-email-input
mode: enforce
description: Blocks e-mail addresses in the input.
rules:
  - id: pii.block_email_input
    when: { surface: input, entity: PII.EMAIL, min_score: 0.5 }
    effect: block
    message: No e-mail addresses in the input.
`;
const BAD_SURFACE = 'key: broken\nrules:\n  - id: pii.x\n    when: { surface: nowhere }\n    effect: block\n';
const BAD_YAML = 'key: x\nrules: [\n';
const CANARY_BASE = `key: canaried
mode: enforce
rules:
  - id: secrets.block_any
    when: { entity_prefix: SECRET., min_score: 0.9 }
    effect: block
    message: Secrets.
`;
const CANARY_CANDIDATE = `${CANARY_BASE}  - id: pii.block_email
    when: { surface: input, entity: PII.EMAIL, min_score: 0.5 }
    effect: block
    message: E-mail too.
`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(DIALECTS)('parapet policy (%s)', (dialect) => {
  let cwd: string;
  let database: TestDatabase | undefined;
  let server: ServerProcess;
  let cli: Record<string, string>;
  let traffic: string;
  const file = (name: string, text: string) => {
    const where = path.join(cwd, name);
    writeFileSync(where, text);
    return where;
  };
  const parapet = (args: string[], env: Record<string, string> = cli) => runParapet(['policy', ...args], env, cwd);

  const api = async (pathname: string, init: { method?: string; body?: unknown; token?: string } = {}): Promise<any> => {
    const response = await fetch(server.url + pathname, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${init.token ?? ADMIN_TOKEN}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    expect(response.status).toBeLessThan(300);
    return response.json();
  };
  const guardInput = async (agent: string, content: string, session: string): Promise<{ verdict: string }> =>
    api('/v1/guard/input', { method: 'POST', token: traffic, body: { agent, content, session_id: session } });

  beforeAll(async () => {
    cwd = mkdtempSync(path.join(tmpdir(), 'parapet-cli-policy-'));
    const env: Record<string, string> = { PARAPET_DATA_DIR: path.join(cwd, 'data'), PARAPET_ADMIN_TOKEN: ADMIN_TOKEN };
    if (dialect === 'postgres') {
      database = await createTestDatabase();
      env.DATABASE_URL = database.url;
    }
    server = await startServerProcess(env, cwd);
    cli = { PARAPET_URL: server.url, PARAPET_TOKEN: ADMIN_TOKEN, PARAPET_PROFILE_FILE: path.join(cwd, 'profiles.json') };
    traffic = (await api('/api/tokens', { method: 'POST', body: { name: 'app', role: 'traffic' } })).token as string;
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('validates files like a compiler: file:line:column: message, exit 1 when any is invalid', async () => {
    const good = file('good.yaml', STRICT_EMAIL);
    const valid = await parapet(['validate', good]);
    expect(valid.code).toBe(0);
    expect(valid.stdout).toMatch(new RegExp(`^${good}: ok: policy no-email-input, 1 rule; lint (passed|failed) \\(.*\\)\\n$`));

    const bad = file('bad.yaml', BAD_SURFACE);
    const syntax = file('syntax.yaml', BAD_YAML);
    const invalid = await parapet(['validate', good, bad, syntax]);
    expect(invalid.code).toBe(1);
    const lines = invalid.stdout.trim().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^${good}: ok:`));
    expect(lines).toContain(`${bad}:4:22: /rules/0/when/surface: must be equal to one of the allowed values`);
    // A YAML syntax error points at its line too, on one line (the code excerpt is dropped).
    expect(lines.find((line) => line.startsWith(`${syntax}:`))).toMatch(new RegExp(`^${syntax}:3:1: .+[^:]$`));
    // Nothing was saved by validating.
    expect((await api('/api/policies')).items.map((item: { key: string }) => item.key)).not.toContain('no-email-input');

    const missing = await parapet(['validate', path.join(cwd, 'nope.yaml'), good]);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain(`${path.join(cwd, 'nope.yaml')}: cannot read: no such file\n`);
    expect(missing.stdout).toContain(`${good}: ok:`);

    const empty = await parapet(['validate', file('empty.yaml', '\n')]);
    expect(empty.code).toBe(1);
    expect(empty.stdout).toContain('empty.yaml:1:1: the file is empty');

    // Larger than the API takes (256 KB): that file fails, the others are still checked.
    const huge = file('huge.yaml', `${STRICT_EMAIL}# ${'x'.repeat(270_000)}\n`);
    const tooLarge = await parapet(['validate', huge, good]);
    expect(tooLarge.code).toBe(1);
    expect(tooLarge.stdout).toContain(`${huge}: HTTP 400: `);
    expect(tooLarge.stdout).toContain(`${good}: ok:`);

    const noFiles = await parapet(['validate']);
    expect(noFiles.code).not.toBe(0);
    expect(noFiles.stderr).toContain("missing required argument 'file'");
  });

  it('--strict also fails a valid file when the lint of its set does not pass', async () => {
    const good = file('good.yaml', STRICT_EMAIL);
    expect((await parapet(['validate', '--strict', good])).code).toBe(0);
    // Taint is at most 1, so taint_exceeds 1 never holds: valid, but the lint fails it (high).
    const dead = file('dead.yaml', 'key: dead-rule\nrules:\n  - id: taint.never\n    when: { surface: input, taint_exceeds: 1 }\n    effect: block\n');
    const lenient = await parapet(['validate', dead]);
    expect(lenient.code).toBe(0);
    expect(lenient.stdout).toMatch(new RegExp(`^${dead}: ok: policy dead-rule, 1 rule; lint failed \\(.*\\d+ high.*\\)$`, 'm'));
    const strict = await parapet(['validate', '--strict', good, dead]);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain(`${good}: ok:`);
    expect(strict.stdout).toMatch(new RegExp(`^${dead}: lint high never_fires: dead-rule/taint.never: .+$`, 'm'));
  });

  it('lints the live set: a table of findings, a summary, exit 1 only when it does not pass', async () => {
    const report = await api('/api/policies/lint');
    const lint = await parapet(['lint']);
    expect(lint.code).toBe(report.passed ? 0 : 1);
    expect(lint.stdout).toMatch(new RegExp(`^lint ${report.passed ? 'passed' : 'failed'}: .+$`, 'm'));
    if (report.findings.length > 0) expect(lint.stdout.split('\n')[0]).toMatch(/^SEVERITY\s+CODE\s+POLICY\s+RULE\s+MESSAGE$/);
    const json = await parapet(['lint', '--json']);
    expect(json.code).toBe(lint.code);
    expect(JSON.parse(json.stdout)).toEqual(report);
    // On a fresh gateway the shipped packs lint clean.
    expect(lint.code).toBe(0);
  });

  it('simulates a stricter candidate and trips --max-changes with exit 1', async () => {
    for (let index = 0; index < 6; index += 1) {
      await guardInput('sim-agent', index % 2 === 0 ? `contact ${index}: sim${index}@example.org` : `plain request number ${index}`, `sim-${index}`);
    }
    const candidate = STRICT_EMAIL.replace('no-email-input', 'sim-candidate');
    // Recording is asynchronous in the server process: wait until the three e-mails are replayable.
    let changed = 0;
    for (let attempt = 0; attempt < 100 && changed < 3; attempt += 1) {
      changed = (await api('/api/policies/simulate', { method: 'POST', body: { body: candidate, agent: 'sim-agent' } })).changed as number;
      if (changed < 3) await sleep(100);
    }
    expect(changed).toBe(3);

    const candidateFile = file('sim.yaml', candidate);
    const tripped = await parapet(['simulate', candidateFile, '--agent', 'sim-agent', '--since-days', '1', '--max-changes', '1']);
    expect(tripped.code).toBe(1);
    expect(tripped.stderr).toContain('3 decisions change verdict, more than --max-changes 1');
    expect(tripped.stdout).toMatch(/^policy sim-candidate: 6 decisions examined since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/m);
    expect(tripped.stdout).toContain('changed: 3 verdicts');
    expect(tripped.stdout).toContain('transitions: allow->block 3');
    expect(tripped.stdout).toMatch(/^DECISION\s+AT\s+AGENT\s+SURFACE\s+BEFORE\s+AFTER$/m);
    expect(tripped.stdout.split('\n').filter((line) => /^\S+\s+\S+\s+sim-agent\s+input\s+allow\s+block$/.test(line))).toHaveLength(3);

    const within = await parapet(['simulate', candidateFile, '--agent', 'sim-agent', '--max-changes', '3', '--persist', '--json']);
    expect(within.code).toBe(0);
    const result = JSON.parse(within.stdout);
    expect(result).toMatchObject({ policy: 'sim-candidate', changed: 3, simulation_id: expect.stringMatching(/^sim_/) });
    expect(result.changes.every((change: { agent: string }) => change.agent === 'sim-agent')).toBe(true);

    const unguarded = await parapet(['simulate', candidateFile, '--agent', 'sim-agent', '--limit', '2']);
    expect(unguarded.code).toBe(0);
    expect(unguarded.stdout).toContain('2 decisions examined');

    const badLimit = await parapet(['simulate', candidateFile, '--limit', '0']);
    expect(badLimit.code).not.toBe(0);
    expect(badLimit.stderr).toContain('a whole number from 1 to 50000');
    const badGuard = await parapet(['simulate', candidateFile, '--max-changes', 'many']);
    expect(badGuard.code).not.toBe(0);
    expect(badGuard.stderr).toContain('a whole number, 0 or more');
    const missing = await parapet(['simulate', path.join(cwd, 'absent.yaml')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`cannot read policy file ${path.join(cwd, 'absent.yaml')}: no such file`);
    const invalid = await parapet(['simulate', file('bad.yaml', BAD_SURFACE)]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('HTTP 400');
  }, 60_000);

  it('pushes a file as a pending version, then mode --version makes it live', async () => {
    const good = file('good.yaml', STRICT_EMAIL);
    const pushed = await parapet(['push', good, '--notes', 'first cut']);
    expect(pushed.code).toBe(0);
    const lines = pushed.stdout.trim().split('\n');
    expect(lines[0]).toBe('saved no-email-input version 1 (pending)');
    expect(lines[1]).toMatch(/^proposal \S+: 1 approval needed$/);
    expect(lines[2]).toBe('loosening: no');
    expect(lines[3]).toMatch(/^lint: (passed|failed) \(.*\)$/);
    expect(lines[4]).toMatch(/^simulation: \d+ decisions examined, \d+ changed \(.*\)$/);
    // Saving changes nothing that is enforced.
    expect(await guardInput('push-agent', 'mail me at jo@example.com', 'p-1')).toMatchObject({ verdict: 'allow' });

    const second = await parapet(['push', good, '--mode', 'enforce', '--json']);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ key: 'no-email-input', version: 2, status: 'pending', loosening: false, proposal_id: expect.any(String) });

    const live = await parapet(['mode', 'no-email-input', 'enforce', '--version', '1']);
    expect(live.code).toBe(0);
    expect(live.stdout).toBe('no-email-input: enforce, live version 1, org, merge\n');
    expect(await guardInput('push-agent', 'mail me at jo@example.com', 'p-2')).toMatchObject({ verdict: 'block' });
    expect((await api('/api/policies/no-email-input')).pending_versions).toEqual([2]);

    const observe = await parapet(['mode', 'no-email-input', 'observe', '--json']);
    expect(observe.code).toBe(0);
    expect(JSON.parse(observe.stdout)).toMatchObject({ key: 'no-email-input', mode: 'observe', version: 1 });
    expect(await guardInput('push-agent', 'mail me at jo@example.com', 'p-3')).toMatchObject({ verdict: 'allow' });

    const badMode = await parapet(['mode', 'no-email-input', 'loud']);
    expect(badMode.code).not.toBe(0);
    expect(badMode.stderr).toContain('one of observe, enforce');
    const scopeAlone = await parapet(['push', good, '--scope-id', 'team-a']);
    expect(scopeAlone.code).not.toBe(0);
    expect(scopeAlone.stderr).toContain('--scope-id needs --level');
    const orgScope = await parapet(['mode', 'no-email-input', 'enforce', '--level', 'org', '--scope-id', 'x']);
    expect(orgScope.code).not.toBe(0);
    expect(orgScope.stderr).toContain('--level org takes no --scope-id');
    const unknownVersion = await parapet(['mode', 'no-email-input', 'enforce', '--version', '9']);
    expect(unknownVersion.code).toBe(1);
    expect(unknownVersion.stderr).toMatch(/^parapet: HTTP 4\d\d: /);
    const invalid = await parapet(['push', file('bad.yaml', BAD_SURFACE)]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('HTTP 400');
    expect(invalid.stderr).toContain('line 4');

    const viewer = (await api('/api/tokens', { method: 'POST', body: { name: 'reader', role: 'viewer' } })).token as string;
    const forbidden = await parapet(['push', good], { ...cli, PARAPET_TOKEN: viewer });
    expect(forbidden.code).toBe(1);
    expect(forbidden.stderr).toContain('HTTP 403');
    // The program's own --version still prints the gateway version before a subcommand.
    const version = await runParapet(['--version'], {}, cwd);
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+/);
  }, 60_000);

  it('runs a canary: start, status, advance (held, then exit 2 when it rolls back), rollback', async () => {
    await parapet(['push', file('canary-base.yaml', CANARY_BASE)]);
    expect((await parapet(['mode', 'canaried', 'enforce', '--version', '1'])).code).toBe(0);
    const candidateFile = file('canary-candidate.yaml', CANARY_CANDIDATE);
    expect((await parapet(['push', candidateFile])).stdout).toContain('saved canaried version 2 (pending)');

    const noCandidate = await parapet(['canary', 'canaried', 'start']);
    expect(noCandidate.code).not.toBe(0);
    expect(noCandidate.stderr).toContain('start needs --candidate');
    const stray = await parapet(['canary', 'canaried', 'advance', '--steps', '50,100']);
    expect(stray.code).not.toBe(0);
    expect(stray.stderr).toContain('--steps only go with start');
    const badSteps = await parapet(['canary', 'canaried', 'start', '--candidate', '2', '--steps', '50,200']);
    expect(badSteps.code).not.toBe(0);
    expect(badSteps.stderr).toContain('percentages from 1 to 100');
    const unordered = await parapet(['canary', 'canaried', 'start', '--candidate', '2', '--steps', '50,25']);
    expect(unordered.code).not.toBe(0);
    expect(unordered.stderr).toContain('in increasing order');
    const badDelta = await parapet(['canary', 'canaried', 'start', '--candidate', '2', '--max-delta', '1.5']);
    expect(badDelta.code).not.toBe(0);
    expect(badDelta.stderr).toContain('a fraction from 0 to 1');
    const badAction = await parapet(['canary', 'canaried', 'promote']);
    expect(badAction.code).not.toBe(0);
    expect(badAction.stderr).toContain('one of start, advance, rollback, status');

    const started = await parapet(['canary', 'canaried', 'start', '--candidate', '2', '--steps', '50,100', '--max-delta', '0.1', '--min-sample', '5', '--min-dwell', '0']);
    expect(started.code).toBe(0);
    expect(started.stdout).toBe('canary of canaried: running at 50%, version 2 against 1, step 1 of 2 (50,100)\nlast check: none yet\n');
    const again = await parapet(['canary', 'canaried', 'start', '--candidate', '2']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('HTTP 409');

    // Too early to judge: held, and a pipeline goes on.
    const held = await parapet(['canary', 'canaried', 'advance']);
    expect(held.code).toBe(0);
    expect(held.stdout).toMatch(/^last check \S+: held: too few calls to compare/m);
    const status = await parapet(['canary', 'canaried', 'status', '--json']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ key: 'canaried', state: 'running', percent: 50, last_check: { outcome: 'held' } });

    // Every call carries an e-mail: the candidate cohort blocks them all, the baseline none.
    for (let index = 0; index < 40; index += 1) await guardInput('canary-agent', `reach me at user${index}@example.com`, `c-${index}`);
    // Recording is asynchronous: advance holds until both cohorts have their sample.
    let advanced = await parapet(['canary', 'canaried', 'advance']);
    for (let attempt = 0; attempt < 100 && advanced.code === 0 && advanced.stdout.includes(': held: '); attempt += 1) {
      await sleep(100);
      advanced = await parapet(['canary', 'canaried', 'advance']);
    }
    expect(advanced.code).toBe(2);
    expect(advanced.stdout).toMatch(/^canary of canaried: rolled_back, version 2 against 1/);
    expect(advanced.stdout).toMatch(/: rolled_back: the candidate blocks 100\.0% against 0\.0%/);
    expect(advanced.stdout).toMatch(/candidate \d+ calls, \d+ blocked \(100\.0%\); baseline \d+ calls, 0 blocked \(0\.0%\)/);
    const after = await parapet(['canary', 'canaried', 'advance']);
    expect(after.code).toBe(1);
    expect(after.stderr).toContain('HTTP 409: no canary of policy canaried is running');

    // An operator stops a second canary by hand.
    expect((await parapet(['canary', 'canaried', 'start', '--candidate', '2', '--min-dwell', '3600'])).code).toBe(0);
    const rolledBack = await parapet(['canary', 'canaried', 'rollback']);
    expect(rolledBack.code).toBe(0);
    expect(rolledBack.stdout).toMatch(/^canary of canaried: rolled_back, version 2 against 1/);
    const last = await parapet(['canary', 'canaried', 'status']);
    expect(last.code).toBe(0);
    expect(last.stdout).toMatch(/^canary of canaried: rolled_back/);
    expect((await api('/api/policies/canaried')).version).toBe(1);
  }, 90_000);

  it.each([['validate'], ['lint'], ['simulate'], ['push'], ['mode'], ['canary']])('prints help for policy %s', async (command) => {
    const help = await runParapet(['policy', command, '--help'], {}, cwd);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(`Usage: parapet policy ${command}`);
  });
});
