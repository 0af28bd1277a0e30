// What the benchmarks share: child processes on 127.0.0.1 ports, the gateway started with a fresh
// SQLite data dir, tokens, percentiles and server CPU read from /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 5_000;
/** USER_HZ of /proc/<pid>/stat: 100 on every Linux this runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

export const benchDir = path.dirname(fileURLToPath(import.meta.url));
export const projectDir = path.dirname(benchDir);

export interface Child {
  name: string;
  process: ChildProcess;
  stderrTail: () => string;
}

export const runningChildren = new Set<Child>();
export const temporaryDirs = new Set<string>();

export function secondsFromEnv(name: string, fallback: number, minimum: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds < minimum) {
    throw new Error(`${name} must be a number of seconds >= ${minimum} (got ${JSON.stringify(raw)})`);
  }
  return seconds;
}

/** Asks the OS for a port that is free right now; the child binds it a moment later. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, HOST, () => {
      const address = probe.address();
      if (address === null || typeof address === 'string') {
        probe.close();
        reject(new Error('could not read the port of a probe socket'));
        return;
      }
      probe.close(() => resolve(address.port));
    });
  });
}

export function startChild(name: string, args: string[], env: NodeJS.ProcessEnv): Child {
  // stdout is discarded on purpose: the gateway logs a line per request, as it would to a log shipper.
  const child = spawn(process.execPath, args, { cwd: projectDir, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const started: Child = { name, process: child, stderrTail: () => stderr.trim() };
  runningChildren.add(started);
  child.once('exit', () => runningChildren.delete(started));
  return started;
}

export function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

export async function stopChild(child: Child): Promise<void> {
  if (hasExited(child.process)) return;
  const exited = new Promise<void>((resolve) => child.process.once('exit', () => resolve()));
  child.process.kill('SIGTERM');
  const timer = setTimeout(() => child.process.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

export async function waitUntilAnswering(child: Child, url: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (hasExited(child.process)) {
      const how = child.process.exitCode ?? child.process.signalCode;
      throw new Error(`${child.name} exited (${how}) before answering ${url}:\n${child.stderrTail()}`);
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const waited = `${READY_TIMEOUT_MS / 1000} s`;
  throw new Error(`${child.name} did not answer 200 on ${url} within ${waited}:\n${child.stderrTail()}`);
}

/** Variables the benchmark sets or removes itself, whatever the caller's shell holds. */
export const GATEWAY_ENV_SET_BY_BENCH = [
  'PORT',
  'HOST',
  'DATABASE_URL',
  'PARAPET_PORT',
  'PARAPET_HOST',
  'PARAPET_DATABASE_URL',
  'PARAPET_CONFIG',
  'PARAPET_DATA_DIR',
  'PARAPET_ADMIN_TOKEN',
];

/** PARAPET_* settings passed on from the caller's shell, shown so that a tuned run is not taken for a default one. */
export function gatewayOverridesFromEnv(): Record<string, string> {
  const overrides: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('PARAPET_') || value === undefined || value === '') continue;
    if (GATEWAY_ENV_SET_BY_BENCH.includes(name)) continue;
    overrides[name] = /TOKEN|KEY/.test(name) ? '[redacted]' : value;
  }
  return overrides;
}

export async function startGateway(dataDir: string, adminToken: string, extraEnv: Record<string, string> = {}): Promise<{ child: Child; baseUrl: string }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env };
  // Always the embedded SQLite store in a fresh data dir, and no parapet.yaml named from the shell.
  for (const name of GATEWAY_ENV_SET_BY_BENCH) delete env[name];
  Object.assign(env, {
    PORT: String(port),
    HOST,
    PARAPET_DATA_DIR: dataDir,
    PARAPET_ADMIN_TOKEN: adminToken,
    ...extraEnv,
  });
  const child = startChild('gateway', [path.join(projectDir, 'bin', 'parapet.js'), 'serve'], env);
  const baseUrl = `http://${HOST}:${port}`;
  await waitUntilAnswering(child, `${baseUrl}/health`);
  return { child, baseUrl };
}

export async function mintToken(baseUrl: string, adminToken: string, role: 'viewer' | 'traffic'): Promise<string> {
  const response = await fetch(`${baseUrl}/api/tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `bench ${role}`, role }),
  });
  const body = await response.text();
  if (response.status !== 201) throw new Error(`POST /api/tokens answered ${response.status}: ${body}`);
  const token: unknown = (JSON.parse(body) as { token?: unknown }).token;
  if (typeof token !== 'string' || token === '') throw new Error(`POST /api/tokens returned no token: ${body}`);
  return token;
}

export function percentile(sortedValues: ArrayLike<number>, fraction: number): number {
  if (sortedValues.length === 0) return Number.NaN;
  const rank = Math.min(sortedValues.length - 1, Math.ceil(fraction * sortedValues.length) - 1);
  return sortedValues[Math.max(0, rank)] ?? Number.NaN;
}

/**
 * User plus system CPU seconds of a process so far (Linux /proc; null elsewhere). Unlike requests
 * per second it does not depend on what else the shared machine runs, so it compares the cost of
 * two routes even on a noisy run.
 */
export function cpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start at the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime
    return ticks / CLOCK_TICKS_PER_SECOND;
  } catch {
    return null;
  }
}


/** On SIGINT/SIGTERM: stop every child and remove every temporary directory now. */
export function cleanUpNow(): void {
  for (const child of runningChildren) child.process.kill('SIGTERM');
  for (const dir of temporaryDirs) rmSync(dir, { recursive: true, force: true });
}

/**
 * Runs one benchmark part: children and temporary dirs are cleaned up on Ctrl-C or SIGTERM, and a
 * failure prints one line and sets a non-zero exit code (the next part still runs).
 */
export async function runBench(name: string, main: () => Promise<void>): Promise<void> {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      cleanUpNow();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  }
  try {
    await main();
  } catch (error) {
    process.stderr.write(`${name} failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
