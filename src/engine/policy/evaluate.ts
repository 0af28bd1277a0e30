// Compiles a pack once into matchers and evaluates packs over one call's facts: which rules fire,
// `verdict` from enforcing rules, `effective_verdict` from all, and the decisive match.
// Hot path: pure functions over facts gathered beforehand; no I/O, no allocation beyond results.
import type { Detection, Surface } from '../detectors/types.js';
import {
  BLAST_RADII,
  type ArgumentCondition,
  type BlastRadius,
  type CapabilityOutcome,
  type Effect,
  type Mode,
  type Pack,
  type Rule,
  type Verdict,
} from './schema.js';

/** What policy may know about one call; gathered before evaluation (spec 01 §2.4, "Analysis"). */
export interface CallFacts {
  surface: Surface;
  detections: readonly Detection[];
  /** 0 = trusted, 1 = untrusted content reached this call. */
  taint: number;
  /** Outcomes of the capability check for a tool call (a call can be both denied and undeclared). */
  capability: ReadonlySet<CapabilityOutcome>;
  /** Observed facts reported with a completion claim; null when none were reported. */
  completionFacts: Readonly<Record<string, unknown>> | null;
  agentCardMismatch: boolean;
  degraded: boolean;
  /** The content was too large to check in full within the ceiling; absent counts as false. */
  contentTooLarge?: boolean;
  actionKinds: readonly string[];
  actionDestructive: boolean;
  actionBlastRadius: BlastRadius;
  /** Prior tools and this call compose a privilege escalation. */
  actionEscalation: boolean;
  /** An argument could not be analysed (for example SQL without the parser): fail closed. */
  actionUnanalysable: boolean;
  budgetExceeded: boolean;
  loopDetected: boolean;
  /** agent_message: what the signature check found; null elsewhere. */
  signature: string | null;
  /** MCP calls: the tool drifted from its reviewed pin, or is not registered; null otherwise. */
  mcpTool: 'drifted' | 'undeclared' | null;
  /** The calling agent's slug. */
  agent: string;
  /** The tool of a tool call; null on other surfaces. */
  tool: string | null;
  /** A tool call's arguments; null on other surfaces. */
  args: Readonly<Record<string, unknown>> | null;
}

export interface FiredRule {
  rule_id: string;
  pack: string;
  effect: Effect;
  mode: Mode;
  message: string;
  /** The detection that made it fire, for rules with entity conditions. */
  detection?: Detection;
  severity?: Rule['severity'];
  /** True for rules that look at detections (guardrail findings), false for fact rules. */
  detector_rule: boolean;
  /** The approval that satisfied this escalation (set by the pipeline). */
  approved_by?: string;
  /** What the caller is told when this rule blocks. */
  on_block?: string;
}

export interface CompiledRule {
  rule: Rule;
  pack: string;
  mode: Mode;
  /** Null when the rule does not fire; the decisive detection (or null for fact rules) when it does. */
  match(facts: CallFacts): { detection: Detection | null } | null;
}

export interface CompiledPack {
  key: string;
  version: number;
  mode: Mode;
  failMode: 'open' | 'closed';
  rules: CompiledRule[];
  /** Surfaces on which some enabled rule of this pack looks at detections. */
  detectionSurfaces: ReadonlySet<Surface> | 'all';
}

const STRENGTH: Record<Effect, number> = { allow: 0, mask: 1, tokenize: 1, escalate: 2, block: 3 };
const list = <T>(value: T | T[] | undefined): T[] | undefined => (value === undefined ? undefined : Array.isArray(value) ? value : [value]);

export function compileRule(rule: Rule, pack: Pack, packMode: Mode): CompiledRule {
  const { when } = rule;
  const surfaces = list(when.surface);
  const exact = list(when.entity);
  const prefixes = list(when.entity_prefix);
  const minScore = when.min_score ?? 0;
  const actionKinds = list(when.action_kind);
  const looksAtEntities = exact !== undefined || prefixes !== undefined;

  const checks: Array<(facts: CallFacts) => boolean> = [];
  if (surfaces !== undefined) checks.push((facts) => surfaces.includes(facts.surface));
  if (when.taint_exceeds !== undefined) checks.push((facts) => facts.taint > (when.taint_exceeds as number));
  if (when.capability !== undefined) checks.push((facts) => facts.capability.has(when.capability as CapabilityOutcome));
  if (when.facts_unmet !== undefined) {
    const required = when.facts_unmet;
    // A fact that is not reported counts as unmet (spec 01 §2.3, completion rule).
    checks.push((facts) => required.some((name) => facts.completionFacts?.[name] !== true));
  }
  if (when.agent_card_mismatch !== undefined) checks.push((facts) => facts.agentCardMismatch === when.agent_card_mismatch);
  if (when.detector_degraded !== undefined) checks.push((facts) => facts.degraded === when.detector_degraded);
  if (when.content_too_large !== undefined) checks.push((facts) => (facts.contentTooLarge === true) === when.content_too_large);
  if (actionKinds !== undefined) checks.push((facts) => facts.actionKinds.some((kind) => actionKinds.includes(kind)));
  if (when.action_destructive !== undefined) checks.push((facts) => facts.actionDestructive === when.action_destructive);
  if (when.action_blast_radius !== undefined) {
    const least = BLAST_RADII.indexOf(when.action_blast_radius);
    checks.push((facts) => BLAST_RADII.indexOf(facts.actionBlastRadius) >= least);
  }
  if (when.action_escalation !== undefined) checks.push((facts) => facts.actionEscalation === when.action_escalation);
  if (when.action_unanalysable !== undefined) checks.push((facts) => facts.actionUnanalysable === when.action_unanalysable);
  const signatures = list(when.signature);
  if (signatures !== undefined) checks.push((facts) => facts.signature !== null && (signatures as readonly string[]).includes(facts.signature));
  if (when.budget_exceeded !== undefined) checks.push((facts) => facts.budgetExceeded === when.budget_exceeded);
  if (when.loop_detected !== undefined) checks.push((facts) => facts.loopDetected === when.loop_detected);
  const mcpTool = list(when.mcp_tool);
  if (mcpTool !== undefined) checks.push((facts) => facts.mcpTool !== null && mcpTool.includes(facts.mcpTool));
  const agents = list(when.agent);
  if (agents !== undefined) checks.push((facts) => agents.includes(facts.agent));
  const tools = list(when.tool)?.map(toolMatcher);
  if (tools !== undefined) checks.push((facts) => facts.tool !== null && tools.some((matches) => matches(facts.tool as string)));
  const argumentConditions = list(when.argument);
  if (argumentConditions !== undefined) {
    checks.push((facts) => facts.args !== null && argumentConditions.every((condition) => argumentHolds(condition, facts.args as Readonly<Record<string, unknown>>)));
  }

  const entityMatches = (detection: Detection) =>
    detection.score >= minScore &&
    ((exact?.includes(detection.entity) ?? false) || (prefixes?.some((prefix) => detection.entity.startsWith(prefix)) ?? false));

  return {
    rule,
    pack: pack.key,
    mode: rule.mode ?? packMode,
    match(facts) {
      for (const check of checks) if (!check(facts)) return null;
      if (!looksAtEntities) return { detection: null };
      let best: Detection | null = null;
      for (const detection of facts.detections) {
        if (entityMatches(detection) && (best === null || detection.score > best.score)) best = detection;
      }
      return best === null ? null : { detection: best };
    },
  };
}

/** `refund_*`-style tool patterns: `*` is any run of characters; matched by pieces, no regex. */
export function toolMatcher(pattern: string): (tool: string) => boolean {
  if (!pattern.includes('*')) return (tool) => tool === pattern;
  const pieces = pattern.split('*');
  const first = pieces[0] as string;
  const last = pieces[pieces.length - 1] as string;
  const middle = pieces.slice(1, -1);
  return (tool) => {
    if (tool.length < first.length + last.length || !tool.startsWith(first) || !tool.endsWith(last)) return false;
    let cursor = first.length;
    const end = tool.length - last.length;
    for (const piece of middle) {
      const at = tool.indexOf(piece, cursor);
      if (at === -1 || at + piece.length > end) return false;
      cursor = at + piece.length;
    }
    return true;
  };
}

/** The value at a dot path of a tool call's arguments; undefined when any step is missing. */
export function argumentAt(args: Readonly<Record<string, unknown>>, path: string): unknown {
  let value: unknown = args;
  for (const step of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, step)) return undefined;
    value = (value as Record<string, unknown>)[step];
  }
  return value;
}

/**
 * Numbers compare as numbers, and a numeric string (`"750"`, `"750.00"`) counts as its number, as
 * tools often send amounts as text. A missing value satisfies only `ne`.
 */
export function argumentHolds(condition: ArgumentCondition, args: Readonly<Record<string, unknown>>): boolean {
  const actual = argumentAt(args, condition.path);
  const { op, value } = condition;
  if (op === 'exists') return actual !== undefined && actual !== null;
  if (actual === undefined || actual === null) return op === 'ne';
  const number = typeof actual === 'number' ? actual : typeof actual === 'string' && /^-?\d+(\.\d+)?$/.test(actual.trim()) ? Number(actual) : null;
  switch (op) {
    case 'gt':
      return number !== null && typeof value === 'number' && number > value;
    case 'gte':
      return number !== null && typeof value === 'number' && number >= value;
    case 'lt':
      return number !== null && typeof value === 'number' && number < value;
    case 'lte':
      return number !== null && typeof value === 'number' && number <= value;
    case 'eq':
      return sameScalar(actual, number, value);
    case 'ne':
      return !sameScalar(actual, number, value);
    case 'in':
      return Array.isArray(value) && value.some((item) => sameScalar(actual, number, item));
  }
}

function sameScalar(actual: unknown, number: number | null, expected: unknown): boolean {
  if (typeof expected === 'number') return number === expected;
  return actual === expected;
}

export function compilePack(pack: Pack, modeOverride?: Mode): CompiledPack {
  const mode = modeOverride ?? pack.mode;
  const rules = pack.rules.filter((rule) => rule.enabled !== false).map((rule) => compileRule(rule, pack, mode));
  let detectionSurfaces: Set<Surface> | 'all' = new Set();
  for (const { rule } of rules) {
    if (rule.when.entity === undefined && rule.when.entity_prefix === undefined) continue;
    const surfaces = list(rule.when.surface);
    if (surfaces === undefined) {
      detectionSurfaces = 'all';
      break;
    }
    for (const surface of surfaces) detectionSurfaces.add(surface);
  }
  return { key: pack.key, version: pack.version, mode, failMode: pack.fail_mode ?? 'open', rules, detectionSurfaces };
}

export interface Evaluation {
  fired: FiredRule[];
  verdict: Verdict;
  effectiveVerdict: Verdict;
  mode: Mode;
  /** The rule that decided the outcome: the strongest, enforcing first on a tie. */
  decisive: FiredRule | null;
}

export function evaluate(packs: readonly CompiledPack[], facts: CallFacts): Evaluation {
  const fired: FiredRule[] = [];
  for (const pack of packs) {
    for (const compiled of pack.rules) {
      const match = compiled.match(facts);
      if (match === null) continue;
      const { rule } = compiled;
      fired.push({
        rule_id: rule.id,
        pack: pack.key,
        effect: rule.effect,
        mode: compiled.mode,
        message: rule.message ?? rule.id,
        ...(match.detection === null ? {} : { detection: match.detection }),
        ...(rule.severity === undefined ? {} : { severity: rule.severity }),
        ...(rule.on_block === undefined ? {} : { on_block: rule.on_block }),
        detector_rule: rule.when.entity !== undefined || rule.when.entity_prefix !== undefined,
      });
    }
  }
  const anyEnforcing = packs.some((pack) => pack.mode === 'enforce' || pack.rules.some((rule) => rule.mode === 'enforce'));
  const outcome = strongest(fired);
  return { fired, ...outcome, mode: outcome.decisive?.mode ?? (anyEnforcing ? 'enforce' : 'observe') };
}

/** `verdict` from the enforcing rules among `fired`, `effective_verdict` from all, and the decisive one. */
export function strongest(fired: readonly FiredRule[]): { verdict: Verdict; effectiveVerdict: Verdict; decisive: FiredRule | null } {
  let enforcing = 0;
  let overall = 0;
  let decisive: FiredRule | null = null;
  for (const rule of fired) {
    const strength = STRENGTH[rule.effect];
    if (rule.mode === 'enforce') enforcing = Math.max(enforcing, strength);
    overall = Math.max(overall, strength);
    const better =
      decisive === null ||
      strength > STRENGTH[decisive.effect] ||
      (strength === STRENGTH[decisive.effect] && rule.mode === 'enforce' && decisive.mode !== 'enforce');
    if (better) decisive = rule;
  }
  return { verdict: verdictFromStrength(enforcing), effectiveVerdict: verdictFromStrength(overall), decisive };
}

function verdictFromStrength(strength: number): Verdict {
  return strength >= 3 ? 'block' : strength === 2 ? 'escalate' : 'allow';
}
