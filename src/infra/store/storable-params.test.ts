// Every string a query sends is made storable in one place (the dialect wrapper in db.ts), so NUL in
// a path parameter, query string or body never reaches PostgreSQL as text it refuses: the operator
// API answers what it would for any other unknown or new value, never 500.
import { describe, expect, it } from 'vitest';
import { DIALECTS, withGateway } from '../../../test/helpers/gateway.js';

const NUL = '\u0000';
const enc = encodeURIComponent;

/** Requests across areas with NUL in a path parameter, the query string or the body. */
const REQUESTS: Array<{ method: string; path: string; json?: unknown; headers?: Record<string, string> }> = [
  { method: 'GET', path: `/api/agents/${enc(`ghost${NUL}agent`)}` },
  { method: 'GET', path: `/api/agents?environment=${enc(`prod${NUL}`)}` },
  { method: 'GET', path: `/api/traces?agent=${enc(`a${NUL}b`)}&environment=${enc(`e${NUL}`)}` },
  { method: 'GET', path: `/api/traces/${enc(`dec_${NUL}`)}` },
  { method: 'GET', path: `/api/findings?agent=${enc(`a${NUL}b`)}` },
  { method: 'GET', path: `/api/findings/${enc(`fnd_${NUL}`)}` },
  { method: 'GET', path: `/api/approvals/${enc(`apr_${NUL}`)}` },
  { method: 'GET', path: `/api/policies/${enc(`pack${NUL}`)}` },
  { method: 'GET', path: `/api/metrics/summary?agent=${enc(`a${NUL}`)}` },
  { method: 'POST', path: '/api/tokens', json: { name: `token${NUL}name`, role: 'viewer' } },
  { method: 'POST', path: '/api/agents', json: { slug: 'nul-owner', name: `Name${NUL}`, purpose: `purpose${NUL}`, owner_team: `team${NUL}` } },
  { method: 'POST', path: `/api/agents/${enc(`ghost${NUL}`)}/kill`, json: { reason: `stop${NUL}` } },
  { method: 'POST', path: '/api/guardrails/feedback', json: { decision_id: `dec_${NUL}`, label: 'false_positive', note: `n${NUL}` } },
  { method: 'POST', path: '/api/legal-holds', json: { reason: `hold${NUL}`, scope: { agents: [`a${NUL}`] } } },
  {
    method: 'POST',
    path: '/v1/mcp/call',
    headers: { 'x-parapet-agent': 'nul-mcp-agent' },
    json: { server: `docs${NUL}`, tool: `find${NUL}`, arguments: { q: `x${NUL}` }, session_id: `s${NUL}` },
  },
];

describe.each(DIALECTS)('NUL in operator requests (%s)', (dialect) => {
  const ctx = withGateway({ dialect });

  it('answers 2xx or 4xx, never 500', async () => {
    const answers: string[] = [];
    for (const { method, path, json, headers } of REQUESTS) {
      const response = await ctx.gateway.request(path, { method, ...(headers === undefined ? {} : { headers }), ...(json === undefined ? {} : { json }) });
      answers.push(`${method} ${path.replaceAll('%00', '<NUL>')} → ${response.status}`);
      await response.arrayBuffer();
    }
    expect(answers.filter((answer) => / → 5\d\d$/.test(answer))).toEqual([]);
  });

  it('stores NUL in operator text as U+FFFD', async () => {
    const response = await ctx.gateway.request('/api/tokens', { method: 'POST', json: { name: `ops${NUL}token`, role: 'viewer' } });
    expect(response.status).toBe(201);
    const row = await ctx.gateway.store.db.selectFrom('api_tokens').select('name').where('name', 'like', 'ops%token').executeTakeFirstOrThrow();
    expect(row.name).toBe('ops\uFFFDtoken');
  });
});
