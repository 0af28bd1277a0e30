// The classification rules (catalogue/risk-classification.yaml) and the pure function that applies
// them: no clock, no database, so the same inputs always give the same answer.
import { readFileSync } from 'node:fs';
import Value from 'typebox/value';
import { parse } from 'yaml';
import { ClassificationRulesFile, EU_AI_ACT_CLASSES, type Classification, type ClassificationRules, type EuAiActClass } from './schemas.js';

export type ClassificationInputs = Classification['inputs'];

export class ClassificationRulesError extends Error {}

/** Reads and checks the rules file; a rule or question that names an unknown fact fails here, not at request time. */
export function loadClassificationRules(file: string): ClassificationRules {
  const value: unknown = parse(readFileSync(file, 'utf8'));
  const errors = [...Value.Errors(ClassificationRulesFile, value)].slice(0, 5).map((error) => `${error.instancePath || '/'} ${error.message}`);
  if (errors.length > 0) throw new ClassificationRulesError(`${file}: ${errors.join('; ')}`);
  const rules = value as ClassificationRules;
  const keys = new Set<string>();
  for (const rule of rules.rules) {
    if (keys.has(rule.key)) throw new ClassificationRulesError(`${file}: rule ${rule.key} appears twice`);
    keys.add(rule.key);
  }
  const known = new Set([...FACTS, ...EU_AI_ACT_CLASSES.map((name) => `class.${name}`), ...[...keys].map((key) => `rule.${key}`)]);
  for (const question of rules.open_questions) {
    const unknown = question.when.filter((fact) => !known.has(fact));
    if (unknown.length > 0) throw new ClassificationRulesError(`${file}: question ${question.key} names unknown facts ${unknown.join(', ')}`);
  }
  return rules;
}

const FACTS = [
  'purpose_missing',
  'no_traffic',
  'personal_data_seen',
  'personal_data_undeclared',
  'health_data',
  'secrets_seen',
  'blocked_calls',
  'undeclared_tools_used',
  'tier_above_class',
] as const;

/** Lower case, every run of non-letters and non-digits one space: "screen_candidates" → "screen candidates". */
function words(text: string): string {
  return ` ${text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim()} `;
}

const SUFFIXES = ['', 's', 'es', 'ing', 'ed', 'er', 'ers', 'ment'];

/** Whether `phrase` appears in `text` as whole words, optionally with one inflection suffix. */
function mentions(text: string, phrase: string): boolean {
  const haystack = words(text);
  const needle = words(phrase).trim();
  if (needle === '') return false;
  return SUFFIXES.some((suffix) => haystack.includes(` ${needle}${suffix} `));
}

const dataClass = (value: string): string => value.toLowerCase().replace(/[\s-]+/g, '_');

const PERSONAL_DATA_CLASSES = ['pii', 'personal', 'personal_data', 'customer_data', 'contact_details', 'employee_data', 'candidate_data', 'health', 'biometric', 'financial'];
const HEALTH_DATA_CLASSES = ['health', 'health_data', 'medical', 'medical_records', 'phi'];
const MEDICAL_ENTITIES = ['PII.US_MRN', 'PII.UK_NHS', 'PII.MEDICAL_LICENSE'];

/** Inputs in a canonical form: sorted, duplicates dropped, so that their order never changes the answer. */
export function canonicalInputs(inputs: ClassificationInputs): ClassificationInputs {
  const sorted = (values: string[]) => [...new Set(values)].sort();
  return {
    purpose: inputs.purpose === null || inputs.purpose.trim() === '' ? null : inputs.purpose,
    data_classes: sorted(inputs.data_classes),
    declared_tools: sorted(inputs.declared_tools),
    risk_tier: inputs.risk_tier,
    observed: {
      window_days: inputs.observed.window_days,
      decisions: inputs.observed.decisions,
      tools_used: sorted(inputs.observed.tools_used),
      entity_types: sorted(inputs.observed.entity_types),
      blocked_calls: inputs.observed.blocked_calls,
    },
  };
}

export function classify(agent: string, rules: ClassificationRules, raw: ClassificationInputs): Classification {
  const inputs = canonicalInputs(raw);
  const tools = [...new Set([...inputs.declared_tools, ...inputs.observed.tools_used])].sort();
  const classes = new Set(inputs.data_classes.map(dataClass));
  const reasons: Classification['reasons'] = [];
  for (const rule of rules.rules) {
    const evidence: string[] = [];
    for (const phrase of rule.match.purpose ?? []) {
      if (inputs.purpose !== null && mentions(inputs.purpose, phrase)) evidence.push(`purpose mentions "${phrase}"`);
    }
    for (const name of rule.match.data_classes ?? []) {
      if (classes.has(dataClass(name))) evidence.push(`declares data class ${dataClass(name)}`);
    }
    for (const phrase of rule.match.tools ?? []) {
      for (const tool of tools) {
        if (!mentions(tool, phrase)) continue;
        const how = inputs.declared_tools.includes(tool) ? 'declares' : 'was seen using';
        evidence.push(`${how} tool ${tool}`);
      }
    }
    for (const prefix of rule.match.entities ?? []) {
      for (const entity of inputs.observed.entity_types) if (entity.startsWith(prefix)) evidence.push(`traffic showed entity type ${entity}`);
    }
    if (evidence.length > 0) reasons.push({ rule: rule.key, ref: rule.ref, class: rule.class, evidence: [...new Set(evidence)] });
  }
  const rank = (name: EuAiActClass) => EU_AI_ACT_CLASSES.indexOf(name);
  const found = reasons.reduce<EuAiActClass>((strictest, reason) => (rank(reason.class) < rank(strictest) ? reason.class : strictest), 'minimal');
  if (reasons.length === 0) {
    reasons.push({ rule: 'default.minimal', ref: 'Art. 6, Art. 50', class: 'minimal', evidence: ['no rule of catalogue/risk-classification.yaml matched the inputs'] });
  }

  const personalSeen = inputs.observed.entity_types.some((entity) => entity.startsWith('PII.'));
  const facts = new Set<string>([`class.${found}`, ...reasons.map((reason) => `rule.${reason.rule}`)]);
  if (inputs.purpose === null) facts.add('purpose_missing');
  if (inputs.observed.decisions === 0) facts.add('no_traffic');
  if (personalSeen) facts.add('personal_data_seen');
  if (personalSeen && !PERSONAL_DATA_CLASSES.some((name) => classes.has(name))) facts.add('personal_data_undeclared');
  if (HEALTH_DATA_CLASSES.some((name) => classes.has(name)) || inputs.observed.entity_types.some((entity) => MEDICAL_ENTITIES.includes(entity))) facts.add('health_data');
  if (inputs.observed.entity_types.some((entity) => entity.startsWith('SECRET.'))) facts.add('secrets_seen');
  if (inputs.observed.blocked_calls > 0) facts.add('blocked_calls');
  if (inputs.observed.tools_used.some((tool) => !inputs.declared_tools.includes(tool))) facts.add('undeclared_tools_used');
  if ((inputs.risk_tier === 'high' || inputs.risk_tier === 'critical') && (found === 'minimal' || found === 'limited')) facts.add('tier_above_class');

  const openQuestions = rules.open_questions
    .filter((question) => question.when.every((fact) => facts.has(fact)))
    .map((question) => ({ key: question.key, question: question.question }));
  return { agent, class: found, reasons, open_questions: openQuestions, inputs, rules_version: rules.version };
}
