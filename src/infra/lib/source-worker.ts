// Starts a worker thread on a module next to the caller, from compiled JavaScript (dist) or, under
// tsx (tests, `npm run bench` on sources), from its TypeScript source.
import { Worker } from 'node:worker_threads';

/**
 * `callerUrl` is the caller's import.meta.url and `name` the sibling module without extension:
 * the caller running from `.ts` means the sources run under tsx, and so must the worker.
 */
export function startSourceWorker(callerUrl: string, name: string, workerData: unknown): Worker {
  if (callerUrl.endsWith('.ts')) {
    const entry = new URL(`./${name}.ts`, callerUrl).href;
    // Node 20 does not apply `--import tsx` to a worker's entry module; register it first, then load.
    return new Worker(`import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`, {
      eval: true,
      workerData,
    });
  }
  return new Worker(new URL(`./${name}.js`, callerUrl), { workerData });
}

/** The URL of a module next to the caller, as the running code has it (`.ts` under tsx, `.js` compiled). */
export function siblingModule(callerUrl: string, name: string): string {
  return new URL(`./${name}.${callerUrl.endsWith('.ts') ? 'ts' : 'js'}`, callerUrl).href;
}
