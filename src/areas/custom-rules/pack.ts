// The `custom-rules` policy pack: one rule per enabled custom rule, firing on the `CUSTOM.<KEY>`
// detections of the `custom.rules` detector, narrowed to the rule's surfaces and agents. The
// registry binds it with `setExtraPack('custom-rules', pack)`. Pure: no I/O.
import type { Pack, Rule } from '../../engine/policy/schema.js';
import { callerMessage, entityOf, ruleIdOf, type CustomRuleDefinition } from './matcher.js';

export const CUSTOM_RULES_PACK_KEY = 'custom-rules';

/** The policy rule that enforces one custom rule. */
export function customPolicyRule(definition: CustomRuleDefinition): Rule {
  return {
    id: ruleIdOf(definition.key),
    description: definition.description ?? `custom ${definition.kind} rule "${definition.name}"`,
    when: {
      entity: entityOf(definition.key),
      ...(definition.surfaces.length === 0 ? {} : { surface: [...definition.surfaces] }),
      ...(definition.agents.length === 0 ? {} : { agent: [...definition.agents] }),
    },
    effect: definition.effect,
    message: callerMessage(definition),
    ...(definition.severity === null ? {} : { severity: definition.severity }),
  };
}

/**
 * The pack for the given rules (disabled ones left out). `version` lets /api/version name the rule
 * set; the service passes a number that grows with every change it sees.
 * @example registry.setExtraPack('custom-rules', customRulesPack(definitions, 3))
 */
export function customRulesPack(definitions: readonly CustomRuleDefinition[], version = 1): Pack {
  return {
    key: CUSTOM_RULES_PACK_KEY,
    version,
    mode: 'enforce',
    description: 'Custom keyword, regex and sequence rules written by operators (POST /api/custom-rules)',
    rules: definitions.filter((definition) => definition.enabled).map(customPolicyRule),
  };
}
