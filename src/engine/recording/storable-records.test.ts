// What one agent sends can never cost another agent its record: text the database would refuse
// (NUL on PostgreSQL, lone surrogates on both) is stored as U+FFFD, the same on both databases, and
// every answered decision is recorded with its findings.
import { describe, expect, it } from 'vitest';
import { DIALECTS, withGateway } from '../../../test/helpers/gateway.js';

const CALLS = 1000;
/** Which calls carry a NUL, and where. */
const NUL_FIELDS = ['content', 'session_id', 'environment', 'trace_id'] as const;
const nulField = (index: number): (typeof NUL_FIELDS)[number] | undefined => (index % 100 === 7 ? NUL_FIELDS[(index / 100) % NUL_FIELDS.length | 0] : undefined);

describe.each(DIALECTS)('records with text the database refuses (%s)', (dialect) => {
  const ctx = withGateway({ dialect });

  it('records every decision of 1,000 guard calls when 10 of them carry NUL, storing it as U+FFFD', async () => {
    const ids: string[] = [];
    const withNul = new Map<string, (typeof NUL_FIELDS)[number]>();
    for (let start = 0; start < CALLS; start += 25) {
      await Promise.all(
        Array.from({ length: 25 }, async (_, offset) => {
          const index = start + offset;
          const field = nulField(index);
          const body: Record<string, string> = {
            // One agent per call: each call raises its own shadow_agent finding naming its decision.
            agent: `nul-neighbour-${index}`,
            content: `Summarise ticket ${index} for the team.`,
            session_id: `session-${index}`,
            environment: 'staging',
            trace_id: `trace-${index}`,
          };
          if (field !== undefined) body[field] = `before\u0000after ${index}`;
          const response = await ctx.gateway.request('/v1/guard/input', { method: 'POST', json: body });
          expect(response.status).toBe(200);
          const { decision_id } = (await response.json()) as { decision_id: string };
          ids[index] = decision_id;
          if (field !== undefined) withNul.set(decision_id, field);
        }),
      );
    }
    expect(withNul.size).toBe(10);
    await ctx.gateway.app.services.recorder.flush();
    const { db } = ctx.gateway.store;
    const stored = new Map<string, Record<string, unknown>>();
    for (let index = 0; index < ids.length; index += 200) {
      const rows = await db.selectFrom('traces').selectAll().where('id', 'in', ids.slice(index, index + 200)).execute();
      for (const row of rows) stored.set(row.id, row);
    }
    expect(ids.filter((id) => !stored.has(id))).toEqual([]);
    for (const [id, field] of withNul) {
      const index = ids.indexOf(id);
      expect(stored.get(id)?.[field]).toBe(`before\uFFFDafter ${index}`);
    }
    const findings = await db
      .selectFrom('findings')
      .select(['decision_id'])
      .where('type', '=', 'shadow_agent')
      .where('title', 'like', '%nul-neighbour-%')
      .execute();
    const findingDecisions = new Set(findings.map((finding) => finding.decision_id));
    expect(ids.filter((id) => !findingDecisions.has(id))).toEqual([]);
    expect(ctx.gateway.app.services.recorder.stats.failed).toBe(0);
  }, 120_000);
});
