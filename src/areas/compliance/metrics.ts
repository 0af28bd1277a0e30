// The named computations controls.yaml refers to (`metric`): each reads live records through
// store.ts and answers a value (null: nothing to measure, so not evidenced) with the evidence used.
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/store/tables.js';
import type { AuditVerification } from '../audit/schemas.js';
import * as store from './store.js';
import type { Measured } from './store.js';

const DAY_MS = 86_400_000;
/** Open findings older than this are stale (findings.none_stale). */
export const STALE_FINDING_DAYS = 30;
/** The injection detectors whose switch policies.injection_enforced needs on. */
const INJECTION_DETECTORS = ['injection.heuristic', 'injection.classifier', 'injection.similarity', 'injection.judgment'];

export interface MetricContext {
  db: Kysely<Database>;
  now: Date;
  windowDays: number;
  /** Settings some metrics read. */
  retentionTracesDays: number;
  /** The audit area's verification of the whole chain. */
  verifyAudit: () => Promise<AuditVerification>;
}

const since = (ctx: MetricContext): string => new Date(ctx.now.getTime() - ctx.windowDays * DAY_MS).toISOString();
const flag = (ok: boolean, ids: string[], counts: Record<string, number>): Measured => ({ value: ok ? 1 : 0, ids, counts });

export const METRICS: Record<string, (ctx: MetricContext) => Promise<Measured>> = {
  agents_without_owner: (ctx) => store.agentsMissing(ctx.db, 'owner'),
  agents_without_purpose: (ctx) => store.agentsMissing(ctx.db, 'purpose'),
  agents_without_assessment: (ctx) => store.agentsWithoutAssessment(ctx.db),
  assessments_overdue: (ctx) => store.assessmentsOverdue(ctx.db, ctx.now.toISOString()),
  tool_callers_with_grants: (ctx) => store.toolCallersWithGrants(ctx.db, since(ctx)),
  baseline_enforcing: async (ctx) => {
    const baseline = (await store.policyModes(ctx.db)).filter((row) => row.key === 'baseline');
    const enforcing = baseline.filter((row) => row.mode === 'enforce');
    return flag(baseline.length > 0 && enforcing.length === baseline.length, baseline.map((row) => row.key), { baseline_packs: baseline.length, enforcing: enforcing.length });
  },
  injection_enforcing: async (ctx) => {
    // The shipped packs with injection rules: baseline (injection.block_*) and injection-guards.
    const packs = (await store.policyModes(ctx.db)).filter((row) => row.key === 'baseline' || row.key === 'injection-guards');
    const enforcing = packs.filter((row) => row.mode === 'enforce').map((row) => row.key);
    const switchedOff = (await store.disabledDetectors(ctx.db)).filter((row) => INJECTION_DETECTORS.includes(row.key) && Number(row.enabled) === 0);
    return flag(enforcing.length > 0 && switchedOff.length < INJECTION_DETECTORS.length, enforcing, { enforcing_packs: enforcing.length, injection_detectors_off: switchedOff.length });
  },
  unreviewed_policy_changes: (ctx) => store.unreviewedPolicyChanges(ctx.db, since(ctx)),
  detectors_disabled: async (ctx) => {
    const rows = await store.disabledDetectors(ctx.db);
    const off = rows.filter((row) => Number(row.enabled) === 0).map((row) => row.key);
    return { value: off.length, ids: off.slice(0, store.EVIDENCE_IDS), counts: { stored_switches: rows.length, disabled: off.length } };
  },
  degraded_rate: (ctx) => store.degradedRate(ctx.db, since(ctx)),
  critical_untriaged: (ctx) => store.criticalUntriaged(ctx.db, since(ctx), ctx.now.toISOString()),
  stale_findings: (ctx) => store.staleFindings(ctx.db, new Date(ctx.now.getTime() - STALE_FINDING_DAYS * DAY_MS).toISOString()),
  approvals_expired: (ctx) => store.expiredApprovals(ctx.db, since(ctx)),
  audit_chain_bad: async (ctx) => {
    const result = await ctx.verifyAudit();
    const bad = result.ok ? 0 : 1;
    return { value: bad, ids: result.first_bad === null ? [] : [result.first_bad.id], counts: { checked: result.checked, end_seq: result.end_seq } };
  },
  checkpoints_in_window: (ctx) => store.checkpointsSince(ctx.db, since(ctx)),
  packages_in_window: (ctx) => store.packagesSince(ctx.db, since(ctx)),
  dead_letters_in_window: (ctx) => store.deadLettersSince(ctx.db, since(ctx)),
  retention_set: async (ctx) => flag(ctx.retentionTracesDays > 0, [], { retention_traces_days: ctx.retentionTracesDays }),
  admin_rotated: async (ctx) => {
    const tokens = await store.adminTokens(ctx.db);
    const now = ctx.now.toISOString();
    const live = (row: (typeof tokens)[number]) => row.revoked_at === null && (row.expires_at === null || row.expires_at > now);
    const bootstrap = tokens.filter((row) => row.created_by === 'bootstrap' || row.created_by === 'environment');
    const others = tokens.filter((row) => !bootstrap.includes(row) && live(row));
    // Rotated: a live admin token of its own exists and every bootstrap one is revoked or set to expire.
    const bootstrapOpen = bootstrap.filter((row) => row.revoked_at === null && row.expires_at === null);
    return flag(others.length > 0 && bootstrapOpen.length === 0, bootstrapOpen.map((row) => row.id), { other_admin_tokens: others.length, bootstrap_unrotated: bootstrapOpen.length });
  },
  registered_traffic_share: (ctx) => store.registeredTraffic(ctx.db, since(ctx)),
  // Evaluation and red-team runs are not recorded by this gateway yet: nothing to measure.
  evaluation_runs: async () => ({ value: null, ids: [], counts: {} }),
  redteam_runs: async () => ({ value: null, ids: [], counts: {} }),
};
