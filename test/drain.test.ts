// Drain on SIGTERM with the real process: GET /ready answers 503 at once (a load balancer stops
// sending), a slow proxied call in flight still completes with 200, the process exits 0, and the
// decisions of that call are in the database afterwards (the recorder flushed on close).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../src/infra/store/db.js';
import { FakeOpenAI } from './helpers/fake-openai.js';
import { startServerProcess } from './helpers/process.js';

const ADMIN = 'ppt_op_drain-test-admin-0123456789abcdef';
const CHUNKS = 10;
const CHUNK_DELAY_MS = 150;

describe('parapet serve drains on SIGTERM', () => {
  let upstream: FakeOpenAI;

  beforeAll(async () => {
    upstream = new FakeOpenAI();
    await upstream.start();
  });
  afterAll(async () => {
    await upstream?.close();
  });

  it('answers /ready 503 at once, finishes the call in flight, records it and exits 0', async () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'parapet-drain-'));
    const dataDir = path.join(cwd, 'data');
    const server = await startServerProcess(
      { PARAPET_DATA_DIR: dataDir, PARAPET_ADMIN_TOKEN: ADMIN, PARAPET_UPSTREAM_OPENAI_BASE_URL: upstream.url, PARAPET_UPSTREAM_OPENAI_API_KEY: 'sk-upstream' },
      cwd,
    );
    let exitCode: number | null | undefined;
    try {
      const ready = await fetch(`${server.url}/ready`);
      expect(ready.status).toBe(200);
      expect(((await ready.json()) as { status: string }).status).toBe('ready');

      const minted = await fetch(`${server.url}/api/tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'drain traffic', role: 'traffic' }),
      });
      expect(minted.status).toBe(201);
      const traffic = ((await minted.json()) as { token: string }).token;

      // About 1.5 s of streamed answer: still running when the signal arrives.
      upstream.script.push({ chunks: Array.from({ length: CHUNKS }, (_, index) => `part ${index} of a slow answer. `), delayMs: CHUNK_DELAY_MS });
      const call = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${traffic}`, 'content-type': 'application/json', 'x-parapet-agent': 'drain-bot' },
        body: JSON.stringify({ model: 'gpt-test', stream: true, messages: [{ role: 'user', content: 'Tell me slowly.' }] }),
      });
      expect(call.status).toBe(200);
      const body = call.text();

      const signalled = Date.now();
      const exited = server.stop();
      let notReady: Response | undefined;
      while (Date.now() - signalled < 1000) {
        notReady = await fetch(`${server.url}/ready`);
        if (notReady.status === 503) break;
      }
      expect(notReady?.status).toBe(503);
      expect(Date.now() - signalled).toBeLessThan(500);
      const problem = (await notReady!.json()) as Record<string, unknown>;
      expect(problem).toMatchObject({ status: 503, detail: 'not ready: draining' });
      // Liveness is not readiness: the process is alive and answers it while it drains.
      expect((await fetch(`${server.url}/health`)).status).toBe(200);

      const text = await body;
      expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
      expect(text).toContain(`part ${CHUNKS - 1} of a slow answer.`);
      exitCode = await exited;
      expect(exitCode).toBe(0);
      expect(Date.now() - signalled).toBeGreaterThanOrEqual(CHUNKS * CHUNK_DELAY_MS * 0.5);
    } finally {
      if (exitCode === undefined) await server.stop();
    }

    const store = Store.open({ databaseUrl: null, dataDir });
    try {
      const decisions = await store.db.selectFrom('traces').select(['surface', 'verdict']).where('agent', '=', 'drain-bot').execute();
      expect(decisions.map((row) => row.surface).sort()).toEqual(['input', 'output']);
    } finally {
      await store.close();
    }
  });
});
