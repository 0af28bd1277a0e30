// The classification is a pure function of its inputs: order does not matter, words match whole.
import { describe, expect, it } from 'vitest';
import { packagePath } from '../../infra/lib/package-root.js';
import { classify, loadClassificationRules, type ClassificationInputs } from './classify.js';

const rules = loadClassificationRules(packagePath('catalogue', 'risk-classification.yaml'));
const inputs = (over: Partial<ClassificationInputs> = {}): ClassificationInputs => ({
  purpose: null,
  data_classes: [],
  declared_tools: [],
  risk_tier: null,
  observed: { window_days: 90, decisions: 3, tools_used: [], entity_types: [], blocked_calls: 0 },
  ...over,
});

describe('classify', () => {
  it('answers the same whatever the order of the inputs', () => {
    const a = classify('x', rules, inputs({ purpose: 'credit scoring chat', data_classes: ['pii', 'credit'], declared_tools: ['b', 'a'] }));
    const b = classify('x', rules, inputs({ purpose: 'credit scoring chat', data_classes: ['credit', 'pii', 'credit'], declared_tools: ['a', 'b'] }));
    expect(b).toEqual(a);
    expect(a.class).toBe('high');
    expect(a.reasons.map((reason) => reason.rule)).toEqual(['annex3.essential_services', 'art50.interaction']);
  });

  it('matches whole words with an inflection, never inside a word', () => {
    expect(classify('x', rules, inputs({ purpose: 'Writes an example summary for three teams' })).class).toBe('minimal');
    expect(classify('x', rules, inputs({ purpose: 'Supports recruiting' })).class).toBe('high');
    expect(classify('x', rules, inputs({ purpose: 'Runs social scoring of citizens' })).class).toBe('prohibited');
  });

  it('asks for a purpose when none is declared, and flags a risk tier above the class', () => {
    const open = classify('x', rules, inputs({ risk_tier: 'critical' })).open_questions.map((question) => question.key);
    expect(open).toEqual(['purpose', 'interaction', 'tier_mismatch']);
  });
});
