// `parapet workspace export|plan|apply` as real processes against a real gateway (both databases):
// export prints YAML (or writes -o FILE), plan prints each change and, with --exit-code, exits 2
// when there is one; apply applies and exits 1 when a change failed; a bad document exits 1 with
// the gateway's reason. The CLI runs from source (tsx), so no build is needed.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { DIALECTS, json, withGateway } from '../../../test/helpers/gateway.js';
import { childEnv, ROOT, type CommandResult } from '../../../test/helpers/process.js';

async function parapet(args: string[], env: Record<string, string>): Promise<CommandResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/index.ts'), ...args], { env: childEnv(env), cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

// Each test starts CLI processes (a tsx start-up each): more time than the default.
const SLOW = 120_000;

describe.each(DIALECTS)('parapet workspace (%s)', (dialect) => {
  const ctx = withGateway({ dialect });
  let env: Record<string, string>;
  let dir: string;

  beforeAll(async () => {
    const { gateway } = ctx;
    for (const [route, body] of [
      ['/api/agents', { slug: 'triage-bot', name: 'Triage bot', purpose: 'Sorts incoming tickets', owner_team: 'support' }],
      ['/api/tools', { key: 'close_ticket', impact: 'medium' }],
      ['/api/agents/triage-bot/access', { tool_key: 'close_ticket', requires_approval: true }],
      ['/api/custom-rules', { key: 'no-codenames', name: 'No code names', entries: ['project falcon'] }],
    ] as const) {
      expect((await gateway.request(route, { method: 'POST', json: body })).status).toBeLessThan(300);
    }
    env = { PARAPET_URL: gateway.url, PARAPET_TOKEN: gateway.adminToken, PARAPET_PROFILE_FILE: path.join(ROOT, 'no-such-profiles.json') };
    dir = mkdtempSync(path.join(tmpdir(), 'parapet-workspace-'));
  }, SLOW);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('exports YAML to standard output or a file, and plans it back with no change', async () => {
    const printed = await parapet(['workspace', 'export'], env);
    expect(printed.stderr).toBe('');
    expect(printed.code).toBe(0);
    const document = parse(printed.stdout);
    expect(document).toMatchObject({ apiVersion: 'parapet/v1', kind: 'Workspace', agents: [{ slug: 'triage-bot', purpose: 'Sorts incoming tickets' }], grants: [{ agent: 'triage-bot', tool_key: 'close_ticket', requires_approval: true }] });
    const file = path.join(dir, 'workspace.yaml');
    expect((await parapet(['workspace', 'export', '-o', file], env)).code).toBe(0);
    expect(parse(readFileSync(file, 'utf8'))).toEqual(document);
    const plan = await parapet(['workspace', 'plan', file, '--exit-code'], env);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(/^No changes: the gateway matches the workspace\.$/m);
    expect(plan.stdout).toMatch(/^Plan: 0 to create, 0 to change, 0 to delete \(0 blocked\); \d+ unchanged\.$/m);
  }, SLOW);

  it('prints a planted change field by field, exits 2 with --exit-code, and applies it', async () => {
    const exported = parse((await parapet(['workspace', 'export'], env)).stdout);
    exported.agents[0].purpose = 'Sorts and answers incoming tickets';
    exported.custom_rules = [];
    const file = path.join(dir, 'edited.yaml');
    writeFileSync(file, stringify(exported));
    const plan = await parapet(['workspace', 'plan', file, '--exit-code'], env);
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('~ agents triage-bot (change)\n    purpose: "Sorts incoming tickets" → "Sorts and answers incoming tickets"\n');
    expect(plan.stdout).toContain('- custom_rules no-codenames (delete)\n');
    expect(plan.stdout).toMatch(/^Plan: 0 to create, 1 to change, 1 to delete \(0 blocked\); \d+ unchanged\.$/m);
    const asJson = JSON.parse((await parapet(['workspace', 'plan', file, '--json'], env)).stdout);
    expect(asJson.counts).toEqual({ create: 0, change: 1, delete: 1, blocked: 0 });
    const applied = await parapet(['workspace', 'apply', file], env);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('~ agents triage-bot: changed\n- custom_rules no-codenames: deleted\n');
    expect((await json(ctx.gateway.request('/api/agents/triage-bot'))).purpose).toBe('Sorts and answers incoming tickets');
    expect((await parapet(['workspace', 'plan', file, '--exit-code'], env)).code).toBe(0);
  }, SLOW);

  it('plans a directory of documents', async () => {
    const plan = await parapet(['workspace', 'plan', path.join(ROOT, 'examples', 'workspace'), '--json'], env);
    expect(plan.code).toBe(0);
    const answer = JSON.parse(plan.stdout);
    expect(answer.kinds).toContain('escalation_policies');
    expect(answer.changes).toContainEqual(expect.objectContaining({ kind: 'agents', key: 'billing-bot', action: 'create' }));
    // The directory lists agents: the gateway's own agent goes.
    expect(answer.changes).toContainEqual(expect.objectContaining({ kind: 'agents', key: 'triage-bot', action: 'delete' }));
  }, SLOW);

  it('exits 1 with the reason on a bad document, a missing path or a viewer applying', async () => {
    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(bad, 'apiVersion: parapet/v2\nkind: Workspace\n');
    const refused = await parapet(['workspace', 'plan', bad], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^parapet: HTTP 400: .*apiVersion must be parapet\/v1/);
    const missing = await parapet(['workspace', 'apply', path.join(dir, 'nowhere.yaml')], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no such file or directory/);
    const viewer = (await json(ctx.gateway.request('/api/tokens', { method: 'POST', json: { name: 'cli viewer', role: 'viewer' } }))).token;
    const forbidden = await parapet(['workspace', 'apply', path.join(dir, 'workspace.yaml')], { ...env, PARAPET_TOKEN: viewer });
    expect(forbidden.code).toBe(1);
    expect(forbidden.stderr).toMatch(/HTTP 403/);
  }, SLOW);
});
