// Scorers over the gateway's decision: verdict (expected.verdict against the verdict the caller got) and
// entities (the entity types the case expects the detectors to find).
import type { ScoreSubject } from '../types.js';
import { booleanParam, defineScorer, formatNumber, type ScorerDefinition } from './common.js';

type Decision = NonNullable<ScoreSubject['decision']>;

/**
 * Why the verdict is what it is. A Decision's `verdict` is what the caller got; `effective_verdict`
 * what enforcing would do, so they differ when a pack in observe let a block through.
 */
function verdictDetail(decision: Decision): string {
  const parts: string[] = [];
  if (decision.verdict !== decision.effective_verdict) parts.push(`a pack in observe let it through; enforcing, it would ${decision.effective_verdict}`);
  if (decision.rules.length > 0) parts.push(`rules ${decision.rules.slice(0, 5).join(', ')}${decision.rules.length > 5 ? ` and ${decision.rules.length - 5} more` : ''}`);
  else parts.push('no rule matched');
  return ` (${parts.join('; ')})`;
}

export const verdictScorer: ScorerDefinition = defineScorer({
  name: 'verdict',
  description: "The verdict the caller got equals expected.verdict (a pack in observe lets a block through); on recorded traffic without an expectation, passes when the call was allowed.",
  params: [],
  appliesTo: ['guard', 'online'],
  thresholdKind: null,
  defaultThreshold: null,
  relevant: (subject) => typeof subject.expected.verdict === 'string' || subject.source === 'online',
  evaluate: (subject) => {
    const decision = subject.decision;
    if (decision === null) return null;
    const expected = typeof subject.expected.verdict === 'string' ? subject.expected.verdict : null;
    const got = decision.verdict;
    if (expected === null) {
      const passed = got === 'allow';
      return { score: passed ? 1 : 0, passed, threshold: null, reason: `${passed ? 'allowed' : `not allowed: ${got}`}${verdictDetail(decision)}` };
    }
    const passed = got === expected;
    return {
      score: passed ? 1 : 0,
      passed,
      threshold: null,
      reason: `${passed ? `verdict ${got} as expected` : `expected verdict ${expected}, got ${got}`}${verdictDetail(decision)}`,
    };
  },
});

/** An expected entry names an entity type or a family of them (`PII` covers `PII.EMAIL`). */
function covers(expected: string, found: string): boolean {
  return found === expected || found.startsWith(`${expected}.`);
}

function list(items: readonly string[]): string {
  return items.length === 0 ? 'none' : `${items.slice(0, 8).join(', ')}${items.length > 8 ? ` and ${items.length - 8} more` : ''}`;
}

export const entitiesScorer: ScorerDefinition = defineScorer({
  name: 'entities',
  description: 'The detectors found the entity types in expected.entities (a family such as PII covers PII.EMAIL); score = recall, or F1 with exact (no extra entities either).',
  params: [{ name: 'exact', type: 'boolean', required: false, description: 'also fail on entity types found that were not expected; score = F1', default: false }],
  appliesTo: ['guard'],
  thresholdKind: 'min',
  defaultThreshold: 1,
  thresholdRange: [0, 1],
  relevant: (subject) => Array.isArray(subject.expected.entities),
  evaluate: (subject, params, threshold) => {
    const decision = subject.decision;
    if (decision === null) return null;
    const expected = [...new Set((subject.expected.entities as unknown[]).filter((item): item is string => typeof item === 'string'))];
    const found = [...new Set(decision.entities)];
    const missing = expected.filter((entry) => !found.some((entity) => covers(entry, entity)));
    const extra = found.filter((entity) => !expected.some((entry) => covers(entry, entity)));
    const exact = booleanParam(params, 'exact', false);
    const recall = expected.length === 0 ? 1 : (expected.length - missing.length) / expected.length;
    let score = recall;
    if (exact) {
      const precision = found.length === 0 ? 1 : (found.length - extra.length) / found.length;
      score = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
    }
    const passed = score >= (threshold ?? 1);
    const parts = [`expected ${list(expected)}; found ${list(found)}`];
    if (missing.length > 0) parts.push(`missing ${list(missing)}`);
    if (exact && extra.length > 0) parts.push(`not expected ${list(extra)}`);
    return { score, passed, threshold, reason: `${exact ? 'F1' : 'recall'} ${formatNumber(score)}: ${parts.join('; ')}` };
  },
});
