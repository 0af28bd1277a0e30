// Seeds many recorded decisions in one statement (a recursive CTE on SQLite, generate_series on
// PostgreSQL), spread over the year before `now`, over agents, rules, verdicts and detector runs,
// so that the report routes have real work. 500,000 rows take seconds, not minutes.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../../src/infra/store/db.js';
import type { Database } from '../../src/infra/store/tables.js';

export const SEED_AGENTS = 8;
export const SEED_RULES = ['pii.block_email_input', 'pii.block_card', 'injection.block', 'secrets.block_key', 'tools.escalate_shell', 'quality.warn_toxic'];

const YEAR_SECONDS = 365 * 86_400;

/** The size of the database the report-load test and bench seed. */
export const REPORT_LOAD_DECISIONS = 500_000;
/** The heaviest report routes over a year of decisions: what the report-load test and bench run three at a time. */
export const HEAVY_REPORTS = [
  '/api/metrics/rules?range=365d',
  '/api/metrics/summary?range=365d',
  '/api/metrics/breakdown?dim=rule&range=365d',
  '/api/metrics/errors?range=365d',
  '/api/guardrails/latency?days=90',
  '/api/traces?rule=no.such.rule',
];

/**
 * Inserts `count` decisions with ids `dec_00seed…` (older than every real id, in time order), one
 * every year/count seconds up to `now`. Every 3rd decision fired no rule; every 50th is degraded.
 */
export async function seedTraces(db: Kysely<Database>, dialect: Dialect, count: number, now: Date): Promise<void> {
  const end = Math.floor(now.getTime() / 1000) - 60;
  const step = YEAR_SECONDS / count;
  const start = end - YEAR_SECONDS;
  // Six rules as JSON objects the way the pipeline stores them; the rule of a row is i % 6.
  const ruleCase = (index: string) =>
    SEED_RULES.map(
      (rule, n) =>
        `when ${index} % 6 = ${n} then '[{"rule_id":"${rule}","pack":"${rule.split('.')[0]}","effect":"${n % 2 === 0 ? 'block' : 'escalate'}","mode":"${n === 5 ? 'monitor' : 'enforce'}","entity":"PII.EMAIL","detector":"pii.regex"}]'`,
    ).join(' ');
  const columns = sql.raw(
    'id, at, agent, subject, surface, tool, verdict, effective_verdict, mode, rules, entities, degraded, detectors, latency_ms, content_sha256, content_length, content, session_id, trace_id, environment, facts',
  );
  // Every column but the id and the time is the same expression of i on both databases.
  const rest = sql.raw(`
    'seed-agent-' || (i % ${SEED_AGENTS}), 'seed-subject', case when i % 4 = 0 then 'output' else 'input' end,
    null,
    case when i % 3 = 0 then 'allow' when i % 2 = 0 then 'block' else 'escalate' end,
    case when i % 3 = 0 then 'allow' when i % 2 = 0 then 'block' else 'allow' end,
    'enforce',
    case when i % 3 = 0 then '[]' else (case ${ruleCase('i')} end) end,
    case when i % 3 = 0 then '[]' else '["PII.EMAIL"]' end,
    case when i % 50 = 0 then '["injection.heuristic"]' else '[]' end,
    case when i % 50 = 0
      then '[{"key":"pii.regex","status":"ok","matched":true,"ms":0.4},{"key":"injection.heuristic","status":"timeout","matched":false,"ms":50}]'
      else '[{"key":"pii.regex","status":"ok","matched":true,"ms":0.' || (i % 9 + 1) || '},{"key":"injection.heuristic","status":"ok","matched":false,"ms":0.2}]' end,
    (i % 97) / 10.0, 'seed', 64, null, null, null, case when i % 2 = 0 then 'prod' else 'staging' end, null`);
  if (dialect === 'sqlite') {
    await sql`
      with recursive n(i) as (select 0 union all select i + 1 from n where i < ${count - 1})
      insert into traces (${columns})
      select printf('dec_00seed%010d', i), strftime('%Y-%m-%dT%H:%M:%fZ', ${start} + i * ${step}, 'unixepoch'), ${rest}
      from n`.execute(db);
    return;
  }
  await sql`
    insert into traces (${columns})
    select 'dec_00seed' || lpad(i::text, 10, '0'),
           to_char(to_timestamp(${start} + i * ${step}::float8) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           ${rest}
    from generate_series(0, ${count - 1}::int) as i`.execute(db);
  await sql`analyze traces`.execute(db);
}
