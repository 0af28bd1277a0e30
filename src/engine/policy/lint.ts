// The policy linter: checks the live set of packs for rules that never fire, thresholds out of range,
// rules another rule always outvotes, and changes that loosen the shipped baseline; and diffPacks,
// which says whether a pack change loosens policy (the proposals area asks for two approvers then).
// Pure functions over packs: no HTTP, no storage. Every finding is something the conditions prove;
// where a question cannot be decided from the conditions alone, the linter says nothing.
import { isDeepStrictEqual } from 'node:util';
import { UNTRUSTED_SURFACES, type Surface } from '../detectors/types.js';
import { toolMatcher } from './evaluate.js';
import { BLAST_RADII, type ArgumentCondition, type Effect, type Mode, type Pack, type Rule, type When } from './schema.js';

export type Severity = 'critical' | 'high' | 'medium' | 'low';
export const SEVERITIES: readonly Severity[] = ['critical', 'high', 'medium', 'low'];
export type ScopeLevel = 'org' | 'team' | 'agent' | 'environment';

/** One pack of the live set, with its live mode and the scope it is bound to. */
export interface LintPolicy {
  pack: Pack;
  mode: Mode;
  level: ScopeLevel;
  scopeId: string;
}

export interface LintFinding {
  severity: Severity;
  /** shadowed_rule, never_fires, misplaced_condition, threshold_out_of_range, unknown_entity, loosens_baseline. */
  code: string;
  /** The pack key. */
  policy: string;
  rule_id?: string;
  message: string;
}

export interface LintReport {
  /** False when any critical or high finding exists. */
  passed: boolean;
  findings: LintFinding[];
  counts: Record<Severity, number>;
}

export interface LintOptions {
  /** Every entity type an installed detector emits; without it, entity types are not checked. */
  knownEntities?: readonly string[];
  /**
   * The highest score a detector emits, by entity type (`PII.US_SSN`) or family prefix (`PII.`);
   * entities without an entry are taken to reach 1.
   */
  maxScores?: Readonly<Record<string, number>>;
}

const STRENGTH: Record<Effect, number> = { allow: 0, mask: 1, tokenize: 1, escalate: 2, block: 3 };
const list = <T>(value: T | T[] | undefined): T[] | undefined => (value === undefined ? undefined : Array.isArray(value) ? value : [value]);
const subset = <T>(small: readonly T[], big: readonly T[]): boolean => small.every((item) => big.includes(item));
const packMode = (pack: Pack): Mode => (pack.mode as Mode | undefined) ?? 'observe';
const ruleMode = (rule: Rule, mode: Mode): Mode => rule.mode ?? mode;
const looksAtEntities = (when: When): boolean => when.entity !== undefined || when.entity_prefix !== undefined;
const scope = (policy: LintPolicy): string => (policy.level === 'org' ? 'org' : `${policy.level} ${policy.scopeId}`);

/**
 * Whether `to` fires on every call on which `from` fires, proven from the conditions alone (false
 * when it cannot be proven). Used for shadowing (the shadowing rule is `to`) and for telling a
 * harmless condition change from a loosening one.
 */
export function implies(from: When, to: When): boolean {
  const fromSurfaces = list(from.surface);
  const toSurfaces = list(to.surface);
  if (toSurfaces !== undefined && (fromSurfaces === undefined || !subset(fromSurfaces, toSurfaces))) return false;
  if (looksAtEntities(to)) {
    if (!looksAtEntities(from) || (to.min_score ?? 0) > (from.min_score ?? 0)) return false;
    const toExact = list(to.entity) ?? [];
    const toPrefixes = list(to.entity_prefix) ?? [];
    const coveredEntity = (entity: string) => toExact.includes(entity) || toPrefixes.some((prefix) => entity.startsWith(prefix));
    const coveredPrefix = (prefix: string) => toPrefixes.some((other) => prefix.startsWith(other));
    if (!(list(from.entity) ?? []).every(coveredEntity) || !(list(from.entity_prefix) ?? []).every(coveredPrefix)) return false;
  }
  // taint > from ≥ to implies taint > to.
  if (to.taint_exceeds !== undefined && (from.taint_exceeds === undefined || from.taint_exceeds < to.taint_exceeds)) return false;
  if (to.capability !== undefined && from.capability !== to.capability) return false;
  // `to` fires when any of its facts is unmet; every fact `from` needs unmet is among them.
  if (to.facts_unmet !== undefined && (from.facts_unmet === undefined || !subset(from.facts_unmet, to.facts_unmet))) return false;
  for (const key of ['agent_card_mismatch', 'detector_degraded', 'content_too_large', 'action_destructive', 'action_escalation', 'action_unanalysable', 'budget_exceeded', 'loop_detected'] as const) {
    if (to[key] !== undefined && from[key] !== to[key]) return false;
  }
  for (const key of ['action_kind', 'signature', 'mcp_tool', 'agent'] as const) {
    const toValues = list(to[key] as string | string[] | undefined);
    const fromValues = list(from[key] as string | string[] | undefined);
    if (toValues !== undefined && (fromValues === undefined || !subset(fromValues, toValues))) return false;
  }
  if (to.action_blast_radius !== undefined && to.action_blast_radius !== 'none') {
    if (from.action_blast_radius === undefined || BLAST_RADII.indexOf(from.action_blast_radius) < BLAST_RADII.indexOf(to.action_blast_radius)) return false;
  }
  const toTools = list(to.tool);
  if (toTools !== undefined) {
    const fromTools = list(from.tool);
    if (fromTools === undefined || !fromTools.every((tool) => toTools.some((pattern) => patternCovers(pattern, tool)))) return false;
  }
  const toArguments = list(to.argument);
  if (toArguments !== undefined) {
    const fromArguments = list(from.argument);
    if (fromArguments === undefined || !toArguments.every((condition) => fromArguments.some((given) => argumentImplies(given, condition)))) return false;
  }
  return true;
}

/** Every tool `inner` matches, `outer` matches too (exact names, identical patterns, prefix and suffix patterns). */
function patternCovers(outer: string, inner: string): boolean {
  if (outer === inner) return true;
  if (!inner.includes('*')) return toolMatcher(outer)(inner);
  const pieces = outer.split('*');
  if (pieces.length !== 2) return false;
  const [head, tail] = pieces as [string, string];
  const innerPieces = inner.split('*');
  return (innerPieces[0] as string).startsWith(head) && (innerPieces[innerPieces.length - 1] as string).endsWith(tail);
}

/** `given` holding proves `wanted` holds (same path; identical, a tighter bound, or a narrower `in`). */
function argumentImplies(given: ArgumentCondition, wanted: ArgumentCondition): boolean {
  if (given.path !== wanted.path) return false;
  if (given.op === wanted.op && isDeepStrictEqual(given.value, wanted.value)) return true;
  // Every operator but `ne` fails on a missing value, so each proves the value exists.
  if (wanted.op === 'exists') return given.op !== 'ne';
  const a = given.value;
  const b = wanted.value;
  if (typeof a === 'number' && typeof b === 'number') {
    if ((wanted.op === 'gt' || wanted.op === 'gte') && (given.op === 'gt' || given.op === 'gte')) {
      return wanted.op === 'gte' || given.op === 'gt' ? a >= b : a > b;
    }
    if ((wanted.op === 'lt' || wanted.op === 'lte') && (given.op === 'lt' || given.op === 'lte')) {
      return wanted.op === 'lte' || given.op === 'lt' ? a <= b : a < b;
    }
  }
  if (given.op === 'in' && wanted.op === 'in' && Array.isArray(a) && Array.isArray(b)) return a.every((item) => b.some((other) => isDeepStrictEqual(item, other)));
  return false;
}

// Facts gathered only for tool calls: elsewhere they keep their defaults (decide.ts, spec 01 §2.4).
function toolCallOnlyConditions(when: When): string[] {
  const found: string[] = [];
  if (when.argument !== undefined) found.push('argument');
  if (when.capability !== undefined) found.push('capability');
  if (when.action_kind !== undefined) found.push('action_kind');
  if (when.action_destructive === true) found.push('action_destructive: true');
  if (when.action_blast_radius !== undefined && when.action_blast_radius !== 'none') found.push(`action_blast_radius: ${when.action_blast_radius}`);
  if (when.action_escalation === true) found.push('action_escalation: true');
  if (when.action_unanalysable === true) found.push('action_unanalysable: true');
  if (when.budget_exceeded === true) found.push('budget_exceeded: true');
  if (when.loop_detected === true) found.push('loop_detected: true');
  return found;
}

/** The highest score any entity the rule can match reaches, when maxScores says; else 1. */
function highestScore(when: When, options: LintOptions): number {
  const maxScores = options.maxScores;
  if (maxScores === undefined) return 1;
  const keys = Object.keys(maxScores);
  const covering = (name: string): number | undefined => {
    const own = maxScores[name];
    if (own !== undefined) return own;
    const family = keys.filter((key) => key.endsWith('.') && name.startsWith(key)).sort((a, b) => b.length - a.length)[0];
    return family === undefined ? undefined : maxScores[family];
  };
  let highest = 0;
  for (const entity of list(when.entity) ?? []) highest = Math.max(highest, covering(entity) ?? 1);
  for (const prefix of list(when.entity_prefix) ?? []) {
    const family = covering(prefix);
    if (family === undefined) return 1;
    // An entity under the prefix may have its own, higher entry.
    const own = keys.filter((key) => key.startsWith(prefix)).map((key) => maxScores[key] as number);
    highest = Math.max(highest, family, ...own);
  }
  return highest;
}

function ruleFindings(policy: LintPolicy, rule: Rule, options: LintOptions): LintFinding[] {
  const { when } = rule;
  const findings: LintFinding[] = [];
  const add = (severity: Severity, code: string, message: string) => findings.push({ severity, code, policy: policy.pack.key, rule_id: rule.id, message });
  const surfaces = list(when.surface);
  const only = (surface: Surface) => surfaces !== undefined && !surfaces.includes(surface);

  // never_fires: conditions the facts of the named surfaces can never meet.
  const toolOnly = toolCallOnlyConditions(when);
  if (toolOnly.length > 0 && only('tool_args')) add('high', 'never_fires', `${toolOnly.join(', ')} describe tool calls, but the rule only looks at ${surfaces?.join(', ') ?? ''}: it never fires.`);
  if (when.signature !== undefined && only('agent_message')) add('high', 'never_fires', 'signature is checked only on agent_message, which the rule does not look at: it never fires.');
  if (when.agent_card_mismatch === true && only('agent_message')) add('high', 'never_fires', 'agent_card_mismatch is only ever true on agent_message, which the rule does not look at: it never fires.');
  if (when.taint_exceeds !== undefined && when.taint_exceeds >= 1) add('high', 'never_fires', `taint is at most 1, so taint_exceeds ${String(when.taint_exceeds)} never holds.`);
  for (const condition of list(when.argument) ?? []) {
    const { op, value, path } = condition;
    if ((op === 'gt' || op === 'gte' || op === 'lt' || op === 'lte') && typeof value !== 'number') add('high', 'never_fires', `argument ${path} ${op} needs a number, not ${JSON.stringify(value) ?? 'nothing'}: it never holds.`);
    if (op === 'in' && (!Array.isArray(value) || value.length === 0)) add('high', 'never_fires', `argument ${path} in needs a non-empty list: it never holds.`);
    if (op === 'eq' && (value === undefined || Array.isArray(value))) add('high', 'never_fires', `argument ${path} eq needs a single value: it never holds.`);
  }
  if (looksAtEntities(when)) {
    const exact = list(when.entity) ?? [];
    const prefixes = list(when.entity_prefix) ?? [];
    if (options.knownEntities !== undefined) {
      const known = options.knownEntities;
      const unknownExact = exact.filter((entity) => !known.includes(entity));
      const unknownPrefixes = prefixes.filter((prefix) => !known.some((entity) => entity.startsWith(prefix)));
      if (unknownExact.length === exact.length && unknownPrefixes.length === prefixes.length) {
        add('high', 'never_fires', `No installed detector emits ${[...exact, ...prefixes.map((prefix) => `${prefix}*`)].join(', ')}: the rule never fires.`);
      } else if (unknownExact.length + unknownPrefixes.length > 0) {
        add('low', 'unknown_entity', `No installed detector emits ${[...unknownExact, ...unknownPrefixes.map((prefix) => `${prefix}*`)].join(', ')}; that part of the condition never matches.`);
      }
    }
    const minScore = when.min_score ?? 0;
    const highest = highestScore(when, options);
    if (minScore > highest) add('high', 'never_fires', `min_score ${String(minScore)} is above the highest score (${String(highest)}) the detectors emit for these entities: the rule never fires.`);
    // threshold_out_of_range: a blocking or escalating rule on any hint, or a bar nothing reaches in practice.
    if (minScore === 0 && STRENGTH[rule.effect] >= 2) {
      add(rule.effect === 'block' ? 'medium' : 'low', 'threshold_out_of_range', `min_score is ${when.min_score === undefined ? 'not set (0)' : '0'} on a rule that will ${rule.effect}: any weak hint of the entity fires it.`);
    } else if (minScore > 0.99 && minScore <= highest) {
      add('medium', 'threshold_out_of_range', `min_score ${String(minScore)} is above 0.99: detectors practically never report such certainty, so the rule practically never fires.`);
    }
  } else if (when.min_score !== undefined) {
    add('low', 'threshold_out_of_range', 'min_score applies to entity conditions only, and the rule has none: it is ignored.');
  }
  if (when.taint_exceeds === 0 && (surfaces === undefined || surfaces.some((surface) => UNTRUSTED_SURFACES.includes(surface)))) {
    add('medium', 'threshold_out_of_range', `taint_exceeds 0 fires on every call on ${surfaces === undefined ? 'untrusted surfaces' : surfaces.filter((surface) => UNTRUSTED_SURFACES.includes(surface)).join(', ')}, where content is untrusted by definition.`);
  }
  // A fact not reported counts as unmet, and only completion claims report facts.
  if (when.facts_unmet !== undefined && (surfaces === undefined || surfaces.some((surface) => surface !== 'completion'))) {
    add('high', 'misplaced_condition', `facts_unmet looks at completion claims; on ${surfaces === undefined ? 'every other surface' : surfaces.filter((surface) => surface !== 'completion').join(', ')} no facts are reported, so it holds on every call there.`);
  }
  return findings;
}

/** `outer`'s rules apply to every call `inner`'s rules see: org covers all; otherwise only the same scope. */
function covers(outer: LintPolicy, inner: LintPolicy): boolean {
  return outer.level === 'org' || (outer.level === inner.level && outer.scopeId === inner.scopeId);
}

/** `strong` outvotes `weak` whenever `weak` fires: same effect or a stronger one, at least as enforcing. */
function outvotes(strong: Rule, strongMode: Mode, weak: Rule, weakMode: Mode): boolean {
  // mask and tokenize weigh the same but transform differently: only the same effect counts there.
  const effectCovers = strong.effect === weak.effect || STRENGTH[strong.effect] > STRENGTH[weak.effect];
  return effectCovers && (strongMode === 'enforce' || weakMode === 'observe');
}

function shadowFindings(policies: readonly LintPolicy[]): LintFinding[] {
  const live = policies.flatMap((policy, policyIndex) =>
    policy.pack.rules.filter((rule) => rule.enabled !== false).map((rule, ruleIndex) => ({ policy, rule, mode: ruleMode(rule, policy.mode), order: [policyIndex, ruleIndex] as const })),
  );
  const findings: LintFinding[] = [];
  for (const weak of live) {
    for (const strong of live) {
      if (strong === weak || !covers(strong.policy, weak.policy)) continue;
      if (!outvotes(strong.rule, strong.mode, weak.rule, weak.mode) || !implies(weak.rule.when, strong.rule.when)) continue;
      // Two rules that shadow each other: report only the later one.
      const mutual = covers(weak.policy, strong.policy) && outvotes(weak.rule, weak.mode, strong.rule, strong.mode) && implies(strong.rule.when, weak.rule.when);
      const later = weak.order[0] > strong.order[0] || (weak.order[0] === strong.order[0] && weak.order[1] > strong.order[1]);
      if (mutual && !later) continue;
      // The hidden rule never decides a call: its message and severity never reach the caller.
      const hidesStronger = STRENGTH[weak.rule.effect] >= 2 || weak.rule.severity === 'critical' || weak.rule.severity === 'high';
      const where = strong.policy === weak.policy ? 'the same pack' : `${strong.policy.pack.key} (${scope(strong.policy)})`;
      findings.push({
        severity: hidesStronger ? 'high' : 'medium',
        code: 'shadowed_rule',
        policy: weak.policy.pack.key,
        rule_id: weak.rule.id,
        message: `${strong.rule.id} in ${where} fires whenever this rule fires, with ${strong.rule.effect} in ${strong.mode}: this rule never changes the outcome.`,
      });
      break;
    }
  }
  return findings;
}

function baselineFindings(policies: readonly LintPolicy[], baseline: readonly Pack[]): LintFinding[] {
  const findings: LintFinding[] = [];
  for (const shipped of baseline) {
    const shippedMode = packMode(shipped);
    const enforcingShipped = shipped.rules.some((rule) => rule.enabled !== false && ruleMode(rule, shippedMode) === 'enforce');
    const copies = policies.filter((policy) => policy.pack.key === shipped.key);
    if (copies.length === 0) {
      findings.push({ severity: enforcingShipped ? 'critical' : 'medium', code: 'loosens_baseline', policy: shipped.key, message: `The baseline pack ${shipped.key} is not in the live set.` });
      continue;
    }
    for (const policy of copies) {
      // Enforcing baseline rules loosened at org level are critical; at narrower levels high; observe-only ones medium.
      const severity = (enforcing: boolean): Severity => (!enforcing ? 'medium' : policy.level === 'org' ? 'critical' : 'high');
      const add = (enforcing: boolean, message: string, ruleId?: string) =>
        findings.push({ severity: severity(enforcing), code: 'loosens_baseline', policy: shipped.key, ...(ruleId === undefined ? {} : { rule_id: ruleId }), message: `${message} (${scope(policy)}).` });
      const packLoosened = shippedMode === 'enforce' && policy.mode === 'observe';
      if (packLoosened) add(enforcingShipped, `The baseline pack ships in enforce but runs in observe`);
      for (const base of shipped.rules) {
        if (base.enabled === false) continue;
        // Enforcing as shipped, or enforcing in this live set had it been kept.
        const enforcing = ruleMode(base, shippedMode) === 'enforce' || ruleMode(base, policy.mode) === 'enforce';
        const live = policy.pack.rules.find((rule) => rule.id === base.id);
        if (live === undefined) {
          add(enforcing, 'The baseline rule was removed', base.id);
          continue;
        }
        if (live.enabled === false) {
          add(enforcing, 'The baseline rule is disabled', base.id);
          continue;
        }
        for (const reason of ruleLoosening(base, shippedMode, live, policy.mode, packLoosened)) add(enforcing, reason, base.id);
      }
    }
  }
  return findings;
}

/** Why `to` is looser than `from` (both enabled); empty when it is not. */
function ruleLoosening(from: Rule, fromPackMode: Mode, to: Rule, toPackMode: Mode, packModeReported = false): string[] {
  const reasons: string[] = [];
  if (STRENGTH[to.effect] < STRENGTH[from.effect]) reasons.push(`Effect weakened from ${from.effect} to ${to.effect}`);
  const fromMode = ruleMode(from, fromPackMode);
  const toMode = ruleMode(to, toPackMode);
  // A mode lost only through the pack's mode is reported once for the pack.
  if (fromMode === 'enforce' && toMode === 'observe' && !(packModeReported && to.mode === undefined)) reasons.push('Mode changed from enforce to observe');
  const minRaised = looksAtEntities(from.when) && (to.when.min_score ?? 0) > (from.when.min_score ?? 0);
  if (minRaised) reasons.push(`min_score raised from ${String(from.when.min_score ?? 0)} to ${String(to.when.min_score ?? 0)}`);
  // Other condition changes loosen unless the new conditions still fire wherever the old ones did
  // (judged with the new min_score on both sides, so a raised min_score is reported only once).
  const comparable: When = minRaised ? { ...from.when, min_score: to.when.min_score as number } : from.when;
  if (!isDeepStrictEqual(comparable, to.when) && !implies(comparable, to.when)) reasons.push('Conditions changed in a way that may match fewer calls');
  return reasons;
}

/**
 * Lints the live set of packs against the shipped baseline.
 * @example lintPolicies(registry.list().map(({ pack, mode }) => ({ pack, mode, level: 'org', scopeId: 'org' })), shipped)
 */
export function lintPolicies(policies: readonly LintPolicy[], baseline: readonly Pack[], options: LintOptions = {}): LintReport {
  const findings: LintFinding[] = [];
  for (const policy of policies) {
    for (const rule of policy.pack.rules) if (rule.enabled !== false) findings.push(...ruleFindings(policy, rule, options));
  }
  findings.push(...shadowFindings(policies), ...baselineFindings(policies, baseline));
  findings.sort((a, b) => SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity));
  const counts: Record<Severity, number> = { critical: 0, high: 0, medium: 0, low: 0 };
  for (const finding of findings) counts[finding.severity] += 1;
  return { passed: counts.critical === 0 && counts.high === 0, findings, counts };
}

export interface RuleDiff {
  rule_id: string;
  /** Fields that differ: top-level rule fields, and `when.<condition>` for conditions. */
  fields: string[];
  loosens: boolean;
  /** Why it loosens; empty when it does not. */
  reasons: string[];
}

export interface PackDiff {
  key: string;
  from_version: number | null;
  to_version: number;
  /** Pack-level fields that differ (mode, fail_mode, description, version). */
  fields: string[];
  added: RuleDiff[];
  removed: RuleDiff[];
  changed: RuleDiff[];
  /** True when any change loosens: the pack's own fields or any rule. */
  loosens: boolean;
  /** Pack-level reasons (mode, fail_mode). */
  reasons: string[];
}

/**
 * What changes from one version of a pack to the next, and whether the change loosens policy:
 * a rule removed or disabled, a weaker effect, enforce→observe, min_score raised, a condition
 * change not proven to narrow nothing, the pack's mode enforce→observe or fail_mode closed→open.
 * Added rules tighten. `from` null: a new pack (every rule added).
 */
export function diffPacks(from: Pack | null, to: Pack): PackDiff {
  const toMode = packMode(to);
  const fromMode = from === null ? toMode : packMode(from);
  const fields: string[] = [];
  const reasons: string[] = [];
  if (from !== null) {
    for (const field of ['version', 'mode', 'fail_mode', 'description'] as const) if (!isDeepStrictEqual(from[field], to[field])) fields.push(field);
    if (fromMode === 'enforce' && toMode === 'observe') reasons.push('Pack mode changed from enforce to observe');
    if ((from.fail_mode ?? 'open') === 'closed' && (to.fail_mode ?? 'open') === 'open') reasons.push('fail_mode changed from closed to open');
  }
  const before = new Map((from?.rules ?? []).map((rule) => [rule.id, rule]));
  const after = new Map(to.rules.map((rule) => [rule.id, rule]));
  const added: RuleDiff[] = [];
  const removed: RuleDiff[] = [];
  const changed: RuleDiff[] = [];
  for (const rule of to.rules) if (!before.has(rule.id)) added.push({ rule_id: rule.id, fields: [], loosens: false, reasons: [] });
  for (const rule of from?.rules ?? []) {
    const next = after.get(rule.id);
    if (next === undefined) {
      const loosens = rule.enabled !== false;
      removed.push({ rule_id: rule.id, fields: [], loosens, reasons: loosens ? ['Rule removed'] : [] });
      continue;
    }
    const ruleFields = changedFields(rule, next);
    // Rules that only follow the pack's mode are covered by the pack-level reason.
    if (ruleFields.length === 0) continue;
    let ruleReasons: string[] = [];
    if (rule.enabled !== false && next.enabled === false) ruleReasons = ['Rule disabled'];
    else if (rule.enabled !== false) ruleReasons = ruleLoosening(rule, fromMode, next, toMode, reasons.length > 0 && fromMode === 'enforce' && toMode === 'observe');
    if (ruleFields.length > 0 || ruleReasons.length > 0) changed.push({ rule_id: rule.id, fields: ruleFields, loosens: ruleReasons.length > 0, reasons: ruleReasons });
  }
  const loosens = reasons.length > 0 || removed.some((diff) => diff.loosens) || changed.some((diff) => diff.loosens);
  return { key: to.key, from_version: from?.version ?? null, to_version: to.version, fields, added, removed, changed, loosens, reasons };
}

function changedFields(from: Rule, to: Rule): string[] {
  const fields: string[] = [];
  for (const field of ['description', 'effect', 'message', 'on_block', 'enabled', 'mode', 'severity'] as const) if (!isDeepStrictEqual(from[field], to[field])) fields.push(field);
  const keys = new Set([...Object.keys(from.when), ...Object.keys(to.when)]) as Set<keyof When>;
  for (const key of [...keys].sort()) if (!isDeepStrictEqual(from.when[key], to.when[key])) fields.push(`when.${key}`);
  return fields;
}
