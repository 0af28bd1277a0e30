// The policy lifecycle: saved versions, scopes, modes, rule changes, approval, the effective policy
// of a subject, lint and the Rego export. Saving never changes what is enforced: every saved version
// opens a change proposal (src/policies/proposals.ts) with its diff, its replay over recent traffic
// (evidence) and the lint of the set it would make (proof). A version goes live by its proposal's
// apply, by a finished canary, or directly by `POST /api/policies/{key}/mode` with the version —
// except a loosening of an org-level policy, which needs its proposal approved by two people.
import { stringify } from 'yaml';
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import type { AuditLog } from '../audit/log.js';
import { notFound, problem } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import type { AgentDirectory } from '../../engine/pipeline/agents.js';
import type { CallFacts } from '../../engine/policy/evaluate.js';
import { plainFacts } from '../../engine/policy/facts.js';
import { diffPacks, lintPolicies, type LintReport, type PackDiff } from '../../engine/policy/lint.js';
import { PackInvalid, parsePack } from '../../engine/policy/parse.js';
import type { BoundPolicy, Compose, PolicyLevel, PolicyRegistry } from '../../engine/policy/registry.js';
import { factsToRegoInput, toRego } from '../../engine/policy/rego.js';
import type { Mode, Pack, Rule } from '../../engine/policy/schema.js';
import type { ChangePublisher } from '../../infra/store/notify.js';
import type { Store } from '../../infra/store/db.js';
import type { ProposalDetail, ProposalService } from './proposals.js';
import type { SetModeBody, RuleChangeBody, UpsertBody } from './schemas.js';
import type { Simulator } from './simulate.js';
import {
  insertPolicy,
  insertPolicyIfMissing,
  insertVersion,
  insertVersionIfMissing,
  listLegacyModes,
  listPendingVersions,
  packOf,
  PolicyStore,
  updatePolicy,
  type PolicyRow,
  type VersionRow,
} from './store.js';

export interface PolicyServiceDeps {
  registry: PolicyRegistry;
  store: Store;
  audit: AuditLog;
  clock: Clock;
  directory: AgentDirectory;
  simulator: Simulator;
  proposals: ProposalService;
  /** The shipped packs: seeded on first start, and the baseline lint compares against. */
  shipped: readonly Pack[];
  /** Entity types the installed detectors can emit (lint: rules on anything else never fire). */
  knownEntities: () => readonly string[];
  /** Rule sources outside policy text (custom and business rules), synced with the policies. */
  extraSources?: Array<() => Promise<void>>;
  /** Tells the other gateway processes sharing the database that the live policies changed. */
  changes?: ChangePublisher;
}

export interface PolicySummary {
  key: string;
  version: number | null;
  mode: Mode;
  level: PolicyLevel;
  scope_id: string;
  compose: Compose;
  origin: string;
  bound: boolean;
  fail_mode: 'open' | 'closed';
  description: string;
  pending_versions: number[];
  canary: { candidate_version: number; percent: number } | null;
  rules: Array<{ id: string; effect: string; enabled: boolean; mode: Mode; message: string; when: Record<string, unknown> }>;
}

export interface SavedVersion {
  key: string;
  version: number;
  status: string;
  proposal_id: string;
  loosening: boolean;
  approvals_needed: number;
  diff: PackDiff;
  lint: { passed: boolean; counts: Record<string, number> };
  simulation: { examined: number; changed: number; transitions: Record<string, number> };
}

export interface ValidationResult {
  valid: boolean;
  key: string | null;
  rules: number;
  errors: Array<{ path: string; message: string; line: number | null; column: number | null }>;
  lint: LintReport | null;
}

/** A tool call with one detection: what `input` looks like for the exported module. */
const EXAMPLE_FACTS: CallFacts = {
  ...plainFacts('tool_args', 'billing-agent'),
  tool: 'issue_refund',
  args: { amount: 750, currency: 'USD' },
  detections: [{ entity: 'PII.EMAIL', score: 0.93, start: 0, end: 0, explanation: 'example' }],
  capability: new Set(['granted']),
};

/** Days of recorded traffic a saved version is replayed over for its proposal's evidence. */
const EVIDENCE_DAYS = 7;
const EVIDENCE_LIMIT = 1000;

export class PolicyService {
  readonly policyStore: PolicyStore;

  constructor(private readonly deps: PolicyServiceDeps) {
    this.policyStore = new PolicyStore(deps.store);
  }

  /** First start: the shipped packs become org-level policies, live at their shipped version. */
  async seed(): Promise<void> {
    const at = this.deps.clock.now().toISOString();
    const legacyModes = new Map((await listLegacyModes(this.deps.store.db)).map((row) => [row.key, row.mode]));
    for (const pack of this.deps.shipped) {
      const existing = await this.policyStore.policy(pack.key);
      if (existing !== undefined) continue;
      const mode = legacyModes.get(pack.key) ?? pack.mode;
      await this.deps.store.db.transaction().execute(async (trx) => {
        await insertPolicyIfMissing(trx, { key: pack.key, level: 'org', scope_id: '', compose: 'merge', mode, live_version: pack.version, origin: 'shipped', bound: 1, created_at: at, updated_at: at });
        await insertVersionIfMissing(trx, {
          key: pack.key,
          version: pack.version,
          text: stringify(pack),
          mode: pack.mode,
          notes: 'shipped with Parapet',
          status: 'approved',
          source: 'shipped',
          created_by: 'parapet',
          created_at: at,
        });
      });
    }
  }

  async sync(): Promise<void> {
    await this.policyStore.reload(this.deps.registry);
    for (const source of this.deps.extraSources ?? []) await source();
  }

  /** After a change this process committed: tells the other processes and reads the policies back. */
  async changed(): Promise<void> {
    this.deps.changes?.publish('policies');
    await this.sync();
  }

  async list(agent?: string): Promise<PolicySummary[]> {
    const rows = await this.policyStore.policies();
    const pending = await listPendingVersions(this.deps.store.db);
    const subject = agent === undefined ? null : this.subjectOf(agent);
    const summaries: PolicySummary[] = [];
    for (const row of rows) {
      if (subject !== null && !applies(row, subject)) continue;
      const live = row.live_version === null ? undefined : await this.policyStore.version(row.key, row.live_version);
      summaries.push(this.summary(row, live, pending.filter((version) => version.key === row.key).map((version) => version.version)));
    }
    for (const extra of this.deps.registry.list().filter((policy) => !rows.some((row) => row.key === policy.key))) {
      summaries.push(summaryOfBound(extra));
    }
    return summaries;
  }

  async get(key: string): Promise<PolicySummary & { text: string | null; versions: Array<Omit<VersionRow, 'text' | 'key'>> }> {
    const row = await this.policyStore.policy(key);
    if (row === undefined) {
      const extra = this.deps.registry.policy(key);
      if (extra === undefined) throw notFound('policy', key);
      return { ...summaryOfBound(extra), text: stringify(extra.pack), versions: [] };
    }
    const versions = await this.policyStore.versions(key);
    const live = versions.find((version) => version.version === row.live_version);
    return {
      ...this.summary(row, live, versions.filter((version) => version.status === 'pending').map((version) => version.version).sort((a, b) => a - b)),
      text: live?.text ?? null,
      versions: versions.map(({ text: _text, key: _key, ...rest }) => rest),
    };
  }

  validate(body: UpsertBody): ValidationResult {
    let pack: Pack;
    try {
      pack = parsePack(body.body);
    } catch (error) {
      if (!(error instanceof PackInvalid)) throw error;
      return {
        valid: false,
        key: null,
        rules: 0,
        errors: error.errors.map((item) => ({ path: item.path, message: item.message, line: item.line ?? null, column: item.column ?? null })),
        lint: null,
      };
    }
    const candidate = this.boundCandidate(pack, body, undefined);
    return { valid: true, key: pack.key, rules: pack.rules.length, errors: [], lint: this.lintWith(candidate) };
  }

  /** POST /api/policies: saves the text as the policy's next version and opens its proposal. */
  async upsert(caller: Principal, body: UpsertBody): Promise<SavedVersion> {
    const pack = this.parseOrThrow(body.body);
    const existing = await this.policyStore.policy(pack.key);
    const bound = this.deps.registry.policy(pack.key);
    if (existing === undefined && bound !== undefined) {
      // The packs built from custom and business rules are changed through their own routes.
      throw problem('conflict', `the key ${pack.key} is the pack of the ${bound.origin} rules; change those through /api/${bound.origin === 'custom-rules' ? 'custom-rules' : 'business/rules'}, or choose another key`);
    }
    if (existing !== undefined && existing.live_version !== null && scopeChanged(existing, body)) {
      throw problem('conflict', `policy ${pack.key} is live at ${existing.level}${existing.scope_id === '' ? '' : ` ${existing.scope_id}`}; its scope cannot change under it. Save the rules under a new key for the new scope.`);
    }
    const mode = body.mode ?? (textHasMode(body.body) ? pack.mode : (existing?.mode as Mode | undefined) ?? 'observe');
    return this.saveVersion(caller, { ...pack, mode }, body.body, { notes: body.notes ?? null, source: 'upsert', binding: body, existing });
  }

  /** POST /api/policies/{key}/rules/{rule_id}: the live version with one rule changed, saved as the next version. */
  async changeRule(caller: Principal, key: string, ruleId: string, body: RuleChangeBody): Promise<SavedVersion> {
    const existing = await this.policyStore.policy(key);
    if (existing === undefined) throw notFound('policy', key);
    const baseVersion = existing.live_version ?? (await this.policyStore.versions(key))[0]?.version;
    const base = baseVersion === undefined ? undefined : await this.policyStore.version(key, baseVersion);
    if (base === undefined) throw problem('conflict', `policy ${key} has no saved version to change`);
    const pack = packOf(base);
    const index = pack.rules.findIndex((rule) => rule.id === ruleId);
    if (index === -1) throw notFound(`rule in policy ${key}`, ruleId);
    const rule: Rule = structuredClone(pack.rules[index] as Rule);
    if (body.effect !== undefined) rule.effect = body.effect;
    if (body.enabled !== undefined) rule.enabled = body.enabled;
    if (body.message !== undefined) rule.message = body.message;
    if (body.on_block !== undefined) rule.on_block = body.on_block;
    if (body.min_score !== undefined) {
      if (rule.when.entity === undefined && rule.when.entity_prefix === undefined) {
        throw problem('invalid-request', `rule ${ruleId} does not look at detections, so min_score does not apply to it`);
      }
      rule.when = { ...rule.when, min_score: body.min_score };
    }
    const changed: Pack = { ...pack, rules: pack.rules.map((item, at) => (at === index ? rule : item)) };
    const text = stringify(changed);
    return this.saveVersion(caller, changed, text, { notes: body.notes ?? `rule ${ruleId} changed`, source: 'rule_change', binding: {}, existing });
  }

  async setMode(caller: Principal, key: string, body: SetModeBody): Promise<PolicySummary> {
    const row = await this.policyStore.policy(key);
    if (row === undefined) throw notFound('policy', key);
    let version: VersionRow | undefined;
    if (body.version !== undefined) {
      version = await this.policyStore.version(key, body.version);
      if (version === undefined) throw problem('unknown-id', `policy ${key} has no saved version ${body.version}`);
      if (version.status === 'rejected') throw problem('conflict', `version ${body.version} of policy ${key} was rejected`);
    }
    const level = body.level ?? (row.level as PolicyLevel);
    const scopeId = body.level === 'org' ? '' : (body.scope_id ?? row.scope_id);
    if (level !== 'org' && scopeId === '') throw problem('invalid-request', `a ${level}-level policy needs scope_id (the ${level} it applies to)`);
    const compose = (body.compose as Compose | undefined) ?? (row.compose as Compose);
    const goingLive = version !== undefined && version.version !== row.live_version;
    const proposal = goingLive ? await this.deps.proposals.forVersion(key, (version as VersionRow).version) : undefined;
    if (goingLive && proposal !== undefined && proposal.loosening === 1 && !['approved', 'applied', 'verified'].includes(proposal.status)) {
      throw problem(
        'conflict',
        `version ${(version as VersionRow).version} loosens policy ${key}; its proposal ${proposal.id} needs ${proposal.approvals_needed} approval(s) first (POST /api/proposals/${proposal.id}/decide)`,
      );
    }
    const at = this.deps.clock.now().toISOString();
    await this.deps.audit.transact(async (trx, append) => {
      await updatePolicy(trx, key, { mode: body.mode, level, scope_id: scopeId, compose, updated_at: at, ...(version === undefined ? {} : { live_version: version.version, bound: 1 }) });
      if (goingLive && proposal !== undefined && !['applied', 'verified'].includes(proposal.status)) {
        await this.deps.proposals.markApplied(trx, proposal.id, at);
      }
      await append({
        actor: actorOf(caller),
        action: 'policy.mode',
        target: key,
        detail: { from: { mode: row.mode, version: row.live_version, level: row.level, scope_id: row.scope_id, compose: row.compose }, to: { mode: body.mode, version: version?.version ?? row.live_version, level, scope_id: scopeId, compose } },
      });
    });
    await this.changed();
    return (await this.list()).find((summary) => summary.key === key) as PolicySummary;
  }

  /** POST /api/policies/{policy_id}/approve|reject: `key` (its newest pending version) or `key@version`. */
  async review(caller: Principal, policyId: string, approve: boolean, note: string | undefined): Promise<ProposalDetail> {
    const [key, versionText] = policyId.split('@') as [string, string | undefined];
    let version: number | undefined = versionText === undefined ? undefined : Number(versionText);
    if (version !== undefined && (!Number.isInteger(version) || version < 1)) throw problem('invalid-request', `${policyId}: the version after @ must be a positive integer`);
    if (version === undefined) {
      const pending = (await this.policyStore.versions(key)).find((row) => row.status === 'pending');
      if (pending === undefined) {
        if ((await this.policyStore.policy(key)) === undefined) throw notFound('policy', key);
        throw problem('conflict', `policy ${key} has no version waiting for review`);
      }
      version = pending.version;
    }
    const proposal = await this.deps.proposals.forVersion(key, version);
    if (proposal === undefined) throw notFound('policy version', `${key}@${version}`);
    return this.deps.proposals.decide(caller, proposal.id, { approve, note: note ?? (approve ? 'approved' : 'rejected') });
  }

  effective(query: { agent?: string; team?: string; user?: string; environment?: string }) {
    const looked = query.agent === undefined ? null : this.deps.directory.lookup(query.agent);
    const subject = {
      agent: query.agent ?? '',
      team: query.team ?? looked?.team ?? null,
      environment: query.environment ?? looked?.environment ?? null,
    };
    const { policies, rules } = this.deps.registry.effective(subject);
    return {
      subject: { ...subject, agent: query.agent ?? null, user: query.user ?? null },
      policies: policies.map((policy) => ({ key: policy.key, version: policy.version, mode: policy.mode, level: policy.level, scope_id: policy.scopeId, compose: policy.compose, origin: policy.origin })),
      rules,
    };
  }

  lint(): LintReport {
    return this.lintWith(null);
  }

  /**
   * The live version as a Rego module (its first line names the key and live version), ending with
   * a comment that shows what `input` looks like, so the text alone is enough to try it in OPA.
   */
  rego(key: string): string {
    const policy = this.deps.registry.policy(key);
    if (policy === undefined) throw notFound('policy', key);
    const pack = { ...policy.pack, mode: policy.mode, version: policy.version };
    const example = JSON.stringify(factsToRegoInput(EXAMPLE_FACTS));
    return `${toRego(pack)}\n# Example input (a tool call with one detection), e.g. for opa eval --stdin-input:\n# ${example}\n`;
  }

  /** Makes a saved version live (or unbinds the policy when `version` is null), in its own mode. */
  async makeLive(trx: Parameters<Parameters<AuditLog['transact']>[0]>[0], key: string, version: number | null, at: string): Promise<void> {
    if (version === null) {
      await updatePolicy(trx, key, { bound: 0, updated_at: at });
      return;
    }
    const row = await this.policyStore.version(key, version, trx);
    if (row === undefined) throw problem('conflict', `policy ${key} has no saved version ${version}`);
    await updatePolicy(trx, key, { live_version: version, mode: row.mode, bound: 1, updated_at: at });
  }

  boundCandidate(pack: Pack, binding: Partial<Pick<UpsertBody, 'level' | 'scope_id' | 'compose'>>, existing: PolicyRow | undefined): BoundPolicy {
    const level = binding.level ?? (existing?.level as PolicyLevel | undefined) ?? 'org';
    return {
      key: pack.key,
      level,
      scopeId: level === 'org' ? '' : (binding.scope_id ?? existing?.scope_id ?? ''),
      compose: (binding.compose as Compose | undefined) ?? (existing?.compose as Compose | undefined) ?? 'merge',
      mode: pack.mode,
      version: pack.version,
      pack,
      origin: existing?.origin ?? 'api',
    };
  }

  private lintWith(candidate: BoundPolicy | null): LintReport {
    const live = this.deps.registry.list().filter((policy) => candidate === null || policy.key !== candidate.key);
    const set = candidate === null ? live : [...live, candidate];
    return lintPolicies(
      set.map((policy) => ({ pack: { ...policy.pack, mode: policy.mode }, mode: policy.mode, level: policy.level, scopeId: policy.scopeId })),
      [...this.deps.shipped],
      { knownEntities: this.deps.knownEntities() },
    );
  }

  private parseOrThrow(text: string): Pack {
    try {
      return parsePack(text);
    } catch (error) {
      if (!(error instanceof PackInvalid)) throw error;
      throw problem(
        'invalid-request',
        `the policy text is not valid: ${error.message}`,
        error.errors.map((item) => ({ field: `body${item.path}`, message: item.line === undefined ? item.message : `line ${item.line}, column ${item.column}: ${item.message}` })),
      );
    }
  }

  private async saveVersion(
    caller: Principal,
    pack: Pack,
    text: string,
    options: { notes: string | null; source: string; binding: Partial<Pick<UpsertBody, 'level' | 'scope_id' | 'compose'>>; existing: PolicyRow | undefined },
  ): Promise<SavedVersion> {
    const { existing, binding } = options;
    const level = binding.level ?? (existing?.level as PolicyLevel | undefined) ?? 'org';
    if (level !== 'org' && (binding.scope_id ?? existing?.scope_id ?? '') === '') {
      throw problem('invalid-request', `a ${level}-level policy needs scope_id (the ${level} it applies to)`);
    }
    const livePack = existing?.live_version === null || existing === undefined ? null : packOf((await this.policyStore.version(pack.key, existing.live_version)) as VersionRow);
    const liveMode = (existing?.mode as Mode | undefined) ?? null;
    const diff = diffPacks(livePack === null ? null : { ...livePack, mode: liveMode ?? livePack.mode }, pack);
    const candidate = this.boundCandidate(pack, binding, existing);
    const [simulation, lint] = [await this.deps.simulator.run({ candidate, sinceDays: EVIDENCE_DAYS, limit: EVIDENCE_LIMIT }), this.lintWith(candidate)];
    const at = this.deps.clock.now().toISOString();
    const actor = actorOf(caller);
    const saved = await this.deps.audit.transact(async (trx, append) => {
      const version = await this.policyStore.nextVersion(pack.key, trx);
      if (existing === undefined) {
        await insertPolicy(trx, {
          key: pack.key,
          level: candidate.level,
          scope_id: candidate.scopeId,
          compose: candidate.compose,
          mode: pack.mode,
          live_version: null,
          origin: 'api',
          bound: 1,
          created_at: at,
          updated_at: at,
        });
      } else if (existing.live_version === null) {
        await updatePolicy(trx, pack.key, { level: candidate.level, scope_id: candidate.scopeId, compose: candidate.compose, updated_at: at });
      }
      await insertVersion(trx, { key: pack.key, version, text, mode: pack.mode, notes: options.notes, status: 'pending', source: options.source, created_by: actor, created_at: at });
      const proposal = await this.deps.proposals.create(trx, {
        key: pack.key,
        level: candidate.level,
        scopeId: candidate.scopeId,
        fromVersion: existing?.live_version ?? null,
        toVersion: version,
        loosening: diff.loosens,
        title: `${pack.key} version ${version}${options.notes === null ? '' : `: ${options.notes}`}`.slice(0, 300),
        diff,
        evidence: { ...simulation, changes: simulation.changes.slice(0, 50) },
        proof: lint,
        actor,
        at,
      });
      await append({
        actor,
        action: options.source === 'rule_change' ? 'policy.rule_change' : 'policy.save',
        target: `${pack.key}@${version}`,
        detail: { proposal_id: proposal.id, loosening: diff.loosens, notes: options.notes },
      });
      return { version, proposal };
    });
    return {
      key: pack.key,
      version: saved.version,
      status: 'pending',
      proposal_id: saved.proposal.id,
      loosening: diff.loosens,
      approvals_needed: saved.proposal.approvals_needed,
      diff,
      lint: { passed: lint.passed, counts: lint.counts },
      simulation: { examined: simulation.examined, changed: simulation.changed, transitions: simulation.transitions },
    };
  }

  private subjectOf(agent: string): { agent: string; team: string | null; environment: string | null } {
    const facts = this.deps.directory.lookup(agent);
    return { agent, team: facts.team, environment: facts.environment };
  }

  private summary(row: PolicyRow, live: VersionRow | undefined, pending: number[]): PolicySummary {
    const pack = live === undefined ? null : packOf(live);
    const canary = this.deps.registry.canary(row.key);
    return {
      key: row.key,
      version: row.live_version,
      mode: row.mode as Mode,
      level: row.level as PolicyLevel,
      scope_id: row.scope_id,
      compose: row.compose as Compose,
      origin: row.origin,
      bound: row.bound === 1 && row.live_version !== null,
      fail_mode: pack?.fail_mode ?? 'open',
      description: pack?.description ?? '',
      pending_versions: pending,
      canary: canary === undefined ? null : { candidate_version: canary.candidateVersion, percent: canary.percent },
      rules: (pack?.rules ?? []).map((rule) => ruleSummary(rule, row.mode as Mode)),
    };
  }
}

function ruleSummary(rule: Rule, mode: Mode): PolicySummary['rules'][number] {
  return { id: rule.id, effect: rule.effect, enabled: rule.enabled !== false, mode: rule.mode ?? mode, message: rule.message ?? rule.id, when: rule.when as Record<string, unknown> };
}

function summaryOfBound(policy: BoundPolicy): PolicySummary {
  return {
    key: policy.key,
    version: policy.version,
    mode: policy.mode,
    level: policy.level,
    scope_id: policy.scopeId,
    compose: policy.compose,
    origin: policy.origin,
    bound: true,
    fail_mode: policy.pack.fail_mode ?? 'open',
    description: policy.pack.description ?? '',
    pending_versions: [],
    canary: null,
    rules: policy.pack.rules.map((rule) => ruleSummary(rule, policy.mode)),
  };
}

function applies(row: PolicyRow, subject: { agent: string; team: string | null; environment: string | null }): boolean {
  if (row.level === 'org') return true;
  if (row.level === 'team') return row.scope_id === subject.team;
  if (row.level === 'environment') return row.scope_id === subject.environment;
  return row.scope_id === subject.agent;
}

function scopeChanged(row: PolicyRow, body: UpsertBody): boolean {
  if (body.level !== undefined && body.level !== row.level) return true;
  if (body.scope_id !== undefined && body.level !== 'org' && body.scope_id !== row.scope_id) return true;
  return body.compose !== undefined && body.compose !== row.compose;
}

/** Whether the text names its mode (else the policy keeps its current one, or observe when new). */
const textHasMode = (text: string): boolean => /^mode\s*:/m.test(text);
