// Held tool calls and their approvals, through two gateways on one database (SQLite file or
// PostgreSQL): at most one pending approval per agent, tool and canonical arguments, however many
// retries arrive and however concurrently; an approved call still passes exactly once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, json, startGateway, type TestGateway } from '../../../test/helpers/gateway.js';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/postgres.js';

describe.each(DIALECTS)('approvals of held tool calls, two gateways on one database (%s)', (dialect) => {
  let database: TestDatabase | undefined;
  let sharedDir: string | undefined;
  let first: TestGateway;
  let second: TestGateway;

  beforeAll(async () => {
    if (dialect === 'postgres') {
      database = await createTestDatabase();
      first = await startGateway({ dialect, databaseUrl: database.url });
      second = await startGateway({ dialect, databaseUrl: database.url });
    } else {
      sharedDir = mkdtempSync(path.join(tmpdir(), 'parapet-approvals-'));
      first = await startGateway({ dialect, overrides: { data_dir: sharedDir } });
      second = await startGateway({ dialect, overrides: { data_dir: sharedDir } });
    }
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
    await database?.drop();
    if (sharedDir !== undefined) rmSync(sharedDir, { recursive: true, force: true });
  });

  const gatewayOf = (index: number): TestGateway => (index % 2 === 0 ? first : second);

  async function toolCall(gateway: TestGateway, body: Record<string, unknown>): Promise<any> {
    const response = await gateway.request('/v1/guard/tool_call', { method: 'POST', json: body });
    expect(response.status).toBe(200);
    return response.json();
  }

  /** An agent whose tool needs approval, known to both gateways. */
  async function agentWithApprovalGrant(slug: string, tool: string): Promise<void> {
    expect((await first.request('/api/agents', { method: 'POST', json: { slug, owner_email: 'o@example.com', declared_tools: [tool] } })).status).toBe(201);
    expect((await first.request(`/api/agents/${slug}/access`, { method: 'POST', json: { tool_key: tool, requires_approval: true } })).status).toBe(201);
    // Retrying one call is what these tests do: the loop rule must not stop the retries first.
    expect((await first.request(`/api/agents/${slug}/protection`, { method: 'POST', json: { protections: { loop_threshold: 100_000 } } })).status).toBe(200);
    // The other gateway reloads the registry within half a second of a change.
    const known = (gateway: TestGateway): boolean => {
      const facts = gateway.app.services.directory.lookup(slug);
      return facts.grants.get(tool)?.requiresApproval === true && facts.limits.loopThreshold === 100_000;
    };
    const deadline = Date.now() + 10_000;
    while (!(known(first) && known(second)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(known(first) && known(second)).toBe(true);
  }

  const pendingOf = async (agent: string): Promise<string[]> =>
    (await first.store.db.selectFrom('approvals').select('id').where('agent', '=', agent).where('status', '=', 'pending').execute()).map((row) => row.id);

  it('opens one pending approval for 20 concurrent first calls of the same call, whatever the key order', async () => {
    await agentWithApprovalGrant('dedupe-first', 'wire_money');
    const decisions = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        toolCall(gatewayOf(index), {
          agent: 'dedupe-first',
          tool: 'wire_money',
          // Key order differs between callers; the canonical arguments do not.
          arguments: index % 3 === 0 ? { to: 'ACME', amount: 500 } : { amount: 500, to: 'ACME' },
        }),
      ),
    );
    expect(decisions.every((decision) => decision.verdict === 'escalate')).toBe(true);
    const ids = new Set(decisions.map((decision) => decision.approval_id));
    expect(ids.size).toBe(1);
    expect(await pendingOf('dedupe-first')).toEqual([...ids]);

    // Other arguments are another call: their own approval.
    const other = await toolCall(first, { agent: 'dedupe-first', tool: 'wire_money', arguments: { to: 'ACME', amount: 501 } });
    expect(ids.has(other.approval_id)).toBe(false);
    expect(await pendingOf('dedupe-first')).toHaveLength(2);
  });

  it('passes an approved call exactly once under 20 concurrent retries, then keeps at most one new pending approval over 79 retries of the used one', async () => {
    await agentWithApprovalGrant('dedupe-used', 'delete_repo');
    const call = { agent: 'dedupe-used', tool: 'delete_repo', arguments: { repo: 'legacy', force: true } };
    const held = await toolCall(first, call);
    expect(held.verdict).toBe('escalate');
    // A retry while it is pending (with or without its id) is held on the same approval.
    expect((await toolCall(second, call)).approval_id).toBe(held.approval_id);
    expect((await toolCall(second, { ...call, approval_id: held.approval_id })).approval_id).toBe(held.approval_id);
    expect((await first.request(`/api/approvals/${held.approval_id}/approve`, { method: 'POST', json: { rationale: 'cleanup' } })).status).toBe(200);

    const retries = await Promise.all(Array.from({ length: 20 }, (_, index) => toolCall(gatewayOf(index), { ...call, approval_id: held.approval_id })));
    expect(retries.filter((decision) => decision.verdict === 'allow')).toHaveLength(1);
    expect((await json(first.request(`/api/approvals/${held.approval_id}`))).status).toBe('used');

    // 79 retries of the used approval: 19 one after another, then 60 at once through both gateways.
    const later: any[] = [];
    for (let index = 0; index < 19; index += 1) later.push(await toolCall(gatewayOf(index), { ...call, approval_id: held.approval_id }));
    later.push(...(await Promise.all(Array.from({ length: 60 }, (_, index) => toolCall(gatewayOf(index), { ...call, approval_id: held.approval_id })))));
    expect(later).toHaveLength(79);
    expect(later.every((decision) => decision.verdict === 'escalate' && /already used/.test(decision.reason))).toBe(true);
    const pending = await pendingOf('dedupe-used');
    expect(pending.length).toBeLessThanOrEqual(1);
    // Every refused retry, the 19 concurrent losers included, names the one pending approval.
    const refused = [...retries.filter((decision) => decision.verdict !== 'allow'), ...later];
    expect(new Set(refused.map((decision) => decision.approval_id))).toEqual(new Set(pending));
    const all = await first.store.db.selectFrom('approvals').select('id').where('agent', '=', 'dedupe-used').execute();
    expect(all).toHaveLength(2);
  });

  it('opens a new approval once the pending one is denied or has lapsed', async () => {
    await agentWithApprovalGrant('dedupe-renew', 'refund');
    const call = { agent: 'dedupe-renew', tool: 'refund', arguments: { order: 'R-1' } };
    const held = await toolCall(first, call);
    expect((await second.request(`/api/approvals/${held.approval_id}/deny`, { method: 'POST', json: { rationale: 'no' } })).status).toBe(200);
    const again = await toolCall(second, call);
    expect(again.approval_id).not.toBe(held.approval_id);
    expect(await pendingOf('dedupe-renew')).toEqual([again.approval_id]);

    // 24 h later the pending approval has lapsed: the next call opens a fresh one.
    for (const gateway of [first, second]) gateway.clock.advance(25 * 3_600_000);
    try {
      const lapsed = await Promise.all(Array.from({ length: 6 }, (_, index) => toolCall(gatewayOf(index), call)));
      const ids = new Set(lapsed.map((decision) => decision.approval_id));
      expect(ids.size).toBe(1);
      expect(ids.has(again.approval_id)).toBe(false);
      expect((await json(first.request(`/api/approvals/${again.approval_id}`))).status).toBe('expired');
      expect((await json(first.request(`/api/approvals?status=pending`))).items.filter((item: any) => item.agent === 'dedupe-renew').map((item: any) => item.id)).toEqual([...ids]);
    } finally {
      for (const gateway of [first, second]) gateway.clock.advance(-25 * 3_600_000);
    }
  });
});
