// Portkey guardrail configs → Parapet: inline `input_guardrails` / `output_guardrails` and
// `before_request_hooks` / `after_request_hooks` with their checks. Pattern and word checks become
// custom rules, PII / injection / moderation checks detector rules; `deny: false` or `async: true`
// only records (effect allow). The table is in ../README.md.
import type { Rule } from '../../../engine/policy/schema.js';
import {
  escapeRegex,
  isRecord,
  optionalBoolean,
  optionalList,
  optionalRecord,
  optionalString,
  optionalStrings,
  own,
  PlanBuilder,
  piiEntities,
  piiWhen,
  recordAt,
  requireSome,
  type Json,
  type ToolPlan,
} from './common.js';

type Surface = 'input' | 'output';

interface Guard {
  surface: Surface;
  /** What failing the check does at the source: block the request, or only record it. */
  blocks: boolean;
}

const INJECTION_CHECKS = new Set(['promptfoo.guard', 'pillar.scanprompt', 'sydelabs.sydeguard', 'lasso.classify', 'pangea.textguard', 'portkey.promptinjection']);
const MODERATION_CHECKS = new Set(['portkey.moderatecontent', 'mistral.moderatecontent', 'promptfoo.harm', 'openai.moderatecontent']);
const PII_CHECKS = new Set(['portkey.pii', 'promptfoo.pii', 'pillar.scanpii']);
const NO_EQUIVALENT: Record<string, string> = {
  'default.wordcount': 'Parapet has no check on the length of a text in words',
  'default.sentencecount': 'Parapet has no check on the number of sentences',
  'default.charactercount': 'Parapet has no check on the length of a text',
  'default.jsonkeys': 'Parapet checks JSON validity and tool schemas, not the keys of an answer',
  'default.containscode': 'Parapet has no detector for code in a text',
  'default.validurls': 'Parapet does not resolve the links in a text',
  'default.webhook': 'a call to the team\'s own service; Parapet calls no webhook during a decision',
  'default.alluppercase': 'Parapet has no check on letter case',
  'default.modelwhitelist': 'Parapet records the models each agent uses (declared_models) without refusing others',
  'portkey.language': 'Parapet has no language detector',
  'portkey.gibberish': 'Parapet has no gibberish detector',
};

function effectOf(guard: Guard): Rule['effect'] {
  return guard.blocks ? 'block' : 'allow';
}

function recordsOnly(guard: Guard): string {
  return guard.blocks ? '' : ' (the source only records a failed check: effect allow)';
}

function check(plan: PlanBuilder, rawCheckId: string, parameters: Json, path: string, guard: Guard, named = true): void {
  const id = rawCheckId.toLowerCase();
  // Inline checks are keyed by their id, which the path already holds.
  const name = named ? rawCheckId : undefined;
  const label = rawCheckId;
  const surfaces = [guard.surface];
  if (id === 'default.regexmatch') {
    const pattern = optionalString(parameters.rule, `${path}.rule`);
    if (pattern === undefined || pattern === '') {
      plan.unmapped(path, 'check', name, 'the regexMatch check names no rule');
      return;
    }
    // The check passes when the text matches (or, with `not`, when it does not); failing blocks.
    const not = optionalBoolean(parameters.not, `${path}.not`) ?? false;
    plan.customRule(
      path,
      'check',
      name,
      'mapped',
      { kind: 'regex', polarity: not ? 'deny' : 'require', entries: [pattern], surfaces },
      effectOf(guard),
      `regex custom rule (${not ? 'deny: fires when the text matches' : 'require: fires when the text does not match'})${recordsOnly(guard)}`,
    );
    return;
  }
  if (id === 'default.contains') {
    const words = (optionalStrings(parameters.words, `${path}.words`) ?? []).filter((word) => word.trim() !== '');
    const operator = (optionalString(parameters.operator, `${path}.operator`) ?? 'any').toLowerCase();
    if (words.length === 0) {
      plan.unmapped(path, 'check', name, 'the contains check names no words');
      return;
    }
    if (operator === 'none') {
      plan.customRule(path, 'check', name, 'approximate', { kind: 'keyword', polarity: 'deny', entries: words, surfaces }, effectOf(guard), `keyword custom rule: fires when any of the words is present${recordsOnly(guard)}`, 'Portkey matches substrings; Parapet keywords match whole words');
      return;
    }
    plan.customRule(
      path,
      'check',
      name,
      'approximate',
      { kind: 'keyword', polarity: 'require', entries: words, surfaces },
      effectOf(guard),
      `keyword custom rule (require): fires when none of the words is present${recordsOnly(guard)}`,
      operator === 'all' ? 'operator all needs every word; a require rule is satisfied by any one of them' : 'Portkey matches substrings; Parapet keywords match whole words',
    );
    return;
  }
  if (id === 'default.endswith') {
    const suffix = optionalString(parameters.suffix, `${path}.suffix`);
    if (suffix === undefined || suffix === '') {
      plan.unmapped(path, 'check', name, 'the endsWith check names no suffix');
      return;
    }
    plan.customRule(path, 'check', name, 'mapped', { kind: 'regex', polarity: 'require', entries: [`${escapeRegex(suffix)}\\s*$`], surfaces }, effectOf(guard), `regex custom rule (require): the text must end with the suffix${recordsOnly(guard)}`);
    return;
  }
  if (id === 'default.jsonschema') {
    plan.detectorRule(path, 'check', name, 'approximate', { when: { surface: guard.surface, entity: ['SCHEMA.JSON_INVALID', 'SCHEMA.UNPARSEABLE'] }, effect: effectOf(guard), message: 'The text is not valid JSON (imported jsonSchema check).' }, `JSON validity → ${effectOf(guard)}`, 'only whether the text parses as JSON is checked, not the schema; SCHEMA.JSON_INVALID comes from the opt-in detector rails.catalog.valid_json (enable it)');
    return;
  }
  if (PII_CHECKS.has(id)) {
    const categories = optionalStrings(parameters.categories ?? parameters.entities, `${path}.categories`) ?? [];
    const { entities, unknown } = piiEntities(categories);
    const redact = optionalBoolean(parameters.redact, `${path}.redact`) ?? false;
    const effect: Rule['effect'] = redact ? 'mask' : effectOf(guard);
    const exact = categories.length === 0 && id === 'portkey.pii';
    plan.detectorRule(
      path,
      'check',
      name,
      exact ? 'mapped' : 'approximate',
      { when: { surface: guard.surface, ...piiWhen(entities) }, effect, message: 'Personal data (imported PII check).' },
      `${entities.length === 0 ? 'PII.*' : entities.join(', ')} → ${effect}`,
      exact ? null : [id === 'portkey.pii' ? null : `${label} is a hosted classifier; Parapet's PII detectors stand in for it`, unknown.length > 0 ? `categories without a Parapet entity (all PII checked instead): ${unknown.join(', ')}` : null].filter((note) => note !== null).join('; ') || 'categories mapped onto Parapet entities',
    );
    return;
  }
  if (INJECTION_CHECKS.has(id)) {
    plan.detectorRule(path, 'check', name, 'approximate', { when: { surface: guard.surface, entity_prefix: 'INJECTION.', min_score: 0.7 }, effect: effectOf(guard), message: 'Prompt injection (imported check).' }, `INJECTION.* at 0.7 or more → ${effectOf(guard)}`, `${label} is a hosted classifier; Parapet's own injection detectors stand in for it`);
    return;
  }
  if (MODERATION_CHECKS.has(id)) {
    plan.detectorRule(path, 'check', name, 'approximate', { when: { surface: guard.surface, entity_prefix: 'SAFETY.' }, effect: effectOf(guard), message: 'Unsafe content (imported moderation check).' }, `SAFETY.* → ${effectOf(guard)}`, 'a moderation model; Parapet\'s safety lexicon stands in for it (categories differ)');
    return;
  }
  plan.unmapped(path, 'check', name, own(NO_EQUIVALENT, id) ?? `${label} has no equivalent among Parapet's detectors and rules`);
}

/** `input_guardrails: [{ "default.contains": {...}, deny: true, async: false }]`. */
function inlineGuardrails(plan: PlanBuilder, list: unknown[], section: string, surface: Surface): void {
  for (const [index, raw] of list.entries()) {
    const path = `${section}[${index}]`;
    if (typeof raw === 'string') {
      plan.unmapped(path, 'guardrail', raw, 'a guardrail saved in Portkey by id; its checks are not in this file (export its checks inline to import them)');
      continue;
    }
    const entry = recordAt(raw, path);
    const deny = optionalBoolean(entry.deny, `${path}.deny`) ?? false;
    const isAsync = optionalBoolean(entry.async, `${path}.async`) ?? false;
    const guard: Guard = { surface, blocks: deny && !isAsync };
    for (const [checkId, parameters] of Object.entries(entry)) {
      if (['deny', 'async', 'on_fail', 'on_success', 'id', 'name', 'sequential'].includes(checkId)) continue;
      check(plan, checkId, isRecord(parameters) ? parameters : {}, `${path}.${checkId}`, guard, false);
    }
  }
}

/** `before_request_hooks: [{ type: guardrail, id, checks: [{ id, parameters }], deny, async }]`. */
function hooks(plan: PlanBuilder, list: unknown[], section: string, surface: Surface): void {
  for (const [index, raw] of list.entries()) {
    const path = `${section}[${index}]`;
    const entry = recordAt(raw, path);
    const checks = optionalList(entry.checks, `${path}.checks`);
    if (checks === undefined) {
      plan.unmapped(path, 'guardrail', optionalString(entry.id, `${path}.id`), 'a guardrail saved in Portkey by id; its checks are not in this file (export its checks inline to import them)');
      continue;
    }
    const deny = optionalBoolean(entry.deny, `${path}.deny`) ?? false;
    const isAsync = optionalBoolean(entry.async, `${path}.async`) ?? false;
    for (const [at, rawCheck] of checks.entries()) {
      const checkPath = `${path}.checks[${at}]`;
      const item = recordAt(rawCheck, checkPath);
      const checkId = optionalString(item.id, `${checkPath}.id`) ?? '';
      check(plan, checkId, optionalRecord(item.parameters, `${checkPath}.parameters`) ?? {}, checkPath, { surface, blocks: deny && !isAsync });
    }
  }
}

export function mapPortkey(config: Json): ToolPlan {
  const sections = ['input_guardrails', 'output_guardrails', 'before_request_hooks', 'after_request_hooks'];
  requireSome(config, sections, 'portkey');
  const plan = new PlanBuilder('portkey');
  inlineGuardrails(plan, optionalList(config.input_guardrails, 'input_guardrails') ?? [], 'input_guardrails', 'input');
  inlineGuardrails(plan, optionalList(config.output_guardrails, 'output_guardrails') ?? [], 'output_guardrails', 'output');
  hooks(plan, optionalList(config.before_request_hooks, 'before_request_hooks') ?? [], 'before_request_hooks', 'input');
  hooks(plan, optionalList(config.after_request_hooks, 'after_request_hooks') ?? [], 'after_request_hooks', 'output');
  return { tool: 'portkey', items: plan.items, packKey: plan.packKey, suite: null };
}
