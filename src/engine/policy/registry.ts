// The policies in force, compiled once per change, and the set that applies to one call. Policies
// are bound at a scope level (org, team, environment, agent); a call sees every org policy plus the
// policies of its agent's team, its environment and the agent itself. A policy that composes by
// `override` replaces the rules of the same id from the broader levels. A running canary swaps a
// policy's live version for its candidate in a cohort of calls. The hot path reads `packsFor()`,
// which answers from a cache keyed by the subject; nothing here parses or touches storage.
import { createHash } from 'node:crypto';
import { compilePack, type CompiledPack } from './evaluate.js';
import { parsePack } from './parse.js';
import type { Mode, Pack } from './schema.js';

export const POLICY_LEVELS = ['org', 'team', 'environment', 'agent'] as const;
export type PolicyLevel = (typeof POLICY_LEVELS)[number];
export type Compose = 'merge' | 'override';

/** A policy as bound: its live version's pack and how it sits among the others. */
export interface BoundPolicy {
  key: string;
  level: PolicyLevel;
  /** The team, environment or agent the policy is bound to; '' at org level. */
  scopeId: string;
  compose: Compose;
  mode: Mode;
  version: number;
  pack: Pack;
  /** shipped, api, library, or the rule source (custom-rules, business-rules). */
  origin: string;
}

/** A canary in progress: calls in its cohort are decided by the candidate version. */
export interface RunningCanary {
  id: string;
  key: string;
  candidateVersion: number;
  candidate: Pack;
  /** Share of calls, 0–100, in the candidate's cohort at the current step. */
  percent: number;
}

/** Who a call is for, as far as scoping and canary cohorts go. */
export interface PolicySubject {
  agent: string;
  team: string | null;
  environment: string | null;
  /** Calls of one session stay in one cohort; calls without a session are assigned one by one. */
  session: string | null;
}

export interface PolicySet {
  packs: readonly CompiledPack[];
  /** `<canary id>:candidate` or `<canary id>:baseline` when a running canary's policy applies to the call. */
  canary: string | null;
}

/** One rule as it applies to a subject, with where it comes from. */
export interface RuleProvenance {
  rule_id: string;
  policy: string;
  level: PolicyLevel;
  scope_id: string;
  version: number;
  mode: Mode;
  effect: string;
  enabled: boolean;
  /** The narrower policy whose rule of the same id replaces this one (compose override). */
  overridden_by: string | null;
}

const LEVEL_RANK: Record<PolicyLevel, number> = { org: 0, team: 1, environment: 2, agent: 3 };
const CACHE_LIMIT = 4096;

export function orgPolicy(pack: Pack, origin: string, mode: Mode = pack.mode): BoundPolicy {
  return { key: pack.key, level: 'org', scopeId: '', compose: 'merge', mode, version: pack.version, pack, origin };
}

export class PolicyRegistry {
  private bound = new Map<string, BoundPolicy>();
  private readonly extra = new Map<string, BoundPolicy>();
  private canaries = new Map<string, RunningCanary>();
  private readonly compiled = new Map<string, CompiledPack>();
  private readonly sets = new Map<string, PolicySet>();
  /** Whether any policy is scoped below org or composes by override; when not, every call shares one set. */
  private scoped = false;
  private orgSet: PolicySet = { packs: [], canary: null };

  constructor(shippedTexts: readonly string[]) {
    this.load(
      shippedTexts.map((text) => orgPolicy(parsePack(text), 'shipped')),
      [],
    );
  }

  /** Replaces the bound policies and canaries (from storage, or after a change in this process). */
  load(policies: readonly BoundPolicy[], canaries: readonly RunningCanary[]): void {
    this.bound = new Map(policies.map((policy) => [policy.key, policy]));
    this.canaries = new Map(canaries.map((canary) => [canary.key, canary]));
    this.rebuild();
  }

  /** Rules that come from elsewhere than policy text (custom rules, business rules), bound at org level. */
  setExtraPack(source: string, pack: Pack | null): void {
    if (pack === null || pack.rules.length === 0) this.extra.delete(source);
    else this.extra.set(source, orgPolicy(pack, source));
    this.rebuild();
  }

  /** A stable text of everything bound from storage, to tell whether a reload changes anything. */
  signature(): string {
    return policySignature([...this.bound.values()], [...this.canaries.values()]);
  }

  /** Every bound policy, extra rule sources last. */
  list(): BoundPolicy[] {
    return [...this.bound.values(), ...this.extra.values()];
  }

  policy(key: string): BoundPolicy | undefined {
    return this.bound.get(key) ?? [...this.extra.values()].find((policy) => policy.key === key);
  }

  /** The live pack of a policy. */
  pack(key: string): Pack | undefined {
    return this.policy(key)?.pack;
  }

  canary(key: string): RunningCanary | undefined {
    return this.canaries.get(key);
  }

  packsFor(subject: PolicySubject): PolicySet {
    if (!this.scoped && this.canaries.size === 0) return this.orgSet;
    const cohorts = [...this.canaries.values()].map((canary) => (inCohort(canary, subject.session) ? '1' : '0')).join('');
    const cacheKey = `${subject.agent}\u0000${subject.team ?? ''}\u0000${subject.environment ?? ''}\u0000${cohorts}`;
    const cached = this.sets.get(cacheKey);
    if (cached !== undefined) return cached;
    const set = this.build(subject, cohorts);
    if (this.sets.size >= CACHE_LIMIT) this.sets.clear();
    this.sets.set(cacheKey, set);
    return set;
  }

  /** The rules in force for a subject, with their policy, level, version and what overrides them. */
  effective(subject: Omit<PolicySubject, 'session'>): { policies: BoundPolicy[]; rules: RuleProvenance[] } {
    const policies = this.applicable({ ...subject, session: null });
    const overrides = this.overrideMap(policies);
    const rules: RuleProvenance[] = [];
    for (const policy of policies) {
      for (const rule of policy.pack.rules) {
        const by = overrides.get(rule.id);
        const overriddenBy = by !== undefined && LEVEL_RANK[by.level] > LEVEL_RANK[policy.level] ? by.key : null;
        rules.push({
          rule_id: rule.id,
          policy: policy.key,
          level: policy.level,
          scope_id: policy.scopeId,
          version: policy.version,
          mode: rule.mode ?? policy.mode,
          effect: rule.effect,
          enabled: rule.enabled !== false,
          overridden_by: overriddenBy,
        });
      }
    }
    return { policies, rules };
  }

  /** `key@version:mode` for each policy (and `~canary` while one runs), so /api/version names what decided. */
  versions(): string {
    return this.list()
      .map((policy) => {
        const canary = this.canaries.get(policy.key);
        return `${policy.key}@${policy.version}:${policy.mode}${canary === undefined ? '' : `~${canary.candidateVersion}@${canary.percent}%`}`;
      })
      .join(',');
  }

  private rebuild(): void {
    this.compiled.clear();
    this.sets.clear();
    this.scoped = this.list().some((policy) => policy.level !== 'org' || policy.compose === 'override');
    this.orgSet = { packs: this.list().filter((policy) => policy.level === 'org').map((policy) => this.compile(policy, null)), canary: null };
  }

  /**
   * The compiled set a subject would see with `replacement` in place of the policy of the same key
   * (or added, for a new key), ignoring canaries: what simulation and rule checks replay against.
   */
  replay(subject: Omit<PolicySubject, 'session'>, replacement: BoundPolicy | null, options: { mode?: Mode } = {}): CompiledPack[] {
    const chosen = replacement === null ? this.list() : [...this.list().filter((policy) => policy.key !== replacement.key), replacement];
    // `mode`: every policy as if promoted (or demoted) at once — "what enforcing everything would stop".
    const all = options.mode === undefined ? chosen : chosen.map((policy) => (policy.mode === options.mode ? policy : { ...policy, mode: options.mode as Mode }));
    const policies = this.applicable({ ...subject, session: null }, all);
    const overrides = this.overrideMap(policies);
    return policies.map((policy) => {
      const hidden = new Set<string>();
      for (const [ruleId, by] of overrides) if (LEVEL_RANK[by.level] > LEVEL_RANK[policy.level]) hidden.add(ruleId);
      if (policy === replacement || (replacement !== null && options.mode !== undefined && policy.key === replacement.key)) {
        const rules = hidden.size === 0 ? policy.pack.rules : policy.pack.rules.filter((rule) => !hidden.has(rule.id));
        return compilePack({ ...policy.pack, rules, version: policy.version }, policy.mode);
      }
      return this.compile(policy, hidden.size === 0 ? null : hidden);
    });
  }

  private applicable(subject: PolicySubject, all: readonly BoundPolicy[] = this.list()): BoundPolicy[] {
    return all
      .filter(
        (policy) =>
          policy.level === 'org' ||
          (policy.level === 'team' && policy.scopeId === subject.team) ||
          (policy.level === 'environment' && policy.scopeId === subject.environment) ||
          (policy.level === 'agent' && policy.scopeId === subject.agent),
      )
      .sort((a, b) => LEVEL_RANK[a.level] - LEVEL_RANK[b.level]);
  }

  /** Rule id → the narrowest override policy that carries it. */
  private overrideMap(policies: readonly BoundPolicy[]): Map<string, BoundPolicy> {
    const map = new Map<string, BoundPolicy>();
    for (const policy of policies) {
      if (policy.compose !== 'override') continue;
      for (const rule of policy.pack.rules) map.set(rule.id, policy);
    }
    return map;
  }

  private build(subject: PolicySubject, cohorts: string): PolicySet {
    const policies = this.applicable(subject);
    const overrides = this.overrideMap(policies);
    let canaryMark: string | null = null;
    const canaryList = [...this.canaries.values()];
    const packs = policies.map((policy) => {
      const index = canaryList.findIndex((canary) => canary.key === policy.key);
      let used = policy;
      if (index !== -1) {
        const canary = canaryList[index] as RunningCanary;
        const candidate = cohorts[index] === '1';
        canaryMark ??= `${canary.id}:${candidate ? 'candidate' : 'baseline'}`;
        if (candidate) used = { ...policy, pack: canary.candidate, version: canary.candidateVersion, mode: canary.candidate.mode };
      }
      const hidden = new Set<string>();
      for (const [ruleId, by] of overrides) if (LEVEL_RANK[by.level] > LEVEL_RANK[used.level]) hidden.add(ruleId);
      return this.compile(used, hidden.size === 0 ? null : hidden);
    });
    return { packs, canary: canaryMark };
  }

  private compile(policy: BoundPolicy, hidden: ReadonlySet<string> | null): CompiledPack {
    const cacheKey = `${policy.key}@${policy.version}:${policy.mode}:${hidden === null ? '' : [...hidden].sort().join(',')}`;
    let compiled = this.compiled.get(cacheKey);
    if (compiled === undefined) {
      const pack = hidden === null ? policy.pack : { ...policy.pack, rules: policy.pack.rules.filter((rule) => !hidden.has(rule.id)) };
      compiled = compilePack({ ...pack, version: policy.version }, policy.mode);
      this.compiled.set(cacheKey, compiled);
    }
    return compiled;
  }
}

export function policySignature(policies: readonly BoundPolicy[], canaries: readonly RunningCanary[]): string {
  const parts = policies.map((p) => `${p.key}@${p.version}:${p.mode}:${p.level}:${p.scopeId}:${p.compose}`);
  const running = canaries.map((c) => `${c.id}:${c.candidateVersion}:${c.percent}`);
  return [...parts.sort(), '|', ...running.sort()].join(',');
}

/** Sessions hash into a stable cohort; calls without one are assigned at random, call by call. */
function inCohort(canary: RunningCanary, session: string | null): boolean {
  if (canary.percent >= 100) return true;
  if (canary.percent <= 0) return false;
  if (session === null) return Math.random() * 100 < canary.percent;
  const digest = createHash('sha256').update(`${canary.id}\u0000${session}`).digest();
  return digest.readUInt16BE(0) % 100 < canary.percent;
}
