// From a posted custom rule to its stored definition: defaults filled in, cross-field checks that a
// schema cannot express, compilation, and the rule's own examples run against it. No I/O.
import { problem } from '../../infra/http/problems.js';
import { compileCustomRule, RuleInvalid, type CompiledCustomRule, type CustomRuleDefinition } from './matcher.js';
import type { TryRule, UpsertCustomRuleBody } from './schemas.js';

export interface CheckedRule {
  definition: CustomRuleDefinition;
  compiled: CompiledCustomRule;
  warnings: string[];
}

/** Defaults: keyword, deny, enabled, block; case-insensitive except for regex rules. */
export function toDefinition(body: UpsertCustomRuleBody | TryRule, fallbackKey = 'try'): CustomRuleDefinition {
  const kind = body.kind ?? 'keyword';
  return {
    key: body.key ?? fallbackKey,
    name: body.name ?? body.key ?? fallbackKey,
    kind,
    polarity: body.polarity ?? 'deny',
    entries: body.entries ?? [],
    examples: body.examples ?? [],
    description: body.description ?? null,
    surfaces: [...new Set(body.surfaces ?? [])],
    agents: [...new Set(body.agents ?? [])],
    // A pattern says what it means (and `(?i)` is there); words are usually meant in any case.
    case_sensitive: body.case_sensitive ?? kind === 'regex',
    sequence: body.sequence ?? null,
    enabled: body.enabled ?? true,
    effect: body.effect ?? 'block',
    message: body.message ?? null,
    on_block: body.on_block ?? null,
    severity: body.severity ?? null,
  };
}

/**
 * Compiles a definition and checks it: 400 (invalid-request) for a rule that cannot work, 422
 * (refused) when one of its own examples does not behave as declared.
 */
export function checkDefinition(definition: CustomRuleDefinition, options: { runExamples: boolean; fieldPrefix: string }): CheckedRule {
  const at = (field: string) => `${options.fieldPrefix}${field}`;
  if (definition.polarity === 'require' && (definition.effect === 'mask' || definition.effect === 'tokenize')) {
    throw problem('invalid-request', `a require rule has nothing to ${definition.effect}: the violation is text that is missing`, [
      { field: at('/effect'), message: 'use block, escalate or allow with polarity require' },
    ]);
  }
  let compiled: CompiledCustomRule;
  try {
    compiled = compileCustomRule(definition);
  } catch (error) {
    if (error instanceof RuleInvalid) {
      throw problem('invalid-request', `invalid custom rule: ${error.message}`, error.errors.map((item) => ({ ...item, field: at(item.field) })));
    }
    throw error;
  }
  const warnings: string[] = [];
  if (definition.polarity === 'require' && definition.surfaces.length === 0) {
    warnings.push('a require rule without surfaces checks every surface, including inputs and tool arguments: name the surfaces it is meant for');
  }
  if (definition.kind === 'keyword' && definition.entries.some((entry) => entry.trim().length < 3)) {
    warnings.push('keywords shorter than 3 characters match many ordinary texts');
  }
  if (typeof definition.on_block === 'object' && definition.on_block !== null && definition.on_block.message === undefined) {
    warnings.push('on_block names no message: the caller is told the rule message');
  }
  if (definition.on_block !== null && definition.effect !== 'block') {
    warnings.push(`on_block is shown only when the rule blocks; this rule's effect is ${definition.effect}`);
  }
  if (options.runExamples) {
    const failures = definition.examples
      .map((example, index) => {
        const text = typeof example === 'string' ? example : example.text;
        const expected = typeof example === 'string' ? true : example.fires;
        const outcome = compiled.run(text);
        return outcome.fires === expected ? null : { field: at(`/examples/${index}`), message: `the rule ${outcome.fires ? 'fires' : 'does not fire'} on this example, which says it ${expected ? 'should' : 'should not'}` };
      })
      .filter((failure): failure is { field: string; message: string } => failure !== null);
    if (failures.length > 0) {
      throw problem('refused', `${failures.length} of the rule's examples do not behave as declared`, failures);
    }
  }
  return { definition, compiled, warnings };
}
