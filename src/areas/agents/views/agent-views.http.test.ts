import { describe, expect, it } from 'vitest';
import { DIALECTS, json, withGateway, type TestGateway } from '../../../../test/helpers/gateway.js';
import { newId } from '../../../infra/lib/ids.js';
import { MAX_DELEGATION_DEPTH } from './lineage.js';
import { PREVIEW_MAX_ROWS } from './service.js';

const DAY_MS = 86_400_000;

/** Builders: registered agents through the API, message edges and decisions straight into their tables. */
function builders(gateway: () => TestGateway) {
  const daysAgo = (days: number) => new Date(gateway().clock.now().getTime() - days * DAY_MS).toISOString();
  return {
    async register(slug: string, body: Record<string, unknown> = { owner_email: `${slug}@example.com` }) {
      const response = await gateway().request('/api/agents', { method: 'POST', json: { slug, ...body } });
      expect(response.status).toBe(201);
      return json(response);
    },
    async pending(slug: string) {
      const now = new Date().toISOString();
      await gateway()
        .store.db.insertInto('agents')
        .values({
          id: newId('agt'),
          slug,
          name: slug,
          declared_models: '[]',
          declared_tools: '[]',
          data_classes: '[]',
          status: 'pending',
          protections: '{}',
          control: 'active',
          seen_models: '[]',
          seen_tools: '[]',
          created_by: 'traffic',
          created_at: now,
          updated_at: now,
        })
        .execute();
    },
    /** Sender → recipient messages; `recipient: null` rows are broadcasts, which are not delegation. */
    async messages(sender: string, recipient: string | null, count = 1, ageDays = 0) {
      for (let index = 0; index < count; index++) {
        const decisionId = newId('dec');
        await gateway()
          .store.db.insertInto('agent_messages')
          .values({
            id: newId('msg'),
            at: daysAgo(ageDays),
            sender,
            recipient,
            nonce: null,
            timestamp: null,
            signature_status: 'unsigned',
            verdict: 'allow',
            effective_verdict: 'allow',
            decision_id: decisionId,
            content_sha256: '0'.repeat(64),
            session_id: null,
          })
          .execute();
      }
    },
    async chain(...slugs: string[]) {
      for (let index = 0; index + 1 < slugs.length; index++) await this.messages(slugs[index]!, slugs[index + 1]!);
    },
    async trace(agent: string, fields: { surface?: string; verdict?: string; content: string | null; ageDays?: number }) {
      const id = newId('dec');
      await gateway()
        .store.db.insertInto('traces')
        .values({
          id,
          at: daysAgo(fields.ageDays ?? 0),
          agent,
          subject: `agent:${agent}`,
          surface: fields.surface ?? 'input',
          tool: null,
          verdict: fields.verdict ?? 'allow',
          effective_verdict: fields.verdict ?? 'allow',
          mode: 'enforce',
          rules: '[]',
          entities: '[]',
          degraded: '[]',
          detectors: '[]',
          latency_ms: 1,
          content_sha256: '0'.repeat(64),
          content_length: fields.content?.length ?? 0,
          content: fields.content,
          session_id: null,
          trace_id: null,
          environment: null,
        })
        .execute();
      return id;
    },
    async findings(type: string, subject: string) {
      await gateway().app.services.recorder.flush();
      return gateway().store.db.selectFrom('findings').selectAll().where('type', '=', type).where('subject', '=', subject).execute();
    },
    async viewerToken() {
      const response = await gateway().request('/api/tokens', { method: 'POST', json: { name: 'viewer', role: 'viewer' } });
      expect(response.status).toBe(201);
      return (await json(response)).token as string;
    },
  };
}

describe.each(DIALECTS)('agent lineage, posture and protections (%s)', (dialect) => {
  const ctx = withGateway({ dialect });
  const build = builders(() => ctx.gateway);
  const get = async (path: string, token?: string) => {
    const response = await ctx.gateway.request(path, token === undefined ? {} : { token });
    return { status: response.status, body: await json(response) };
  };
  const post = async (path: string, body: unknown, token?: string) => {
    const response = await ctx.gateway.request(path, { method: 'POST', json: body, ...(token === undefined ? {} : { token }) });
    return { status: response.status, type: response.headers.get('content-type'), body: await json(response) };
  };

  describe('GET /api/agents/{slug}/lineage', () => {
    it('answers chains upstream and downstream of the agent with edge counts, leaving out broadcasts and old messages', async () => {
      await build.register('ln-hub');
      await build.chain('ln-a', 'ln-hub', 'ln-c');
      await build.messages('ln-x', 'ln-hub', 3);
      await build.messages('ln-hub', null, 2);
      await build.messages('ln-old', 'ln-hub', 1, 31);

      const { status, body } = await get('/api/agents/ln-hub/lineage');
      expect(status).toBe(200);
      expect(body).toMatchObject({
        agent: 'ln-hub',
        depth: 5,
        upstream: [
          ['ln-a', 'ln-hub'],
          ['ln-x', 'ln-hub'],
        ],
        downstream: [['ln-hub', 'ln-c']],
        max_depth: 2,
        max_allowed_depth: MAX_DELEGATION_DEPTH,
        cycles: [],
        truncated: false,
      });
      expect(body.edges.map((edge: any) => [edge.from, edge.to, edge.messages])).toEqual([
        ['ln-a', 'ln-hub', 1],
        ['ln-hub', 'ln-c', 1],
        ['ln-x', 'ln-hub', 3],
      ]);
      expect(Date.parse(body.edges[0].last_at)).not.toBeNaN();
    });

    it('builds edges from messages checked at /v1/guard/agent_message', async () => {
      await build.register('gm-a');
      for (const [sender, recipient] of [['gm-a', 'gm-b'], ['gm-a', 'gm-b'], ['gm-b', 'gm-c']]) {
        const response = await ctx.gateway.request('/v1/guard/agent_message', { method: 'POST', json: { sender, recipient, content: 'please summarise the report' } });
        expect(response.status).toBe(200);
      }
      await ctx.gateway.app.services.messages.flush();
      const { body } = await get('/api/agents/gm-a/lineage');
      expect(body.downstream).toEqual([['gm-a', 'gm-b', 'gm-c']]);
      expect(body.edges.map((edge: any) => [edge.from, edge.to, edge.messages])).toEqual([
        ['gm-a', 'gm-b', 2],
        ['gm-b', 'gm-c', 1],
      ]);
    });

    it('walks at most `depth` hops each way and refuses a depth outside 1..10 (400)', async () => {
      await build.register('dp-1');
      await build.chain('dp-1', 'dp-2', 'dp-3', 'dp-4');
      expect((await get('/api/agents/dp-1/lineage?depth=2')).body).toMatchObject({ depth: 2, downstream: [['dp-1', 'dp-2', 'dp-3']], max_depth: 2 });
      expect((await get('/api/agents/dp-1/lineage?depth=1')).body).toMatchObject({ downstream: [['dp-1', 'dp-2']], max_depth: 1 });
      expect((await get('/api/agents/dp-1/lineage')).body).toMatchObject({ downstream: [['dp-1', 'dp-2', 'dp-3', 'dp-4']], max_depth: 3 });
      for (const depth of ['0', '11', 'deep']) {
        const { status, body } = await get(`/api/agents/dp-1/lineage?depth=${depth}`);
        expect(status).toBe(400);
        expect(body.errors[0].field).toContain('depth');
      }
      expect((await get('/api/agents/dp-nobody/lineage')).status).toBe(404);
    });

    it('reports a cycle and raises delegation_cycle once, with occurrences counted on every read', async () => {
      await build.register('cy-a');
      await build.chain('cy-a', 'cy-b', 'cy-c', 'cy-a');
      const first = await get('/api/agents/cy-a/lineage');
      expect(first.body.cycles).toEqual([['cy-a', 'cy-b', 'cy-c', 'cy-a']]);
      expect(first.body.downstream).toEqual([['cy-a', 'cy-b', 'cy-c']]);
      expect(first.body.upstream).toEqual([['cy-b', 'cy-c', 'cy-a']]);
      let findings = await build.findings('delegation_cycle', 'agent:cy-a');
      expect(findings).toHaveLength(1);
      expect(findings[0]).toMatchObject({ severity: 'high', agent: 'cy-a', occurrences: 1, status: 'open' });
      expect(JSON.parse(findings[0]!.evidence)).toMatchObject({ cycle: ['cy-a', 'cy-b', 'cy-c', 'cy-a'], agent: 'cy-a' });

      await get('/api/agents/cy-a/lineage');
      findings = await build.findings('delegation_cycle', 'agent:cy-a');
      expect(findings).toHaveLength(1);
      expect(findings[0]!.occurrences).toBe(2);
    });

    it(`raises delegation_depth for a chain deeper than ${MAX_DELEGATION_DEPTH} hops, under agent:None for an agent that is not approved`, async () => {
      await build.register('dd-0');
      await build.chain('dd-0', 'dd-1', 'dd-2', 'dd-3', 'dd-4', 'dd-5', 'dd-6');
      const { body } = await get('/api/agents/dd-0/lineage');
      expect(body.max_depth).toBe(5);
      expect(body.downstream).toEqual([['dd-0', 'dd-1', 'dd-2', 'dd-3', 'dd-4', 'dd-5']]);
      const findings = await build.findings('delegation_depth', 'agent:dd-0');
      expect(findings).toHaveLength(1);
      expect(findings[0]).toMatchObject({ severity: 'medium', agent: 'dd-0' });
      expect(JSON.parse(findings[0]!.evidence)).toMatchObject({ depth: 5, limit: MAX_DELEGATION_DEPTH });

      // Through the middle: two hops up and four down.
      await build.pending('dd-2');
      expect((await get('/api/agents/dd-2/lineage')).body).toMatchObject({ max_depth: 6, upstream: [['dd-0', 'dd-1', 'dd-2']] });
      const anonymous = await build.findings('delegation_depth', 'agent:None');
      expect(anonymous.filter((finding) => JSON.parse(finding.evidence).agent === 'dd-2')).toHaveLength(1);
      expect(anonymous[0]!.agent).toBeNull();

      // Within the limit: no finding.
      await build.register('dd-short');
      await build.chain('dd-short', 'dd-s1', 'dd-s2', 'dd-s3', 'dd-s4');
      expect((await get('/api/agents/dd-short/lineage')).body.max_depth).toBe(MAX_DELEGATION_DEPTH);
      expect(await build.findings('delegation_depth', 'agent:dd-short')).toEqual([]);
    });
  });

  describe('GET /api/agents/{slug}/posture', () => {
    it('scores a clean agent 100 (A) with no gaps', async () => {
      await build.register('ps-clean', { owner_email: 'owner@example.com', risk_tier: 'low' });
      const { status, body } = await get('/api/agents/ps-clean/posture');
      expect(status).toBe(200);
      expect(body).toEqual({
        agent: 'ps-clean',
        registered: true,
        status: 'approved',
        control: 'active',
        owner: 'owner@example.com',
        risk_tier: 'low',
        grants: { total: 0, wildcard: 0, requiring_approval: 0, without_max_taint: 0 },
        credentials: { active: 0, expiring_within_7_days: 0, never_used: 0 },
        signing_key: false,
        decisions_7d: { allow: 0, block: 0, escalate: 0 },
        open_findings: { critical: 0, high: 0, medium: 0, low: 0 },
        score: 100,
        grade: 'A',
        gaps: [],
      });
    });

    it('deducts for a * grant, its over_privileged finding and a high-impact grant without max_taint, and counts grants, credentials and decisions', async () => {
      const agent = await build.register('ps-wild');
      expect((await post('/api/agents/ps-wild/access', { tool_key: '*' })).status).toBe(201);
      expect((await post('/api/agents/ps-wild/access', { tool_key: 'send_email' })).status).toBe(201);
      expect((await post('/api/agents/ps-wild/access', { tool_key: 'search', requires_approval: true, max_taint: 'untrusted' })).status).toBe(201);
      expect((await post(`/api/identities/${agent.identity_id}/credentials?ttl_days=3`, {})).status).toBe(201);
      expect((await post(`/api/identities/${agent.identity_id}/credentials`, {})).status).toBe(201);
      await build.trace('ps-wild', { verdict: 'allow', content: 'hi' });
      await build.trace('ps-wild', { verdict: 'block', content: 'hi' });
      await build.trace('ps-wild', { verdict: 'escalate', content: 'hi' });
      await build.trace('ps-wild', { verdict: 'block', content: 'hi', ageDays: 8 });
      await ctx.gateway.app.services.recorder.flush();

      const { body } = await get('/api/agents/ps-wild/posture');
      expect(body).toMatchObject({
        grants: { total: 3, wildcard: 1, requiring_approval: 1, without_max_taint: 2 },
        credentials: { active: 2, expiring_within_7_days: 1, never_used: 2 },
        decisions_7d: { allow: 1, block: 1, escalate: 1 },
        open_findings: { critical: 0, high: 1 },
        // 100 - 30 (* grant) - 10 (one open high finding: over_privileged) - 5 (send_email without max_taint)
        score: 55,
        grade: 'F',
      });
      expect(body.gaps).toHaveLength(3);
      expect(body.gaps[0]).toMatch(/\* grant.*\(-30\)$/);
      expect(body.gaps[1]).toMatch(/1 open high finding.*\(-10\)$/);
      expect(body.gaps[2]).toMatch(/send_email without max_taint \(-5\)$/);
    });

    it('deducts for no owner and for agent messages sent without a signing key, and names a quarantine without deducting', async () => {
      await build.register('ps-owner', {});
      await build.messages('ps-owner', 'ps-peer');
      await ctx.gateway.app.services.recorder.flush();
      let { body } = await get('/api/agents/ps-owner/posture');
      expect(body).toMatchObject({ owner: null, signing_key: false, open_findings: { medium: 2 }, score: 75, grade: 'C' });
      expect(body.gaps).toEqual([expect.stringMatching(/no owner.*\(-15\)$/), expect.stringMatching(/signing key \(-10\)$/)]);

      expect((await post('/api/agents/ps-owner/signing-key', {})).status).toBe(201);
      expect((await post('/api/agents/ps-owner/quarantine', { reason: 'test' })).status).toBe(200);
      await ctx.gateway.app.services.recorder.flush();
      ({ body } = await get('/api/agents/ps-owner/posture'));
      // agent_stopped is a high finding: -10.
      expect(body).toMatchObject({ control: 'quarantined', signing_key: true, score: 75 });
      expect(body.gaps).toEqual([
        expect.stringMatching(/no owner.*\(-15\)$/),
        expect.stringMatching(/open high finding.*\(-10\)$/),
        'quarantined (no deduction)',
      ]);
    });

    it('answers 404 for an unknown agent', async () => {
      const { status, body } = await get('/api/agents/ps-nobody/posture');
      expect(status).toBe(404);
      expect(body.type).toBe('urn:parapet:problem:unknown-id');
    });
  });

  describe('/api/agents/{slug}/protection', () => {
    const empty = {
      protections: {},
      message: null,
      words: [],
      avoid: null,
      allowed: null,
      limits: { max_tool_calls_per_hour: null, loop_threshold: 5, loop_window_seconds: 60, max_calls_per_day: null, max_cost_usd_per_day: null },
    };

    it('reads, merges and removes protections; audits the change and reloads the directory', async () => {
      await build.register('pr-a');
      expect((await get('/api/agents/pr-a/protection')).body).toEqual({ agent: 'pr-a', ...empty });

      const set = await post('/api/agents/pr-a/protection', {
        protections: { max_tool_calls_per_hour: 100, loop_threshold: 3, max_calls_per_day: 40, max_cost_usd_per_day: 2.5, custom_flag: { on: true } },
        message: 'I cannot talk about that.',
        words: ['falcon', 'Project X'],
        avoid: 'layoffs, merger',
      });
      expect(set.status).toBe(200);
      const expected = {
        agent: 'pr-a',
        protections: { max_tool_calls_per_hour: 100, loop_threshold: 3, max_calls_per_day: 40, max_cost_usd_per_day: 2.5, custom_flag: { on: true } },
        message: 'I cannot talk about that.',
        words: ['falcon', 'Project X'],
        avoid: 'layoffs, merger',
        allowed: null,
        limits: { max_tool_calls_per_hour: 100, loop_threshold: 3, loop_window_seconds: 60, max_calls_per_day: 40, max_cost_usd_per_day: 2.5 },
      };
      expect(set.body).toEqual(expected);
      expect((await get('/api/agents/pr-a/protection')).body).toEqual(expected);
      const row = await ctx.gateway.store.db.selectFrom('agents').select('protections').where('slug', '=', 'pr-a').executeTakeFirstOrThrow();
      expect(JSON.parse(row.protections)).toEqual({
        max_tool_calls_per_hour: 100,
        loop_threshold: 3,
        max_calls_per_day: 40,
        max_cost_usd_per_day: 2.5,
        custom_flag: { on: true },
        message: 'I cannot talk about that.',
        words: ['falcon', 'Project X'],
        avoid: 'layoffs, merger',
      });
      expect(ctx.gateway.app.services.directory.lookup('pr-a').limits).toEqual({ maxToolCallsPerHour: 100, loopThreshold: 3, loopWindowSeconds: 60, maxCallsPerDay: 40, maxCostUsdPerDay: 2.5 });

      const audit = await ctx.gateway.store.db.selectFrom('audit_entries').selectAll().where('action', '=', 'agent.protection').where('target', '=', 'pr-a').execute();
      expect(audit).toHaveLength(1);
      expect(JSON.parse(audit[0]!.detail).changes.words).toEqual(['falcon', 'Project X']);

      // Absent fields stay; null removes a key or a field.
      const merged = await post('/api/agents/pr-a/protection', { protections: { loop_threshold: null, loop_window_seconds: 30 }, avoid: null, allowed: 'weather' });
      expect(merged.body).toMatchObject({
        protections: { max_tool_calls_per_hour: 100, custom_flag: { on: true }, loop_window_seconds: 30 },
        words: ['falcon', 'Project X'],
        avoid: null,
        allowed: 'weather',
        limits: { max_tool_calls_per_hour: 100, loop_threshold: 5, loop_window_seconds: 30 },
      });
      expect(merged.body.protections).not.toHaveProperty('loop_threshold');
      const cleared = await post('/api/agents/pr-a/protection', { protections: null, message: null, words: null, allowed: null });
      expect(cleared.body).toEqual({ agent: 'pr-a', ...empty });
      expect(ctx.gateway.app.services.directory.lookup('pr-a').limits.maxToolCallsPerHour).toBeNull();
    });

    let invalidCount = 0;
    it.each([
      ['max_tool_calls_per_hour below 1', { protections: { max_tool_calls_per_hour: 0 } }, '/body/protections/max_tool_calls_per_hour'],
      ['max_tool_calls_per_hour not an integer', { protections: { max_tool_calls_per_hour: 2.5 } }, '/body/protections/max_tool_calls_per_hour'],
      ['loop_threshold below 2', { protections: { loop_threshold: 1 } }, '/body/protections/loop_threshold'],
      ['max_calls_per_day below 1', { protections: { max_calls_per_day: 0 } }, '/body/protections/max_calls_per_day'],
      ['max_cost_usd_per_day of 0', { protections: { max_cost_usd_per_day: 0 } }, '/body/protections/max_cost_usd_per_day'],
      ['max_cost_usd_per_day as text', { protections: { max_cost_usd_per_day: '5' } }, '/body/protections/max_cost_usd_per_day'],
      ['loop_window_seconds as text', { protections: { loop_window_seconds: '60' } }, '/body/protections/loop_window_seconds'],
      ['a reserved key inside protections', { protections: { words: ['x'] } }, '/body/protections/words'],
      ['more than 200 words', { words: Array.from({ length: 201 }, (_, i) => `w${i}`) }, '/body/words'],
      ['a word over 100 characters', { words: ['x'.repeat(101)] }, '/body/words/0'],
      ['an empty word', { words: [''] }, '/body/words/0'],
      ['an empty avoid topic', { avoid: 'layoffs,,merger' }, '/body/avoid'],
      ['an allowed topic over 100 characters', { allowed: `weather, ${'y'.repeat(101)}` }, '/body/allowed'],
      ['a message over 1000 characters', { message: 'm'.repeat(1001) }, '/body/message'],
      ['an unknown field', { wordz: ['x'] }, '/body/wordz'],
    ])('refuses %s (400 naming the field) and changes nothing', async (_name, body, field) => {
      const slug = `pv-${(invalidCount += 1)}`;
      await build.register(slug);
      const response = await post(`/api/agents/${slug}/protection`, body);
      expect(response.status).toBe(400);
      expect(response.type).toMatch(/^application\/problem\+json/);
      expect(response.body.errors.map((error: any) => error.field)).toContain(field);
      expect((await get(`/api/agents/${slug}/protection`)).body).toMatchObject(empty);
      expect((await post(`/api/agents/${slug}/protection/preview`, body)).status).toBe(400);
    });

    it('answers 404 for an unknown agent, 409 for one that is not approved and 403 to a viewer that changes them', async () => {
      expect((await get('/api/agents/pr-nobody/protection')).status).toBe(404);
      expect((await post('/api/agents/pr-nobody/protection', { words: ['x'] })).status).toBe(404);
      expect((await post('/api/agents/pr-nobody/protection/preview', { words: ['x'] })).status).toBe(404);

      await build.pending('pr-pending');
      const conflict = await post('/api/agents/pr-pending/protection', { words: ['x'] });
      expect(conflict.status).toBe(409);
      expect(conflict.body.type).toBe('urn:parapet:problem:conflict');
      expect((await get('/api/agents/pr-pending/protection')).status).toBe(200);

      await build.register('pr-viewer');
      const viewer = await build.viewerToken();
      const forbidden = await post('/api/agents/pr-viewer/protection', { words: ['x'] }, viewer);
      expect(forbidden.status).toBe(403);
      expect((await get('/api/agents/pr-viewer/protection', viewer)).status).toBe(200);
      expect((await post('/api/agents/pr-viewer/protection/preview', { words: ['x'] }, viewer)).status).toBe(200);
      expect((await get('/api/agents/pr-viewer/posture', viewer)).status).toBe(200);
      expect((await get('/api/agents/pr-viewer/lineage', viewer)).status).toBe(200);
      const audit = await ctx.gateway.store.db.selectFrom('audit_entries').select('id').where('target', 'in', ['pr-pending', 'pr-viewer']).where('action', '=', 'agent.protection').execute();
      expect(audit).toEqual([]);
    });

    it('previews the last week of input and output against proposed protections without storing them', async () => {
      await build.register('pp-a');
      await post('/api/agents/pp-a/protection', { words: ['orion'] });
      const allowed = await build.trace('pp-a', { surface: 'input', verdict: 'allow', content: 'Tell me about Project Falcon' });
      const blocked = await build.trace('pp-a', { surface: 'output', verdict: 'block', content: 'the falcon launch date is <DATE>' });
      await build.trace('pp-a', { surface: 'input', verdict: 'escalate', content: 'we discussed the merger' });
      await build.trace('pp-a', { surface: 'input', verdict: 'allow', content: 'falconry is a hobby' });
      await build.trace('pp-a', { surface: 'input', verdict: 'allow', content: null });
      await build.trace('pp-a', { surface: 'input', verdict: 'allow', content: 'falcon, a week ago', ageDays: 8 });
      await build.trace('pp-a', { surface: 'tool_args', verdict: 'allow', content: '{"q":"falcon"}' });
      await build.trace('pp-other', { surface: 'input', verdict: 'allow', content: 'falcon' });

      const { status, body } = await post('/api/agents/pp-a/protection/preview', { words: ['falcon'], avoid: 'merger, layoffs' });
      expect(status).toBe(200);
      expect(body).toMatchObject({ agent: 'pp-a', days: 7, replayed: 4, skipped_without_content: 1, would_block: 3, newly_blocked: 2, truncated: false });
      expect(body.examples).toHaveLength(3);
      expect(body.examples).toEqual(
        expect.arrayContaining([
          { decision_id: allowed, surface: 'input', term: 'falcon', verdict_then: 'allow' },
          { decision_id: blocked, surface: 'output', term: 'falcon', verdict_then: 'block' },
          expect.objectContaining({ surface: 'input', term: 'merger', verdict_then: 'escalate' }),
        ]),
      );

      // The stored words take part unless the body replaces them; nothing was stored by the preview.
      expect((await post('/api/agents/pp-a/protection/preview', { avoid: 'hobby' })).body).toMatchObject({ would_block: 1, newly_blocked: 1 });
      expect((await post('/api/agents/pp-a/protection/preview', {})).body).toMatchObject({ replayed: 4, would_block: 0 });
      expect((await get('/api/agents/pp-a/protection')).body).toMatchObject({ words: ['orion'], avoid: null });
      const audit = await ctx.gateway.store.db.selectFrom('audit_entries').select('id').where('target', '=', 'pp-a').where('action', '=', 'agent.protection').execute();
      expect(audit).toHaveLength(1);
    });

    it(`replays at most ${PREVIEW_MAX_ROWS} decisions, newest first, and says when it stopped short`, async () => {
      await build.register('pp-many');
      const oldest = await build.trace('pp-many', { content: 'the oldest mentions falcon', ageDays: 1 });
      const rows = Array.from({ length: PREVIEW_MAX_ROWS }, (_, index) => ({ content: index === 0 ? 'falcon' : `row ${index}` }));
      for (let index = 0; index < rows.length; index += 500) {
        await Promise.all(rows.slice(index, index + 500).map((row) => build.trace('pp-many', row)));
      }
      const { body } = await post('/api/agents/pp-many/protection/preview', { words: ['falcon'] });
      expect(body).toMatchObject({ replayed: PREVIEW_MAX_ROWS, would_block: 1, truncated: true });
      expect(body.examples.map((example: any) => example.decision_id)).not.toContain(oldest);
    });
  });
});
