// `parapet eval gate` and `parapet eval run` as real processes against a real gateway (both
// databases): exit 1 on a planted regression, 0 without it, 2 when the gate cannot be asked; the
// printed table is what a CI log keeps. The CLI runs from source (tsx), so no build is needed.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, json, withGateway } from '../../../../test/helpers/gateway.js';
import { childEnv, ROOT, type CommandResult } from '../../../../test/helpers/process.js';
import { createGuardSuite, enforcedBaseline, regressedBaseline, type GuardSuite } from '../../../../test/helpers/eval-fixtures.js';

async function parapet(args: string[], env: Record<string, string>): Promise<CommandResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/index.ts'), ...args], { env: childEnv(env), cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

// Each test starts several CLI processes (a tsx start-up each): more time than the default.
const SLOW = 120_000;

describe.each(DIALECTS)('parapet eval gate (%s)', (dialect) => {
  // The in-process worker runs: `eval run --runner job --wait` waits for it.
  const ctx = withGateway({ dialect });
  let suite: GuardSuite;
  let baselineRunId: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    suite = await createGuardSuite(ctx.gateway, 'cli-gate');
    const baseline = await json(ctx.gateway.request('/api/eval/runs', { method: 'POST', json: { suite: suite.key, target: { type: 'guard', policy: 'baseline', mode: 'enforce' }, scorers: ['verdict'] } }));
    expect(baseline.status).toBe('completed');
    baselineRunId = baseline.id;
    env = { PARAPET_URL: ctx.gateway.url, PARAPET_TOKEN: ctx.gateway.adminToken, PARAPET_PROFILE_FILE: path.join(ROOT, 'no-such-profiles.json') };
  }, SLOW);

  it('exits 1 on a planted regression and prints the table, the regressions and the reasons', async () => {
    const target = JSON.stringify({ type: 'guard', candidate: regressedBaseline() });
    const result = await parapet(['eval', 'gate', '--suite', suite.key, '--target', target, '--scorer', 'verdict', '--baseline', baselineRunId], env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^SCORER\s+PASS RATE\s+THRESHOLD\s+OK$/m);
    expect(result.stdout).toMatch(/^verdict\s+50\.0%\s+-\s+ok$/m);
    expect(result.stdout).toMatch(/^\(all scorers\)\s+50\.0%\s+100\.0%\s+FAIL$/m);
    expect(result.stdout).toMatch(/15 regressed, 0 improved; exact McNemar p = [0-9.e-]+ \(significant\)/);
    for (const id of suite.injectionIds) expect(result.stdout).toContain(`regressed: ${id}`);
    expect(result.stdout).toMatch(/- pass rate 50\.0% is below min_pass_rate 100\.0%/);
    expect(result.stdout).toMatch(/^FAILED: run run_\w+$/m);
  }, SLOW);

  it('exits 0 without the regression', async () => {
    const target = JSON.stringify({ type: 'guard', candidate: enforcedBaseline() });
    const result = await parapet(['eval', 'gate', '--suite', suite.key, '--target', target, '--scorer', 'verdict', '--baseline', baselineRunId], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^verdict\s+100\.0%\s+-\s+ok$/m);
    expect(result.stdout).toMatch(/0 regressed, 0 improved/);
    expect(result.stdout).toMatch(/^PASSED: run run_\w+$/m);
    expect(result.stdout).not.toMatch(/reasons:/);
  }, SLOW);

  it('gates on per-scorer thresholds, and prints JSON when asked', async () => {
    const target = JSON.stringify({ type: 'guard', candidate: regressedBaseline() });
    const loose = await parapet(['eval', 'gate', '--suite', suite.key, '--target', target, '--scorer', 'verdict', '--threshold', 'verdict=0.5', '--json'], env);
    expect(loose.code).toBe(0);
    expect(JSON.parse(loose.stdout)).toMatchObject({ passed: true, pass_rate: 0.5, min_pass_rate: null, scorers: [{ scorer: 'verdict', threshold: 0.5, passed: true }] });
    const strict = await parapet(['eval', 'gate', '--suite', suite.key, '--target', target, '--scorer', 'verdict', '--threshold', 'verdict=0.9'], env);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/^verdict\s+50\.0%\s+90\.0%\s+FAIL$/m);
    // A completed run gated again: the same verdict, no new run.
    const reused = await parapet(['eval', 'gate', '--suite', suite.key, '--run', baselineRunId], env);
    expect(reused.code).toBe(0);
    expect(reused.stdout).toContain(`PASSED: run ${baselineRunId}`);
  }, SLOW);

  it('exits 2 when the gate cannot be asked', async () => {
    const usage = [
      ['eval', 'gate'],
      ['eval', 'gate', '--suite', suite.key, '--threshold', 'verdict=2'],
      ['eval', 'gate', '--suite', suite.key, '--target', 'not json'],
      ['eval', 'gate', '--suite', suite.key, '--min-pass-rate', 'most'],
    ];
    for (const args of usage) {
      const result = await parapet(args, env);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).not.toBe('');
    }
    const unknown = await parapet(['eval', 'gate', '--suite', 'no-such-suite'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/HTTP 404/);
    const refused = await parapet(['eval', 'gate', '--suite', suite.key, '--scorer', 'verdict', '--threshold', 'exact=0.5'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/HTTP 422/);
    const unreachable = await parapet(['eval', 'gate', '--suite', suite.key], { ...env, PARAPET_URL: 'http://127.0.0.1:9' });
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr).toMatch(/^parapet: /);
  }, SLOW);

  it('eval run starts a run; --wait waits for a job run to finish', async () => {
    const inline = await parapet(['eval', 'run', '--suite', suite.key, '--target', '{"type":"guard","policy":"baseline","mode":"enforce"}', '--scorer', 'verdict', '--baseline', baselineRunId], env);
    expect(inline.code).toBe(0);
    expect(inline.stdout).toMatch(/^run_\w+ completed \(30 cases, pass rate 100\.0%\)$/m);
    expect(inline.stdout).toMatch(/0 regressed, 0 improved/);
    const job = await parapet(['eval', 'run', '--suite', suite.key, '--scorer', 'verdict', '--runner', 'job', '--wait', '--json'], env);
    expect(job.code).toBe(0);
    const run = JSON.parse(job.stdout);
    expect(run).toMatchObject({ status: 'completed', runner: 'job', total: 30, done: 30 });
  }, SLOW);
});
