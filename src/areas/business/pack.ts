// The `business-rules` policy pack: one rule per saved business rule, on tool calls (surface
// tool_args) whose tool matches the rule's patterns and whose arguments meet its conditions, with
// the rule's own mode. The registry binds it with `setExtraPack('business-rules', pack)`. Pure.
import type { Mode, Pack, Rule } from '../../engine/policy/schema.js';
import type { BusinessCondition, BusinessDefinition } from './schemas.js';

export const BUSINESS_RULES_PACK_KEY = 'business-rules';

/** What the pack needs of a saved rule. */
export interface BusinessRuleEntry {
  key: string;
  definition: BusinessDefinition;
  agent: string | null;
  mode: Mode;
}

export const businessRuleId = (key: string): string => `business.${key}`;

const OP_TEXT: Record<BusinessCondition['op'], string> = {
  gt: 'above',
  gte: 'of at least',
  lt: 'below',
  lte: 'of at most',
  eq: 'equal to',
  ne: 'other than',
  in: 'one of',
  exists: 'with',
};

function describeCondition(condition: BusinessCondition): string {
  if (condition.op === 'exists') return `with ${condition.path}`;
  const value = Array.isArray(condition.value) ? condition.value.join(', ') : String(condition.value);
  const unit = condition.unit === 'percent' ? '%' : condition.unit ? ` ${condition.unit}` : '';
  return `${condition.path} ${OP_TEXT[condition.op]} ${value}${unit}`;
}

/** The message a caller sees: the rule's own, or one made from its parts. */
export function businessMessage(definition: BusinessDefinition): string {
  if (definition.message !== undefined) return definition.message;
  const subject = definition.action === undefined ? `calls to ${definition.tools.join(', ')}` : `${definition.action} calls`;
  const conditions = (definition.conditions ?? []).map(describeCondition);
  const what = conditions.length > 0 ? `${subject} with ${conditions.join(' and ')}` : subject;
  const outcome =
    definition.effect === 'block' ? 'are not allowed' : definition.approver ? `need approval from ${definition.approver}` : 'need approval';
  return `Business rule: ${what} ${outcome}${definition.text === undefined ? '' : ` ("${definition.text}")`}`;
}

export function businessPolicyRule(entry: BusinessRuleEntry): Rule {
  const { definition } = entry;
  const conditions = (definition.conditions ?? []).map(({ path, op, value }) => (value === undefined ? { path, op } : { path, op, value }));
  return {
    id: businessRuleId(entry.key),
    description: definition.text ?? definition.name ?? `business rule ${entry.key}`,
    when: {
      surface: 'tool_args',
      tool: [...definition.tools],
      ...(conditions.length === 0 ? {} : { argument: conditions }),
      ...(entry.agent === null ? {} : { agent: entry.agent }),
    },
    effect: definition.effect,
    message: businessMessage(definition),
    mode: entry.mode,
  };
}

/**
 * The pack for the saved rules; each rule carries its own mode (observe or enforce).
 * @example registry.setExtraPack('business-rules', businessRulesPack(entries, 7))
 */
export function businessRulesPack(entries: readonly BusinessRuleEntry[], version = 1): Pack {
  return {
    key: BUSINESS_RULES_PACK_KEY,
    version,
    mode: 'enforce',
    description: 'Business rules about tool calls, written in plain language or as definitions (POST /api/business/rules)',
    rules: entries.map(businessPolicyRule),
  };
}
