// LLM Guard scanner settings (the API's scanners.yml: input_scanners / output_scanners, each a
// `type` with `params`) → Parapet: PII, secrets, injection and toxicity scanners become detector
// rules (thresholds as min_score), word and pattern scanners custom rules. The table is in ../README.md.
import type { Rule } from '../../../engine/policy/schema.js';
import {
  optionalBoolean,
  optionalList,
  optionalNumber,
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

const NO_EQUIVALENT: Record<string, string> = {
  tokenlimit: 'Parapet limits request bodies and detection size, not tokens per prompt',
  language: 'Parapet has no language detector',
  languagesame: 'Parapet has no language detector',
  gibberish: 'Parapet has no gibberish detector',
  code: 'Parapet has no detector for code in a text',
  bancode: 'Parapet has no detector for code in a text',
  sentiment: 'Parapet has no sentiment detector',
  emotiondetection: 'Parapet has no emotion detector',
  bias: 'Parapet has no bias detector',
  readingtime: 'Parapet has no check on the length of an answer',
  relevance: 'Parapet does not score an answer\'s relevance to the prompt on live traffic (evaluations do, with a judge)',
  norefusal: 'refusals are scored in evaluations (scorer refusal), not on live answers',
  norefusallight: 'refusals are scored in evaluations (scorer refusal), not on live answers',
  maliciousurls: 'Parapet does not classify links; exfiltration links are checked by the injection detectors',
  urlreachability: 'Parapet does not resolve the links in a text',
  json: 'Parapet checks JSON validity through the opt-in rails.catalog.valid_json only, and cannot repair it',
  deanonymize: 'Parapet restores nothing in answers: tokenize replaces personal data and the tokens stay',
};

function threshold(params: Json, path: string): number | undefined {
  const value = optionalNumber(params.threshold, `${path}.params.threshold`);
  return value === undefined ? undefined : Math.min(1, Math.max(0, value));
}

function scanner(plan: PlanBuilder, entry: Json, path: string, surface: Surface): void {
  const type = optionalString(entry.type, `${path}.type`) ?? '';
  const params = optionalRecord(entry.params, `${path}.params`) ?? {};
  const key = type.toLowerCase();
  const minScore = threshold(params, path);
  const scored = minScore === undefined ? {} : { min_score: minScore };
  const scoreNote = minScore === undefined ? null : `threshold ${minScore} kept as min_score; Parapet's detectors score differently`;
  switch (key) {
    case 'anonymize':
    case 'sensitive': {
      const names = optionalStrings(params.entity_types, `${path}.params.entity_types`) ?? [];
      const { entities, unknown, needsNer } = piiEntities(names);
      const redact = key === 'anonymize' || (optionalBoolean(params.redact, `${path}.params.redact`) ?? false);
      const effect: Rule['effect'] = key === 'anonymize' ? 'tokenize' : redact ? 'mask' : 'block';
      const notes = [scoreNote, unknown.length > 0 ? `entity types without a Parapet equivalent (left out): ${unknown.join(', ')}` : null, needsNer ? 'some entities come from the opt-in detector pii.ner (enable it)' : null].filter((note) => note !== null);
      plan.detectorRule(path, 'scanner', type, notes.length === 0 ? 'mapped' : 'approximate', { when: { surface, ...piiWhen(entities), ...scored }, effect, message: `Personal data (imported ${type} scanner).` }, `${entities.length === 0 ? 'PII.*' : entities.join(', ')} → ${effect}`, notes.length === 0 ? null : notes.join('; '));
      return;
    }
    case 'secrets': {
      const mode = optionalString(params.redact_mode, `${path}.params.redact_mode`);
      const effect: Rule['effect'] = mode === undefined ? 'block' : 'mask';
      plan.detectorRule(path, 'scanner', type, 'mapped', { when: { surface, entity_prefix: 'SECRET.' }, effect, message: 'A secret (imported Secrets scanner).' }, `SECRET.* → ${effect}`);
      return;
    }
    case 'promptinjection':
      plan.detectorRule(path, 'scanner', type, 'approximate', { when: { surface, entity_prefix: 'INJECTION.', min_score: minScore ?? 0.7 }, effect: 'block', message: 'Prompt injection (imported PromptInjection scanner).' }, `INJECTION.* at ${minScore ?? 0.7} or more → block`, 'LLM Guard runs a classifier model; Parapet\'s injection detectors stand in for it (scores differ)');
      return;
    case 'invisibletext':
      plan.detectorRule(path, 'scanner', type, 'mapped', { when: { surface, entity: ['INJECTION.HIDDEN_CHARACTERS', 'INJECTION.HIDDEN_INSTRUCTION'] }, effect: 'block', message: 'Invisible characters (imported InvisibleText scanner).' }, 'INJECTION.HIDDEN_CHARACTERS, INJECTION.HIDDEN_INSTRUCTION → block');
      return;
    case 'toxicity':
      plan.detectorRule(path, 'scanner', type, 'approximate', { when: { surface, entity_prefix: 'SAFETY.', ...scored }, effect: 'block', message: 'Toxic content (imported Toxicity scanner).' }, 'SAFETY.* → block', ['a classifier model there; Parapet\'s safety lexicon stands in for it', scoreNote].filter((note) => note !== null).join('; '));
      return;
    case 'factualconsistency':
      plan.detectorRule(path, 'scanner', type, 'approximate', { when: { surface: 'output', entity_prefix: 'INTEGRITY.' }, effect: 'escalate', message: 'The answer contradicts its context (imported FactualConsistency scanner).' }, 'INTEGRITY.* on output → escalate', 'an entailment model there; Parapet\'s answer-integrity detectors check contradictions and citations against the context');
      return;
    case 'bansubstrings': {
      const words = (optionalStrings(params.substrings, `${path}.params.substrings`) ?? []).filter((word) => word.trim() !== '');
      if (words.length === 0) {
        plan.unmapped(path, 'scanner', type, 'BanSubstrings names no substrings');
        return;
      }
      const matchType = optionalString(params.match_type, `${path}.params.match_type`) ?? 'str';
      const containsAll = optionalBoolean(params.contains_all, `${path}.params.contains_all`) ?? false;
      const redact = optionalBoolean(params.redact, `${path}.params.redact`) ?? false;
      const caseSensitive = optionalBoolean(params.case_sensitive, `${path}.params.case_sensitive`) ?? false;
      const notes = [matchType === 'word' ? null : 'match_type str matches inside words; Parapet keywords match whole words', containsAll ? 'contains_all needs every substring; the rule fires on any one' : null].filter((note) => note !== null);
      plan.customRule(path, 'scanner', type, notes.length === 0 ? 'mapped' : 'approximate', { kind: 'keyword', polarity: 'deny', entries: words, surfaces: [surface], case_sensitive: caseSensitive }, redact ? 'mask' : 'block', `keyword custom rule → ${redact ? 'mask' : 'block'}`, notes.length === 0 ? null : notes.join('; '));
      return;
    }
    case 'bancompetitors': {
      const names = (optionalStrings(params.competitors, `${path}.params.competitors`) ?? []).filter((word) => word.trim() !== '');
      if (names.length === 0) {
        plan.unmapped(path, 'scanner', type, 'BanCompetitors names no competitors');
        return;
      }
      const redact = optionalBoolean(params.redact, `${path}.params.redact`) ?? false;
      plan.customRule(path, 'scanner', type, 'approximate', { kind: 'keyword', polarity: 'deny', entries: names, surfaces: [surface] }, redact ? 'mask' : 'block', `keyword custom rule over the competitor names → ${redact ? 'mask' : 'block'}`, 'the names are matched as words; LLM Guard finds organisations with a named-entity model');
      return;
    }
    case 'bantopics': {
      const topics = (optionalStrings(params.topics, `${path}.params.topics`) ?? []).filter((word) => word.trim() !== '');
      if (topics.length === 0) {
        plan.unmapped(path, 'scanner', type, 'BanTopics names no topics');
        return;
      }
      plan.customRule(path, 'scanner', type, 'approximate', { kind: 'keyword', polarity: 'deny', entries: topics, surfaces: [surface] }, 'block', 'keyword custom rule over the topic names → block', 'the topic names are matched as words; LLM Guard classifies the text against the topics (zero-shot)');
      return;
    }
    case 'regex': {
      const patterns = (optionalStrings(params.patterns, `${path}.params.patterns`) ?? []).filter((pattern) => pattern !== '');
      if (patterns.length === 0) {
        plan.unmapped(path, 'scanner', type, 'Regex names no patterns');
        return;
      }
      // is_blocked true: a match is bad; false: the text must match one of the patterns.
      const blocked = optionalBoolean(params.is_blocked, `${path}.params.is_blocked`) ?? true;
      const redact = optionalBoolean(params.redact, `${path}.params.redact`) ?? false;
      const matchType = optionalString(params.match_type, `${path}.params.match_type`) ?? 'search';
      const effect: Rule['effect'] = blocked && redact ? 'mask' : 'block';
      plan.customRule(
        path,
        'scanner',
        type,
        matchType === 'search' ? 'mapped' : 'approximate',
        { kind: 'regex', polarity: blocked ? 'deny' : 'require', entries: patterns, surfaces: [surface] },
        effect,
        `regex custom rule (${blocked ? 'deny' : 'require'}) → ${effect}`,
        matchType === 'search' ? null : `match_type ${matchType} anchors the match; Parapet searches the whole text`,
      );
      return;
    }
    default:
      plan.unmapped(path, 'scanner', type, own(NO_EQUIVALENT, key) ?? `${type || '(no type)'} has no equivalent among Parapet's detectors and rules`);
  }
}

export function mapLlmGuard(config: Json): ToolPlan {
  requireSome(config, ['input_scanners', 'output_scanners'], 'llm-guard');
  const plan = new PlanBuilder('llm-guard');
  for (const [section, surface] of [['input_scanners', 'input'], ['output_scanners', 'output']] as const) {
    for (const [index, raw] of (optionalList(config[section], section) ?? []).entries()) scanner(plan, recordAt(raw, `${section}[${index}]`), `${section}[${index}]`, surface);
  }
  return { tool: 'llm-guard', items: plan.items, packKey: plan.packKey, suite: null };
}
