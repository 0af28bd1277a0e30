// Runs the built `parapet` command as a real process, the way an operator does (npm test builds
// dist/ first).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(ROOT, 'bin/parapet.js');

/** Environment for a child: this machine's PATH and nothing of the test runner's PARAPET_* settings. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  return { ...env, ...extra };
}

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export async function runParapet(args: string[], env: Record<string, string>, cwd: string): Promise<CommandResult> {
  const child = spawn(process.execPath, [BIN, ...args], { env: childEnv(env), cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  output(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `parapet serve` on a free port and resolves once it listens. */
export async function startServerProcess(env: Record<string, string>, cwd: string, timeoutMs = 20_000): Promise<ServerProcess> {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: childEnv({ PORT: '0', ...env }),
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = once(child, 'exit') as Promise<[number | null]>;
  const url = await new Promise<string>((resolve, reject) => {
    // A process that never listened is not left running: nobody else holds it.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`gateway did not start in ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then(([code]) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code} before listening:\n${output}`));
    });
  });
  return {
    url,
    child,
    output: () => output,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const [code] = await exited;
      return code;
    },
  };
}
