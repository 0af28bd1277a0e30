// Exports a policy pack as an Open Policy Agent module (Rego v1) that, for `input` = the call's facts
// rendered by factsToRegoInput, gives what evaluate([compilePack(pack)], facts) gives: `verdict`,
// `effective_verdict`, `fired` and `decisive`. Pure text generation: no HTTP, no storage, no OPA here.
//
// The input document (one call's facts, snake_case like the wire):
//   { surface, agent, tool: string|null, args: object|null, detections: [{entity, score}], taint,
//     capability: [outcome...], completion_facts: object|null, agent_card_mismatch, degraded, content_too_large,
//     action_kinds: [..], action_destructive, action_blast_radius, action_escalation,
//     action_unanalysable, budget_exceeded, loop_detected, signature: string|null, mcp_tool: string|null }
// Every field is present; a module fed a partial document treats a missing field as "condition not met".
import type { CallFacts } from './evaluate.js';
import { BLAST_RADII, type ArgumentCondition, type Effect, type Mode, type Pack, type Rule } from './schema.js';

/** JSON rendering of one call's facts: the `input` of an exported module. */
export interface RegoInput {
  surface: string;
  agent: string;
  tool: string | null;
  args: Record<string, unknown> | null;
  detections: Array<{ entity: string; score: number }>;
  taint: number;
  capability: string[];
  completion_facts: Record<string, unknown> | null;
  agent_card_mismatch: boolean;
  degraded: boolean;
  content_too_large: boolean;
  action_kinds: string[];
  action_destructive: boolean;
  action_blast_radius: string;
  action_escalation: boolean;
  action_unanalysable: boolean;
  budget_exceeded: boolean;
  loop_detected: boolean;
  signature: string | null;
  mcp_tool: string | null;
}

/**
 * The facts as the exported module's `input`.
 * @example opa eval -d baseline.rego -I 'data.parapet.policy.baseline.verdict' < input.json
 */
export function factsToRegoInput(facts: CallFacts): RegoInput {
  return {
    surface: facts.surface,
    agent: facts.agent,
    tool: facts.tool,
    args: facts.args === null ? null : { ...facts.args },
    detections: facts.detections.map((detection) => ({ entity: detection.entity, score: detection.score })),
    taint: facts.taint,
    // Sorted so the same facts always render the same document.
    capability: [...facts.capability].sort(),
    completion_facts: facts.completionFacts === null ? null : { ...facts.completionFacts },
    agent_card_mismatch: facts.agentCardMismatch,
    degraded: facts.degraded,
    content_too_large: facts.contentTooLarge === true,
    action_kinds: [...facts.actionKinds],
    action_destructive: facts.actionDestructive,
    action_blast_radius: facts.actionBlastRadius,
    action_escalation: facts.actionEscalation,
    action_unanalysable: facts.actionUnanalysable,
    budget_exceeded: facts.budgetExceeded,
    loop_detected: facts.loopDetected,
    signature: facts.signature,
    mcp_tool: facts.mcpTool,
  };
}

export interface RegoOptions {
  /** The pack's live mode when it differs from the text (as compilePack's override). */
  mode?: Mode;
}

const STRENGTH: Record<Effect, number> = { allow: 0, mask: 1, tokenize: 1, escalate: 2, block: 3 };
const list = <T>(value: T | T[] | undefined): T[] | undefined => (value === undefined ? undefined : Array.isArray(value) ? value : [value]);
/** JSON text is a valid Rego literal for strings, numbers, booleans, null, arrays and objects. */
const literal = (value: unknown): string => JSON.stringify(value);
const setOf = (values: readonly unknown[]): string => (values.length === 0 ? 'set()' : `{${values.map(literal).join(', ')}}`);
const comment = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** The package of a pack's module: `parapet.policy.<key with - as _>`. */
export function regoPackage(key: string): string {
  return `parapet.policy.${key.replace(/-/g, '_')}`;
}

/** RE2 source for a `*` tool pattern: `*` is any run of characters (newlines too), the rest literal. */
export function toolPatternRegex(pattern: string): string {
  const quote = (piece: string) => piece.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');
  return `(?s)^${pattern.split('*').map(quote).join('.*')}$`;
}

export function toRego(pack: Pack, options: RegoOptions = {}): string {
  // `mode` may become optional in the pack schema (default observe).
  const packMode: Mode = options.mode ?? (pack.mode as Mode | undefined) ?? 'observe';
  const rules = pack.rules.filter((rule) => rule.enabled !== false);
  const out: string[] = [
    `# Parapet policy pack ${pack.key} v${String(pack.version ?? 1)}, exported for Open Policy Agent.`,
    ...(pack.description === undefined ? [] : [`# ${comment(pack.description)}`]),
    `# input: the call's facts as rendered by factsToRegoInput (docs/decisions.md, "Policy as code").`,
    `# verdict: from enforcing rules; effective_verdict: from all rules; fired: ids of the rules that fire;`,
    `# decisive: the strongest fired rule, enforcing first on a tie, earliest first (null when none fired).`,
    `package ${regoPackage(pack.key)}`,
    '',
    'import rego.v1',
    '',
    '# Enabled rules in pack order; disabled rules are left out. mode = the rule\'s own mode, else the pack\'s.',
    'rule_table := [',
    ...rules.map((rule) => {
      const mode = rule.mode ?? packMode;
      return `\t{"rule_id": ${literal(rule.id)}, "pack": ${literal(pack.key)}, "effect": ${literal(rule.effect)}, "mode": ${literal(mode)}, "strength": ${String(STRENGTH[rule.effect])}},`;
    }),
    ']',
    '',
  ];
  if (rules.length === 0) out.push('fires := set()', '');
  rules.forEach((rule, index) => out.push(...ruleBlock(rule, index), ''));
  out.push(LIBRARY);
  return out.join('\n');
}

function ruleBlock(rule: Rule, index: number): string[] {
  const { when } = rule;
  const body: string[] = [];
  const helpers: string[] = [];
  const surfaces = list(when.surface);
  if (surfaces !== undefined) body.push(`input.surface in ${setOf(surfaces)}`);
  if (when.taint_exceeds !== undefined) body.push(`input.taint > ${literal(when.taint_exceeds)}`);
  if (when.capability !== undefined) body.push(`${literal(when.capability)} in input.capability`);
  if (when.facts_unmet !== undefined) {
    // A fact not reported (or not reported as true) counts as unmet, as in evaluate.
    body.push(`some fact_name in ${literal(when.facts_unmet)}`, 'not fact_met(fact_name)');
  }
  if (when.agent_card_mismatch !== undefined) body.push(`input.agent_card_mismatch == ${literal(when.agent_card_mismatch)}`);
  if (when.detector_degraded !== undefined) body.push(`input.degraded == ${literal(when.detector_degraded)}`);
  if (when.content_too_large !== undefined) body.push(`input.content_too_large == ${literal(when.content_too_large)}`);
  const kinds = list(when.action_kind);
  if (kinds !== undefined) body.push('some action_kind in input.action_kinds', `action_kind in ${setOf(kinds)}`);
  if (when.action_destructive !== undefined) body.push(`input.action_destructive == ${literal(when.action_destructive)}`);
  if (when.action_blast_radius !== undefined) {
    body.push(`blast_radius_rank[input.action_blast_radius] >= ${String(BLAST_RADII.indexOf(when.action_blast_radius))}`);
  }
  if (when.action_escalation !== undefined) body.push(`input.action_escalation == ${literal(when.action_escalation)}`);
  if (when.action_unanalysable !== undefined) body.push(`input.action_unanalysable == ${literal(when.action_unanalysable)}`);
  const signatures = list(when.signature);
  if (signatures !== undefined) body.push(`input.signature in ${setOf(signatures)}`);
  if (when.budget_exceeded !== undefined) body.push(`input.budget_exceeded == ${literal(when.budget_exceeded)}`);
  if (when.loop_detected !== undefined) body.push(`input.loop_detected == ${literal(when.loop_detected)}`);
  const mcpTool = list(when.mcp_tool);
  if (mcpTool !== undefined) body.push(`input.mcp_tool in ${setOf(mcpTool)}`);
  const agents = list(when.agent);
  if (agents !== undefined) body.push(`input.agent in ${setOf(agents)}`);
  const tools = list(when.tool);
  if (tools !== undefined) {
    // Exact names compare as strings; `*` patterns become anchored RE2 with every other character quoted.
    body.push('is_string(input.tool)');
    const exact = tools.filter((tool) => !tool.includes('*'));
    const patterns = tools.filter((tool) => tool.includes('*')).map(toolPatternRegex);
    const name = `tool_${String(index)}`;
    if (exact.length > 0) helpers.push(`${name} if input.tool in ${setOf(exact)}`);
    for (const pattern of patterns) helpers.push(`${name} if regex.match(${literal(pattern)}, input.tool)`);
    body.push(name);
  }
  const argumentConditions = list(when.argument);
  if (argumentConditions !== undefined) {
    body.push('is_object(input.args)');
    argumentConditions.forEach((condition, position) => {
      const name = `argument_${String(index)}_${String(position)}`;
      helpers.push(...argumentHelper(name, condition.path));
      body.push(...argumentCheck(name, condition, `actual_${String(position)}`));
    });
  }
  const exact = list(when.entity);
  const prefixes = list(when.entity_prefix);
  if (exact !== undefined || prefixes !== undefined) {
    body.push(
      'some detection in input.detections',
      `detection.score >= ${literal(when.min_score ?? 0)}`,
      `entity_matches(detection.entity, ${literal(exact ?? [])}, ${literal(prefixes ?? [])})`,
    );
  }
  const head = `# ${rule.id}: ${rule.effect}${rule.description === undefined ? '' : ` - ${comment(rule.description)}`}`;
  const rendered = body.length === 0 ? [`fires contains ${String(index)}`] : [`fires contains ${String(index)} if {`, ...body.map((line) => `\t${line}`), '}'];
  return [head, ...helpers, ...rendered];
}

/** `[value]` at the dot path of the arguments, or `[]` when a step is missing or the value is null. */
function argumentHelper(name: string, path: string): string[] {
  const walk = path.split('.').reduce((value, step) => `path_step(${value}, ${literal(step)})`, 'input.args');
  return [`${name} := [value] if {`, `\tvalue := ${walk}`, '\tvalue != null', '} else := []'];
}

/** The check for one argument condition, reproducing argumentHolds (numeric strings count as numbers). */
function argumentCheck(name: string, condition: ArgumentCondition, actual: string): string[] {
  const { op, value } = condition;
  const same = (expected: unknown) => (typeof expected === 'number' ? `numeric_value(${actual}) == ${literal(expected)}` : `${actual} == ${literal(expected)}`);
  switch (op) {
    case 'exists':
      return [`count(${name}) == 1`];
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      // Only a number compares; any other value makes the condition false, as in argumentHolds.
      if (typeof value !== 'number') return ['false'];
      const symbol = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[op];
      return [`some ${actual} in ${name}`, `numeric_value(${actual}) ${symbol} ${literal(value)}`];
    }
    case 'eq':
      return [`some ${actual} in ${name}`, same(value)];
    case 'ne':
      // A missing value satisfies `ne`: `every` over an empty list holds.
      return [`every ${actual} in ${name} {`, `\tnot ${same(value)}`, '}'];
    case 'in': {
      if (!Array.isArray(value)) return ['false'];
      const numbers = value.filter((item) => typeof item === 'number');
      const others = value.filter((item) => typeof item !== 'number');
      if (numbers.length === 0 && others.length === 0) return ['false'];
      return [`some ${actual} in ${name}`, `scalar_in(${actual}, ${setOf(numbers)}, ${setOf(others)})`];
    }
  }
}

// Shared definitions, identical in every exported module.
const LIBRARY = `fired contains rule_table[index].rule_id if {
	some index in fires
}

effect_strengths := {rule_table[index].strength | some index in fires}

enforcing_strengths := {rule_table[index].strength | some index in fires; rule_table[index].mode == "enforce"}

verdict := verdict_of(max(enforcing_strengths | {0}))

effective_verdict := verdict_of(max(effect_strengths | {0}))

verdict_of(strength) := "block" if strength >= 3

verdict_of(strength) := "escalate" if strength == 2

verdict_of(strength) := "allow" if strength < 2

strongest := {index | some index in fires; rule_table[index].strength == max(effect_strengths)}

strongest_enforcing := {index | some index in strongest; rule_table[index].mode == "enforce"}

decisive_index := min(strongest_enforcing) if {
	count(strongest_enforcing) > 0
} else := min(strongest) if {
	count(strongest) > 0
}

default decisive := null

decisive := object.remove(rule_table[decisive_index], ["strength"])

entity_matches(entity, exact, _) if entity in exact

entity_matches(entity, _, prefixes) if {
	some prefix in prefixes
	startswith(entity, prefix)
}

fact_met(name) if input.completion_facts[name] == true

blast_radius_rank := {"none": 0, "narrow": 1, "broad": 2, "total": 3}

# One step of an argument path, as JavaScript's own-property lookup: object keys, canonical array
# indexes, and an array's length.
path_step(value, step) := value[step] if is_object(value)

path_step(value, step) := value[to_number(step)] if {
	is_array(value)
	regex.match(\`^(0|[1-9][0-9]*)$\`, step)
}

path_step(value, "length") := count(value) if is_array(value)

# Numbers as numbers; a numeric string ("750", " 750.00 ") as its number.
numeric_value(value) := value if is_number(value)

numeric_value(value) := to_number(trim_space(value)) if {
	is_string(value)
	regex.match(\`^-?[0-9]+(\\.[0-9]+)?$\`, trim_space(value))
}

scalar_in(value, numbers, _) if numeric_value(value) in numbers

scalar_in(value, _, others) if value in others
`;
