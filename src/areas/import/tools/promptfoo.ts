// promptfoo configuration → Parapet: `tests` (vars rendered into the first prompt, assertions as the
// `expected` keys scorers read) become the cases of an evaluation suite; `redteam.plugins` and
// `strategies` become probe classes and mutations of a red-team campaign, which is not a stored
// resource, so the plan gives the campaign body and apply records nothing for them. The table is
// in ../README.md.
import { compileSafeRegex } from '../../custom-rules/safe-regex.js';
import { Problem } from '../../../infra/http/problems.js';
import { checkCase } from '../../eval/suites/case-checks.js';
import type { AddCaseBody } from '../../eval/suites/schemas.js';
import {
  escapeRegex,
  excerpt,
  isRecord,
  optionalList,
  optionalRecord,
  optionalString,
  own,
  PlanBuilder,
  recordAt,
  requireSome,
  snake,
  type Json,
  type Suggested,
  type ToolPlan,
} from './common.js';

/** promptfoo red-team plugins → probe classes of the library (catalogue/redteam/probes.yaml). */
const PLUGIN_CLASSES: Record<string, { probeClass: string; exact: boolean }> = {
  'prompt-extraction': { probeClass: 'prompt_extraction', exact: true },
  'system-prompt-override': { probeClass: 'direct_injection', exact: false },
  hijacking: { probeClass: 'direct_injection', exact: false },
  'indirect-prompt-injection': { probeClass: 'indirect_injection', exact: true },
  pii: { probeClass: 'pii_elicitation', exact: true },
  'pii:direct': { probeClass: 'pii_elicitation', exact: true },
  'pii:session': { probeClass: 'pii_elicitation', exact: false },
  'pii:social': { probeClass: 'pii_elicitation', exact: false },
  'pii:api-db': { probeClass: 'pii_elicitation', exact: false },
  'harmful:privacy': { probeClass: 'pii_elicitation', exact: false },
  'sql-injection': { probeClass: 'destructive_sql', exact: false },
  'shell-injection': { probeClass: 'destructive_shell', exact: false },
  ssrf: { probeClass: 'tool_host_outside_constraints', exact: false },
  'excessive-agency': { probeClass: 'tool_without_grant', exact: false },
  rbac: { probeClass: 'tool_without_grant', exact: false },
  bfla: { probeClass: 'tool_without_grant', exact: false },
  bola: { probeClass: 'tool_without_grant', exact: false },
  'agentic:memory-poisoning': { probeClass: 'memory_poisoning', exact: true },
};

/** promptfoo strategies → the library's mutation classes (src/areas/redteam/mutations.ts). */
const STRATEGY_MUTATIONS: Record<string, string> = {
  base64: 'base64',
  hex: 'hex',
  rot13: 'rot13',
  leetspeak: 'leetspeak',
  homoglyph: 'homoglyphs',
  multilingual: 'language_switch',
  jailbreak: 'persona_wrapper',
  'jailbreak:composite': 'persona_wrapper',
  'prompt-injection': 'payload_splitting',
};

const ASSERTION_DROPPED: Record<string, string> = {
  'not-contains': 'no scorer asserts that a text is absent',
  'not-icontains': 'no scorer asserts that a text is absent',
  'not-regex': 'no scorer asserts that a pattern does not match',
  'not-equals': 'no scorer asserts inequality',
  javascript: 'code assertions do not run in Parapet',
  python: 'code assertions do not run in Parapet',
  similar: 'no embedding similarity scorer',
  levenshtein: 'no edit-distance scorer',
  'rouge-n': 'no ROUGE scorer',
  bleu: 'no BLEU scorer',
  webhook: 'a call to the team\'s own service; scorers call none',
  perplexity: 'no perplexity scorer',
};

interface Assertion {
  type: string;
  value: unknown;
  threshold?: number;
}

function assertionsOf(value: unknown, path: string): Assertion[] {
  return (optionalList(value, path) ?? []).map((raw, index) => {
    const entry = recordAt(raw, `${path}[${index}]`);
    const type = optionalString(entry.type, `${path}[${index}].type`) ?? '';
    const threshold = typeof entry.threshold === 'number' ? entry.threshold : undefined;
    return { type, value: entry.value, ...(threshold === undefined ? {} : { threshold }) };
  });
}

/** `{{ name }}` replaced by the var's value; anything else (filters, loops) is left as written. */
export function render(template: string, vars: Json): { text: string; complete: boolean } {
  let out = '';
  let complete = true;
  let at = 0;
  while (at < template.length) {
    const open = template.indexOf('{{', at);
    if (open === -1) break;
    const close = template.indexOf('}}', open + 2);
    if (close === -1) break;
    const name = template.slice(open + 2, close).trim();
    out += template.slice(at, open);
    if (Object.hasOwn(vars, name)) {
      const value = vars[name];
      out += typeof value === 'string' ? value : JSON.stringify(value);
    } else {
      out += template.slice(open, close + 2);
      complete = false;
    }
    at = close + 2;
  }
  return { text: out + template.slice(at), complete };
}

function regexCompiles(pattern: string): boolean {
  try {
    compileSafeRegex(pattern, { caseSensitive: true });
    return true;
  } catch {
    return false;
  }
}

/** The case a test makes, what maps exactly, approximately, and what is dropped. */
function caseOf(assertions: Assertion[], vars: Json): { expected: Json; context: Json; approximate: string[]; dropped: string[]; scorers: string[] } {
  const expected: Json = {};
  const context: Json = {};
  const contains: string[] = [];
  const approximate: string[] = [];
  const dropped: string[] = [];
  const scorers = new Set<string>();
  for (const assertion of assertions) {
    const value = assertion.value;
    const text = typeof value === 'string' ? value : null;
    const list = Array.isArray(value) && value.every((item) => typeof item === 'string') ? (value as string[]) : text === null ? null : [text];
    switch (assertion.type) {
      case 'equals':
        if (text === null) dropped.push('equals (not a text value)');
        else {
          expected.output = text;
          scorers.add('exact');
        }
        break;
      case 'icontains':
      case 'icontains-all':
      case 'contains':
      case 'contains-all':
      case 'contains-any':
      case 'icontains-any':
        if (list === null) dropped.push(`${assertion.type} (not a text value)`);
        else {
          contains.push(...list);
          scorers.add('contains');
          if (!assertion.type.startsWith('i')) approximate.push(`${assertion.type} is case-sensitive; the contains scorer ignores case unless the run sets case_sensitive`);
          if (assertion.type.endsWith('-any')) approximate.push(`${assertion.type} needs one value; the contains scorer needs all unless the run sets all: false`);
        }
        break;
      case 'starts-with':
        if (text === null) dropped.push('starts-with (not a text value)');
        else {
          expected.regex = `^${escapeRegex(text)}`;
          scorers.add('regex');
        }
        break;
      case 'regex':
        if (text === null || !regexCompiles(text)) dropped.push('regex (not an RE2 pattern)');
        else {
          expected.regex = text;
          scorers.add('regex');
        }
        break;
      case 'is-json':
        expected.json_schema = isRecord(value) ? value : {};
        scorers.add('json_schema');
        break;
      case 'llm-rubric':
      case 'model-graded-closedqa':
      case 'g-eval':
        if (text === null) dropped.push(`${assertion.type} (not a text value)`);
        else {
          context.rubric = text;
          scorers.add('judge');
          approximate.push(`${assertion.type}: the judge scorer takes its rubric per run (params.rubric); the rubric is kept in the case context`);
        }
        break;
      case 'latency':
      case 'cost':
        context[`max_${assertion.type === 'latency' ? 'ms' : 'usd'}`] = assertion.threshold ?? null;
        scorers.add(assertion.type);
        approximate.push(`${assertion.type}: its threshold is a run parameter (${assertion.type === 'latency' ? 'max_ms' : 'max_usd'}); kept in the case context`);
        break;
      default:
        dropped.push(`${assertion.type || '(no type)'} (${own(ASSERTION_DROPPED, assertion.type) ?? 'no equivalent scorer'})`);
    }
  }
  if (contains.length > 0) expected.contains = [...new Set(contains)];
  if (Object.keys(vars).length > 0) context.vars = vars;
  return { expected, context, approximate, dropped, scorers: [...scorers].sort() };
}

function promptTemplates(config: Json): { template: string | null; notes: string[] } {
  const prompts = config.prompts;
  const list = typeof prompts === 'string' ? [prompts] : (optionalList(prompts, 'prompts') ?? []);
  const texts: string[] = [];
  const notes: string[] = [];
  for (const [index, raw] of list.entries()) {
    const text = typeof raw === 'string' ? raw : isRecord(raw) ? optionalString(raw.raw, `prompts[${index}].raw`) : undefined;
    if (text === undefined || text.startsWith('file://')) notes.push(`prompts[${index}] is kept in another file; its text cannot be read from this one`);
    else texts.push(text);
  }
  if (texts.length > 1) notes.push(`promptfoo runs every test with each of the ${texts.length} prompts; a case holds one input, so the first prompt is used`);
  return { template: texts[0] ?? null, notes };
}

function suiteKeyOf(description: string | undefined): string {
  const slug = description === undefined ? '' : snake(description, 40).replaceAll('_', '-');
  return slug === '' ? 'import-promptfoo' : `import-promptfoo-${slug}`;
}

export function mapPromptfoo(config: Json): ToolPlan {
  requireSome(config, ['tests', 'redteam'], 'promptfoo');
  const plan = new PlanBuilder('promptfoo');
  const description = optionalString(config.description, 'description');
  const suiteKey = suiteKeyOf(description);
  const { template, notes: promptNotes } = promptTemplates(config);
  const defaults = optionalRecord(config.defaultTest, 'defaultTest');
  const defaultAssertions = assertionsOf(defaults?.assert, 'defaultTest.assert');
  const defaultVars = optionalRecord(defaults?.vars, 'defaultTest.vars') ?? {};
  if (typeof config.tests === 'string') plan.unmapped('tests', 'tests', undefined, 'the tests are kept in another file; import that file\'s tests as the tests of a configuration');
  for (const [index, raw] of (typeof config.tests === 'string' ? [] : (optionalList(config.tests, 'tests') ?? [])).entries()) {
    const path = `tests[${index}]`;
    const test = recordAt(raw, path);
    const name = optionalString(test.description, `${path}.description`);
    const vars = { ...defaultVars, ...(optionalRecord(test.vars, `${path}.vars`) ?? {}) };
    const rendered = template === null ? { text: Object.entries(vars).map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`).join('\n'), complete: false } : render(template, vars);
    const { expected, context, approximate, dropped, scorers } = caseOf([...defaultAssertions, ...assertionsOf(test.assert, `${path}.assert`)], vars);
    const notes = [...(template === null ? ['no prompt text in this file: the input is the vars, one per line'] : []), ...promptNotes, ...(rendered.complete || template === null ? [] : ['the prompt uses template syntax beyond {{ var }}; it is kept as written']), ...approximate, ...dropped.map((item) => `dropped: ${item}`)];
    const id = plan.id(path, name === undefined ? undefined : excerpt(name, 60));
    const caseKey = `tests-${index}`;
    const body: AddCaseBody & { key: string } = {
      key: caseKey,
      input: { text: rendered.text === '' ? '(empty)' : rendered.text },
      expected,
      context: { ...context, imported_from: id, ...(name === undefined ? {} : { description: name }) },
      labels: ['imported', 'promptfoo'],
      source: 'file',
    };
    try {
      checkCase(body);
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      plan.unmapped(path, 'test', name === undefined ? undefined : excerpt(name, 60), `the test does not fit an evaluation case: ${error.detail}`.slice(0, 1000));
      continue;
    }
    plan.add({
      id,
      source_path: path,
      kind: 'test',
      status: notes.length === 0 ? 'mapped' : 'approximate',
      target: { kind: 'eval_case', key: `${suiteKey}/${caseKey}` },
      how: `case ${caseKey} of suite ${suiteKey}; scorers ${scorers.length === 0 ? 'the run\'s defaults' : scorers.join(', ')}`,
      why: notes.length === 0 ? null : notes.join('; ').slice(0, 2000),
      effect: { customRules: [], packRules: [], cases: [body] },
    });
  }
  for (const [index] of (optionalList(config.providers, 'providers') ?? []).entries()) {
    plan.unmapped(`providers[${index}]`, 'provider', undefined, 'a run names its target when it starts (POST /api/eval/runs: guard, model or http); the suite stores cases only');
  }
  redteam(plan, optionalRecord(config.redteam, 'redteam'));
  return {
    tool: 'promptfoo',
    items: plan.items,
    packKey: plan.packKey,
    suite: plan.items.some((item) => item.effect !== null && item.effect.cases.length > 0) ? { key: suiteKey, name: description ?? suiteKey, description: `imported from a promptfoo configuration${description === undefined ? '' : `: ${excerpt(description, 200)}`}` } : null,
  };
}

function redteam(plan: PlanBuilder, config: Json | undefined): void {
  if (config === undefined) return;
  const plugins = (optionalList(config.plugins, 'redteam.plugins') ?? []).map((raw, index) => {
    const path = `redteam.plugins[${index}]`;
    return { path, id: typeof raw === 'string' ? raw : (optionalString(recordAt(raw, path).id, `${path}.id`) ?? '') };
  });
  const strategies = (optionalList(config.strategies, 'redteam.strategies') ?? []).map((raw, index) => {
    const path = `redteam.strategies[${index}]`;
    return { path, id: typeof raw === 'string' ? raw : (optionalString(recordAt(raw, path).id, `${path}.id`) ?? '') };
  });
  const classes = [...new Set(plugins.map((plugin) => own(PLUGIN_CLASSES, plugin.id)?.probeClass).filter((value) => value !== undefined))].sort();
  const adaptive = strategies.some((strategy) => own(STRATEGY_MUTATIONS, strategy.id) !== undefined);
  const campaign: Suggested = { method: 'POST', path: '/api/redteam/campaigns', body: { agent: '{agent}', name: 'imported from promptfoo', probes: classes, adaptive } };
  const why = 'a probe selection is not a stored resource: apply records nothing; post the campaign body with the agent to probe';
  for (const plugin of plugins) {
    const mapping = own(PLUGIN_CLASSES, plugin.id);
    if (mapping === undefined) {
      plan.unmapped(plugin.path, 'redteam_plugin', plugin.id, `the probe library has no class for ${plugin.id || '(no id)'}`);
      continue;
    }
    const how = `probe class ${mapping.probeClass}${mapping.exact ? '' : ' (the nearest class: the library\'s probes differ from the plugin\'s generated ones)'}`;
    plan.planOnly(plugin.path, 'redteam_plugin', plugin.id, { kind: 'redteam_campaign', key: mapping.probeClass }, how, campaign, why);
  }
  for (const strategy of strategies) {
    const mutation = own(STRATEGY_MUTATIONS, strategy.id);
    if (mutation === undefined) {
      plan.unmapped(strategy.path, 'redteam_strategy', strategy.id, `the library has no mutation for ${strategy.id || '(no id)'}`);
      continue;
    }
    plan.planOnly(strategy.path, 'redteam_strategy', strategy.id, { kind: 'redteam_campaign', key: `mutation:${mutation}` }, `mutation ${mutation}, applied by an adaptive campaign (adaptive: true) to blocked attack probes`, campaign, `${why}; an adaptive campaign tries every mutation class, one cannot be chosen alone`);
  }
}
