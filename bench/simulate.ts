// `npm run bench`, simulation part: 1,000 decisions recorded through the guard route, then a
// stricter candidate replayed over them with POST /api/policies/simulate. Target (issue 7): under
// 2 s on this machine, and exactly the decisions whose verdict changes reported.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { runBench, runningChildren, startGateway, stopChild, temporaryDirs } from './lib.js';

const DECISIONS = 1000;
const TARGET_MS = 2000;
const CANDIDATE = `
key: bench-candidate
mode: enforce
rules:
  - id: pii.block_email_input
    when: { surface: input, entity: PII.EMAIL, min_score: 0.5 }
    effect: block
    message: No e-mail addresses in the input.
`;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'parapet-bench-simulate-'));
  temporaryDirs.add(dataDir);
  const adminToken = `ppt_op_bench_${randomBytes(20).toString('base64url')}`;
  const dispatcher = new Agent({ connections: 8 });
  const call = async (pathname: string, body: unknown): Promise<any> => {
    const response = await request(gateway.baseUrl + pathname, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      dispatcher,
    });
    const text = await response.body.text();
    if (response.statusCode >= 300) throw new Error(`${pathname}: ${response.statusCode} ${text.slice(0, 300)}`);
    return JSON.parse(text);
  };
  const gateway = await startGateway(dataDir, adminToken);
  let failed = false;
  try {
    const traffic = (await call('/api/tokens', { name: 'bench', role: 'traffic' })).token as string;
    const withEmail = new Set<string>();
    for (let start = 0; start < DECISIONS; start += 50) {
      await Promise.all(
        Array.from({ length: 50 }, async (_, offset) => {
          const index = start + offset;
          const email = index % 4 === 0;
          const response = await request(`${gateway.baseUrl}/v1/guard/input`, {
            method: 'POST',
            headers: { authorization: `Bearer ${traffic}`, 'content-type': 'application/json' },
            body: JSON.stringify({ agent: `bench-agent-${index % 10}`, content: email ? `Please write to person${index}@example.com today.` : `Summarise ticket ${index} for the team.` }),
            dispatcher,
          });
          const decision = (await response.body.json()) as { decision_id: string };
          if (email) withEmail.add(decision.decision_id);
        }),
      );
    }
    // Recording is batched: wait until every decision is stored.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const started = performance.now();
    const result = (await call('/api/policies/simulate', { body: CANDIDATE, limit: DECISIONS })) as { examined: number; changed: number; changes: Array<{ decision_id: string }>; ms: number };
    const wallMs = performance.now() - started;
    const changed = new Set(result.changes.map((change) => change.decision_id));
    const exact = changed.size === withEmail.size && [...withEmail].every((id) => changed.has(id));
    const pass = wallMs < TARGET_MS && exact && result.examined === DECISIONS;
    process.stdout.write(
      [
        '',
        `simulation: ${result.examined} recorded decisions replayed against a stricter candidate; ${new Date().toISOString()}`,
        `  request ${wallMs.toFixed(0)} ms (replay itself ${result.ms.toFixed(0)} ms), ${result.changed} changed, expected ${withEmail.size}: ${exact ? 'exactly those' : 'MISMATCH'}`,
        `${pass ? 'PASS' : 'FAIL'}: under ${TARGET_MS} ms and exact`,
        '',
      ].join('\n'),
    );
    failed = !pass;
  } finally {
    await dispatcher.close();
    await Promise.all([...runningChildren].map(stopChild));
    rmSync(dataDir, { recursive: true, force: true });
    temporaryDirs.delete(dataDir);
  }
  if (failed) process.exitCode = 1;
}

await runBench('simulation bench', main);
