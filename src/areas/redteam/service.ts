// Red-team campaigns (spec 02 "Red team and probes"): an operator attacks an agent's own
// configuration before an attacker does. A campaign is processed inside its request: probes from
// the library (and, asked for, from the deployment) go through the decision pipeline as the agent —
// nothing recorded as live traffic — or to a probe target (src/areas/probes, through the
// `probeTargets` delegate). The results are stored with the campaign and its audit entry in one
// transaction; the summary, the comparison with the agent's previous campaign and the findings
// follow summary.ts.
import type { PolicySubject, PolicyRegistry } from '../../engine/policy/registry.js';
import type { AgentDirectory, Pipeline } from '../../engine/pipeline/decide.js';
import type { Recorder } from '../../engine/recording/recorder.js';
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import { problem } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import { newId } from '../../infra/lib/ids.js';
import type { Store } from '../../infra/store/db.js';
import { readJson, readJsonObject, readJsonStrings, writeJson } from '../../infra/store/json-columns.js';
import type { RedteamCampaignRow, RedteamResultRow } from '../../infra/store/tables.js';
import type { AuditLog } from '../audit/log.js';
import { deploymentProbes, type CampaignProbe } from './deployment.js';
import { libraryView, PROBE_CLASS_NAMES, selectProbes, type LibraryView, type ProbeLibrary } from './library.js';
import { runPipelineCampaign } from './runner.js';
import {
  DEFAULT_BUDGET,
  MAX_RESULTS_ANSWERED,
  type Campaign,
  type CampaignBody,
  type CampaignCreated,
  type CampaignQuery,
  type Comparison,
  type Result,
  type Summary,
} from './schemas.js';
import * as redteam from './store.js';
import { campaignFindings, compare, probesDigest, summarize, type SummaryResult } from './summary.js';

/** What POST /api/redteam/campaigns hands a probe-target run (runner `target`). */
export interface TargetCampaignOptions {
  principal: Principal;
  name?: string;
  probes?: string[];
  seed?: number;
  adaptive?: boolean;
  budget?: number;
}

/** The probe-target service (src/areas/probes): runs a campaign against a live target and stores it as a redteam campaign. */
export interface ProbeTargetRunner {
  run(targetId: string, options: TargetCampaignOptions): Promise<RedteamCampaignRow>;
}

export interface RedteamDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  pipeline: Pipeline;
  policies: PolicyRegistry;
  directory: AgentDirectory;
  recorder: Recorder;
  library: ProbeLibrary;
  probeTargets?: ProbeTargetRunner;
}

export class RedteamService {
  private probeTargets: ProbeTargetRunner | undefined;

  constructor(private readonly deps: RedteamDeps) {
    this.probeTargets = deps.probeTargets;
  }

  /** Wires the probe-target runner after both services are built (the composition root's choice). */
  useProbeTargets(runner: ProbeTargetRunner): void {
    this.probeTargets = runner;
  }

  probes(): LibraryView {
    return libraryView(this.deps.library);
  }

  async list(query: CampaignQuery): Promise<{ items: Campaign[] }> {
    const rows = await redteam.listCampaigns(this.deps.store.db, { ...(query.agent === undefined ? {} : { agent: query.agent }), limit: query.limit ?? 50 });
    return { items: rows.map(campaignToWire) };
  }

  async create(caller: Principal, body: CampaignBody): Promise<CampaignCreated> {
    const asked = [...new Set(body.probes ?? [])];
    // Unknown names are refused before anything is sent, for either runner.
    const selected = this.select(asked);
    const runner = body.runner ?? 'pipeline';
    if (runner === 'target') return this.createOnTarget(caller, body, asked);
    if (body.target_id !== undefined) {
      throw problem('refused', 'target_id is only for runner target', [{ field: '/body/target_id', message: 'leave it out, or set runner to target' }]);
    }
    return this.createOnPipeline(caller, body, asked, selected);
  }

  /** Library probes for `asked` (ids and class names; empty: all), refusing unknown entries with 422. */
  private select(asked: readonly string[]): CampaignProbe[] {
    const ids = new Set(this.deps.library.probes.map((probe) => probe.id));
    const classes = new Set<string>(PROBE_CLASS_NAMES);
    const unknown = asked.filter((entry) => !ids.has(entry) && !classes.has(entry));
    if (unknown.length > 0) {
      const listed = unknown.slice(0, 20).map((entry) => JSON.stringify(entry.slice(0, 120))).join(', ');
      throw problem('refused', `probes names unknown probe ids or classes: ${listed}${unknown.length > 20 ? ` and ${unknown.length - 20} more` : ''}; see GET /api/redteam/probes`, [
        { field: '/body/probes', message: 'unknown probe id or class' },
      ]);
    }
    return selectProbes(this.deps.library, asked);
  }

  private async createOnTarget(caller: Principal, body: CampaignBody, asked: string[]): Promise<CampaignCreated> {
    if (body.target_id === undefined) {
      throw problem('refused', 'runner target needs target_id of a probe target (GET /api/probes/targets)', [{ field: '/body/target_id', message: 'required with runner target' }]);
    }
    if (body.include_deployment_probes === true) {
      throw problem('refused', 'include_deployment_probes is for runner pipeline: a probe target is probed with library probes only', [
        { field: '/body/include_deployment_probes', message: 'only with runner pipeline' },
      ]);
    }
    if (this.probeTargets === undefined) throw problem('refused', 'probe targets are not available in this gateway: use runner pipeline');
    const row = await this.probeTargets.run(body.target_id, {
      principal: caller,
      ...(body.name === undefined ? {} : { name: body.name }),
      ...(asked.length === 0 ? {} : { probes: asked }),
      ...(body.seed === undefined ? {} : { seed: body.seed }),
      ...(body.adaptive === undefined ? {} : { adaptive: body.adaptive }),
      ...(body.budget === undefined ? {} : { budget: body.budget }),
    });
    // The campaign is of the target's agent (the target names it); `agent` in the body is not checked against it.
    const campaign = campaignToWire(row);
    await this.deps.audit.append({
      actor: actorOf(caller),
      action: 'redteam.campaign',
      target: row.id,
      detail: { id: row.id, agent: row.agent, runner: 'target', target_id: row.target_id, calls_used: row.calls_used, asr: campaign.summary.attack_success_rate_as_configured },
    });
    const [through, overBlocked] = await Promise.all([
      redteam.resultsOf(this.deps.store.db, row.id, { outcome: 'through', kind: 'attack', limit: MAX_RESULTS_ANSWERED }),
      redteam.resultsOf(this.deps.store.db, row.id, { outcome: 'blocked', kind: 'benign', limit: MAX_RESULTS_ANSWERED }),
    ]);
    return { ...campaign, results_through: through.map(resultToWire), results_over_blocked: overBlocked.map(resultToWire) };
  }

  private async createOnPipeline(caller: Principal, body: CampaignBody, asked: string[], selected: CampaignProbe[]): Promise<CampaignCreated> {
    const { store, audit, clock, pipeline, policies, directory, recorder, library } = this.deps;
    const agent = body.agent;
    const facts = directory.lookup(agent);
    const subject: Omit<PolicySubject, 'session'> = { agent, team: facts.team, environment: facts.environment };
    const probes = body.include_deployment_probes === true ? [...selected, ...deploymentProbes(facts)] : selected;
    const budget = body.budget ?? DEFAULT_BUDGET;
    const seed = body.seed ?? 1;
    const adaptive = body.adaptive ?? false;
    const startedAt = clock.now().toISOString();
    const previous = await redteam.latestCompleted(store.db, agent, 'pipeline', null);

    const run = await runPipelineCampaign({
      pipeline,
      agent,
      probes,
      configured: policies.replay(subject, null),
      enforced: policies.replay(subject, null, { mode: 'enforce' }),
      budget,
      seed,
      adaptive,
    });

    const campaignId = newId('rtc');
    const finishedAt = clock.now().toISOString();
    const sentAsWritten = run.sent.filter((entry) => entry.mutation === null).map((entry) => entry.probe.id);
    const summary = summarize(run.sent.map(toSummaryResult), { probesSelected: probes.length, probesDigest: probesDigest(library.sha256, sentAsWritten) });
    const evaluated = run.sent.some((entry) => entry.outcome !== 'error');
    const status = run.sent.length > 0 && !evaluated ? 'failed' : 'completed';
    const comparison = previous === undefined || status !== 'completed' ? null : compare({ id: previous.id, seed: previous.seed, summary: readSummary(previous.summary) }, { seed, summary });

    const results: RedteamResultRow[] = run.sent.map((entry) => ({
      id: newId('rtr'),
      campaign_id: campaignId,
      probe_id: entry.probe.id,
      class: entry.probe.class,
      kind: entry.probe.kind,
      mutation: entry.mutation,
      surface: entry.surface,
      text: entry.text,
      outcome: entry.outcome,
      as_configured: entry.as_configured,
      if_enforced: entry.if_enforced,
      // Nothing is recorded for a trial, so there is no decision to point at.
      decision_id: null,
      rules: writeJson(entry.rules),
      detail: writeJson(entry.detail),
      at: finishedAt,
    }));
    const row: RedteamCampaignRow = {
      id: campaignId,
      agent,
      name: body.name ?? `${agent} ${startedAt.slice(0, 10)}`,
      runner: 'pipeline',
      target_id: null,
      adaptive: adaptive ? 1 : 0,
      budget,
      seed,
      include_deployment_probes: body.include_deployment_probes === true ? 1 : 0,
      probes: writeJson(asked),
      status,
      error: status === 'failed' ? `no probe could be evaluated: ${run.sent[0]?.reason ?? ''}`.slice(0, 1000) : null,
      calls_used: run.callsUsed,
      summary: writeJson(summary),
      comparison: comparison === null ? null : writeJson(comparison),
      previous_campaign_id: comparison === null ? null : (previous?.id ?? null),
      library_version: String(library.version),
      created_by: actorOf(caller),
      created_at: startedAt,
      finished_at: finishedAt,
    };
    await audit.transact(async (trx, append) => {
      await redteam.insertCampaign(trx, row);
      await redteam.insertResults(trx, results);
      await append({
        actor: row.created_by,
        action: 'redteam.campaign',
        target: campaignId,
        detail: { id: campaignId, agent, runner: 'pipeline', calls_used: row.calls_used, asr: summary.attack_success_rate_as_configured },
      });
    });
    if (status === 'completed') recorder.raise(campaignFindings({ agent, campaignId, runner: 'pipeline', summary, comparison, at: finishedAt }));

    const answered = (outcome: string, kind: string) => results.filter((result) => result.outcome === outcome && result.kind === kind).slice(0, MAX_RESULTS_ANSWERED).map(resultToWire);
    return { ...campaignToWire(row), results_through: answered('through', 'attack'), results_over_blocked: answered('blocked', 'benign') };
  }
}

function toSummaryResult(entry: { probe: CampaignProbe; mutation: string | null; text: string; outcome: SummaryResult['outcome']; as_configured: string | null; if_enforced: string | null; rules: string[]; reason: string }): SummaryResult {
  return {
    probe_id: entry.probe.id,
    class: entry.probe.class,
    kind: entry.probe.kind,
    mutation: entry.mutation,
    text: entry.text,
    outcome: entry.outcome,
    as_configured: entry.as_configured,
    if_enforced: entry.if_enforced,
    rules: entry.rules,
    reason: entry.reason,
  };
}

const numberOr = (value: unknown, fallback: number): number => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);
const rateOr = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const arrayOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const objectOf = (value: unknown): Record<string, unknown> => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {});
const stringOr = (value: unknown, fallback: string): string => (typeof value === 'string' ? value : fallback);

/**
 * A stored summary read back in the answered shape, whatever wrote it (this runner or the probe
 * targets'): a missing or odd field reads as empty rather than failing the answer.
 */
export function readSummary(text: string | null): Summary {
  const stored = readJsonObject(text);
  const benign = objectOf(stored.benign);
  const summary: Summary = {
    classes: arrayOf(stored.classes).map((value) => {
      const entry = objectOf(value);
      return {
        class: stringOr(entry.class, 'unknown'),
        kind: entry.kind === 'benign' ? 'benign' : 'attack',
        probes: numberOr(entry.probes, 0),
        through_as_configured: numberOr(entry.through_as_configured, 0),
        through_if_enforced: numberOr(entry.through_if_enforced, 0),
        attack_success_rate_as_configured: rateOr(entry.attack_success_rate_as_configured),
        attack_success_rate_if_enforced: rateOr(entry.attack_success_rate_if_enforced),
        ...(typeof entry.through_after_mutation === 'number' ? { through_after_mutation: entry.through_after_mutation } : {}),
        ...(typeof entry.errors === 'number' ? { errors: entry.errors } : {}),
      };
    }),
    benign: {
      probes: numberOr(benign.probes, 0),
      blocked_as_configured: numberOr(benign.blocked_as_configured, 0),
      blocked_if_enforced: numberOr(benign.blocked_if_enforced, 0),
      over_block_rate_as_configured: rateOr(benign.over_block_rate_as_configured),
      over_block_rate_if_enforced: rateOr(benign.over_block_rate_if_enforced),
    },
    attack_success_rate_as_configured: rateOr(stored.attack_success_rate_as_configured),
    attack_success_rate_if_enforced: rateOr(stored.attack_success_rate_if_enforced),
    mutation_classes_through: arrayOf(stored.mutation_classes_through).map((value) => {
      const entry = objectOf(value);
      return { mutation: stringOr(entry.mutation, 'unknown'), through: numberOr(entry.through, 0), tried: numberOr(entry.tried, 0) };
    }),
    through: arrayOf(stored.through).map((value) => {
      const entry = objectOf(value);
      return {
        probe_id: stringOr(entry.probe_id, ''),
        class: stringOr(entry.class, ''),
        mutation: typeof entry.mutation === 'string' ? entry.mutation : null,
        text: stringOr(entry.text, ''),
        verdict: typeof entry.verdict === 'string' ? entry.verdict : null,
        rules: arrayOf(entry.rules).filter((rule): rule is string => typeof rule === 'string'),
        reason: stringOr(entry.reason, ''),
      };
    }),
  };
  if (typeof stored.probes_selected === 'number') summary.probes_selected = stored.probes_selected;
  if (typeof stored.probes_sent === 'number') summary.probes_sent = stored.probes_sent;
  if (typeof stored.probes_digest === 'string') summary.probes_digest = stored.probes_digest;
  return summary;
}

function readComparison(text: string | null): Comparison | null {
  if (text === null) return null;
  const stored = readJsonObject(text);
  if (typeof stored.previous_campaign_id !== 'string') return null;
  const strings = (value: unknown) => arrayOf(value).filter((item): item is string => typeof item === 'string');
  return {
    previous_campaign_id: stored.previous_campaign_id,
    asr_before: rateOr(stored.asr_before),
    asr_after: rateOr(stored.asr_after),
    ...(stored.previous_asr_if_enforced === undefined ? {} : { previous_asr_if_enforced: rateOr(stored.previous_asr_if_enforced) }),
    over_block_before: rateOr(stored.over_block_before),
    over_block_after: rateOr(stored.over_block_after),
    worse_classes: strings(stored.worse_classes),
    ...(stored.better_classes === undefined ? {} : { better_classes: strings(stored.better_classes) }),
    same_probes: stored.same_probes === true,
    regression: stored.regression === true,
    ...(typeof stored.note === 'string' ? { note: stored.note } : {}),
  };
}

export function campaignToWire(row: RedteamCampaignRow): Campaign {
  return {
    id: row.id,
    agent: row.agent,
    name: row.name,
    runner: row.runner === 'target' ? 'target' : 'pipeline',
    target_id: row.target_id,
    adaptive: Number(row.adaptive) === 1,
    budget: Number(row.budget),
    seed: Number(row.seed),
    include_deployment_probes: Number(row.include_deployment_probes) === 1,
    probes: readJsonStrings(row.probes),
    status: row.status === 'failed' ? 'failed' : 'completed',
    error: row.error,
    calls_used: Number(row.calls_used),
    summary: readSummary(row.summary),
    comparison: readComparison(row.comparison),
    previous_campaign_id: row.previous_campaign_id,
    library_version: row.library_version,
    created_by: row.created_by,
    created_at: row.created_at,
    finished_at: row.finished_at,
  };
}

const VERDICTS = new Set(['allow', 'escalate', 'block']);
const verdictOrNull = (value: string | null): Result['as_configured'] => (value !== null && VERDICTS.has(value) ? (value as Result['as_configured']) : null);

export function resultToWire(row: RedteamResultRow): Result {
  return {
    id: row.id,
    probe_id: row.probe_id,
    class: row.class,
    kind: row.kind === 'benign' ? 'benign' : 'attack',
    mutation: row.mutation,
    surface: row.surface,
    text: row.text,
    outcome: row.outcome === 'through' || row.outcome === 'blocked' ? row.outcome : 'error',
    as_configured: verdictOrNull(row.as_configured),
    if_enforced: verdictOrNull(row.if_enforced),
    decision_id: row.decision_id,
    rules: readJson<unknown[]>(row.rules, []).filter((rule): rule is string => typeof rule === 'string'),
    detail: readJsonObject(row.detail),
    at: row.at,
  };
}
