// The policy-pack language: a pack is YAML text with a key, a version, a mode and rules. Each rule
// has `when` conditions over the call's detections and facts, an effect and a message. This file
// holds the schema only; parse.ts reads text, compile.ts turns a pack into a matcher.
// No HTTP, no storage here.
import { Type, type Static } from 'typebox';
import { SURFACES } from '../detectors/types.js';
import { StringEnum } from '../../infra/lib/typebox.js';

export const EFFECTS = ['allow', 'mask', 'tokenize', 'escalate', 'block'] as const;
export type Effect = (typeof EFFECTS)[number];
export const MODES = ['observe', 'enforce'] as const;
export type Mode = (typeof MODES)[number];
export type Verdict = 'allow' | 'escalate' | 'block';
export const CAPABILITY_OUTCOMES = [
  'denied',
  'granted',
  'not_declared',
  'approval_required',
  'taint_exceeded',
  'constraint_violated',
  'action_denied',
] as const;
export type CapabilityOutcome = (typeof CAPABILITY_OUTCOMES)[number];
/** Blast radius of an analysed action, smallest first; `action_blast_radius` means "at least". */
export const BLAST_RADII = ['none', 'narrow', 'broad', 'total'] as const;
export type BlastRadius = (typeof BLAST_RADII)[number];
export const MCP_TOOL_FACTS = ['drifted', 'undeclared'] as const;
export const SIGNATURE_STATUSES = ['valid', 'unsigned', 'no_key', 'bad_signature', 'stale', 'replayed', 'incomplete'] as const;

const SurfaceName = StringEnum(SURFACES);
export const ARGUMENT_OPERATORS = ['gt', 'gte', 'lt', 'lte', 'eq', 'ne', 'in', 'exists'] as const;
export type ArgumentOperator = (typeof ARGUMENT_OPERATORS)[number];

/** One condition on a tool call's arguments: the value at a dot path compared with `value`. */
export const ArgumentConditionSchema = Type.Object(
  {
    /** Dot path into the arguments object, e.g. `amount` or `refund.total`. */
    path: Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9_$-]+(\\.[A-Za-z0-9_$-]+)*$' }),
    op: StringEnum(ARGUMENT_OPERATORS),
    /** Numbers for gt/gte/lt/lte; a scalar for eq/ne; a list of scalars for in; none for exists. */
    value: Type.Optional(Type.Union([Type.Number(), Type.String(), Type.Boolean(), Type.Array(Type.Union([Type.Number(), Type.String(), Type.Boolean()]))])),
  },
  { additionalProperties: false },
);
export type ArgumentCondition = Static<typeof ArgumentConditionSchema>;
const OneOrMany = <T extends Parameters<typeof Type.Array>[0]>(item: T) => Type.Union([item, Type.Array(item, { minItems: 1 })]);

/** Conditions of a rule; every condition given must hold (logical AND). */
export const WhenSchema = Type.Object(
  {
    surface: Type.Optional(OneOrMany(SurfaceName)),
    /** An exact entity type, or several. */
    entity: Type.Optional(OneOrMany(Type.String({ pattern: '^[A-Z]+\\.[A-Z0-9_]+$' }))),
    /** An entity family or prefix, e.g. `INJECTION.` or `PII.`. */
    entity_prefix: Type.Optional(OneOrMany(Type.String({ pattern: '^[A-Z]+\\.[A-Z0-9_]*$' }))),
    /** Minimum detection score for the entity conditions. */
    min_score: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    /** The call carries untrusted taint above this level (0 = trusted, 1 = untrusted). */
    taint_exceeds: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    /** The capability check's outcome for a tool call. */
    capability: Type.Optional(StringEnum(CAPABILITY_OUTCOMES)),
    /** Facts a completion claim must report; a fact not reported counts as unmet. */
    facts_unmet: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })),
    /** The sender of an agent message does not match its declared card. */
    agent_card_mismatch: Type.Optional(Type.Boolean()),
    /** A detector timed out, errored or was skipped for budget on this call. */
    detector_degraded: Type.Optional(Type.Boolean()),
    /** The content was too large to check in full within the detection ceiling (`detection_max_chars`, `detection_ceiling_ms`). */
    content_too_large: Type.Optional(Type.Boolean()),
    /** What an SQL, shell or HTTP argument would do (filled in by action analysis). */
    action_kind: Type.Optional(OneOrMany(Type.String({ minLength: 1 }))),
    action_destructive: Type.Optional(Type.Boolean()),
    /** The analysed action reaches at least this far: none, narrow, broad or total. */
    action_blast_radius: Type.Optional(StringEnum(BLAST_RADII)),
    /** Earlier tools of the run and this call compose a privilege escalation. */
    action_escalation: Type.Optional(Type.Boolean()),
    /** An argument could not be analysed (SQL without the optional parser, SQL that does not parse). */
    action_unanalysable: Type.Optional(Type.Boolean()),
    /** agent_message: the signature check found one of these. */
    signature: Type.Optional(OneOrMany(StringEnum(SIGNATURE_STATUSES))),
    budget_exceeded: Type.Optional(Type.Boolean()),
    loop_detected: Type.Optional(Type.Boolean()),
    /** MCP calls: the tool drifted from its reviewed pin (changed, new or removed), or is not registered. */
    mcp_tool: Type.Optional(OneOrMany(StringEnum(MCP_TOOL_FACTS))),
    /** The calling agent's slug, or several. */
    agent: Type.Optional(OneOrMany(Type.String({ minLength: 1, maxLength: 200 }))),
    /** The tool of a tool call: an exact key, or a pattern with `*` standing for any run of characters. */
    tool: Type.Optional(OneOrMany(Type.String({ minLength: 1, maxLength: 200 }))),
    /** Conditions on a tool call's arguments; every one must hold. */
    argument: Type.Optional(OneOrMany(ArgumentConditionSchema)),
  },
  { additionalProperties: false },
);
export type When = Static<typeof WhenSchema>;

export const RuleSchema = Type.Object(
  {
    id: Type.String({ pattern: '^[a-z][a-z0-9_]*\\.[a-z0-9_.]+$', description: 'family.snake_case' }),
    description: Type.Optional(Type.String()),
    when: WhenSchema,
    effect: StringEnum(EFFECTS),
    message: Type.Optional(Type.String()),
    /** What the caller is told when this rule blocks (the Decision's reason); `message` stays the reviewer's text. */
    on_block: Type.Optional(Type.String({ maxLength: 2000 })),
    enabled: Type.Optional(Type.Boolean()),
    /** Overrides the pack's mode for this rule. */
    mode: Type.Optional(StringEnum(MODES)),
    severity: Type.Optional(StringEnum(['critical', 'high', 'medium', 'low'])),
  },
  { additionalProperties: false },
);
export type Rule = Static<typeof RuleSchema>;

export const PackSchema = Type.Object(
  {
    key: Type.String({ pattern: '^[a-z][a-z0-9_-]*$', maxLength: 100 }),
    version: Type.Integer({ minimum: 1 }),
    mode: StringEnum(MODES),
    fail_mode: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('closed')])),
    description: Type.Optional(Type.String()),
    rules: Type.Array(RuleSchema),
  },
  { additionalProperties: false },
);
export type Pack = Static<typeof PackSchema>;

/**
 * A pack as written: `version` and `mode` may be left out. Saved versions are numbered by the
 * store (the text's number is only a default), and a new policy starts in observe.
 */
export const PackTextSchema = Type.Object(
  { ...PackSchema.properties, version: Type.Optional(PackSchema.properties.version), mode: Type.Optional(PackSchema.properties.mode) },
  { additionalProperties: false },
);
