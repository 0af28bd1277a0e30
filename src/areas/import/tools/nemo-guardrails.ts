// NeMo Guardrails → Parapet: config.yml `models`, `rails.input.flows` / `rails.output.flows` (the
// library's built-in flows become detector rules on input or output), `prompts` (the self-check
// prompts are carried by the rules of their flows), `instructions`; Colang flows in .co files are
// named and left unmapped (Parapet runs no Colang). The table is in ../README.md.
import type { Rule } from '../../../engine/policy/schema.js';
import {
  excerpt,
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
  upstreamOf,
  type Json,
  type ToolPlan,
} from './common.js';

type Surface = 'input' | 'output';

interface FlowMapping {
  status: 'mapped' | 'approximate';
  rule: (surface: Surface, entities: string[]) => Omit<Rule, 'id'>;
  how: string;
  why: string | null;
  /** Sensitive-data flows narrow to the entities named in rails.config.sensitive_data_detection. */
  pii?: boolean;
}

const INJECTION: FlowMapping = {
  status: 'approximate',
  rule: (surface) => ({ when: { surface, entity_prefix: 'INJECTION.', min_score: 0.7 }, effect: 'block', message: 'Jailbreak or prompt injection (imported rail).' }),
  how: 'INJECTION.* at 0.7 or more → block',
  why: 'NeMo scores jailbreaks with its own heuristics or model; Parapet\'s injection detectors stand in for them',
};
const SAFETY: FlowMapping = {
  status: 'approximate',
  rule: (surface) => ({ when: { surface, entity_prefix: 'SAFETY.' }, effect: 'block', message: 'Unsafe content (imported rail).' }),
  how: 'SAFETY.* → block',
  why: 'a safety model judges there; Parapet\'s safety lexicon stands in for it (categories differ)',
};
const SELF_CHECK_INPUT: FlowMapping = {
  status: 'approximate',
  rule: (surface) => ({ when: { surface, entity_prefix: ['INJECTION.', 'SAFETY.'], min_score: 0.7 }, effect: 'block', message: 'The input breaks the usage policy (imported self check input).' }),
  how: 'INJECTION.* and SAFETY.* at 0.7 or more → block',
  why: 'an LLM asks itself whether the message breaks the policy in its prompt; Parapet\'s deterministic detectors check for injection and unsafe content instead',
};
const SELF_CHECK_OUTPUT: FlowMapping = {
  status: 'approximate',
  rule: (surface) => ({ when: { surface, entity_prefix: ['SAFETY.', 'PII.', 'SECRET.'] }, effect: 'block', message: 'The answer breaks the usage policy (imported self check output).' }),
  how: 'SAFETY.*, PII.* and SECRET.* → block',
  why: 'an LLM asks itself whether the answer breaks the policy in its prompt; Parapet\'s deterministic detectors check for unsafe content, personal data and secrets instead',
};
const FACTS: FlowMapping = {
  status: 'approximate',
  rule: (surface) => ({ when: { surface, entity_prefix: 'INTEGRITY.' }, effect: 'escalate', message: 'The answer is not supported by its sources (imported fact check).' }),
  how: 'INTEGRITY.* → escalate',
  why: 'NeMo asks an LLM whether the answer follows from the retrieved chunks; Parapet\'s answer-integrity detectors check contradictions and citations against the context',
};
const sensitive = (effect: Rule['effect']): FlowMapping => ({
  status: 'mapped',
  rule: (surface, entities) => ({ when: { surface, ...piiWhen(entities) }, effect, message: `Personal data (imported sensitive data rail, ${effect}).` }),
  how: `PII → ${effect}`,
  why: null,
  pii: true,
});

/** The built-in flows of the library, by name. */
const FLOWS: Record<string, FlowMapping> = {
  'self check input': SELF_CHECK_INPUT,
  'self check output': SELF_CHECK_OUTPUT,
  'jailbreak detection heuristics': INJECTION,
  'jailbreak detection model': INJECTION,
  'jailbreak detection': INJECTION,
  'llama guard check input': SAFETY,
  'llama guard check output': SAFETY,
  'content safety check input': SAFETY,
  'content safety check output': SAFETY,
  'activefence moderation on input': SAFETY,
  'activefence moderation on output': SAFETY,
  'self check facts': FACTS,
  'alignscore check facts': FACTS,
  'self check hallucination': FACTS,
  'mask sensitive data on input': sensitive('mask'),
  'mask sensitive data on output': sensitive('mask'),
  'mask sensitive data on retrieval': sensitive('mask'),
  'detect sensitive data on input': sensitive('block'),
  'detect sensitive data on output': sensitive('block'),
};

/** Prompt tasks and the flow whose rule carries them. */
const PROMPT_FLOWS: Record<string, string> = {
  self_check_input: 'self check input',
  self_check_output: 'self check output',
  self_check_facts: 'self check facts',
  self_check_hallucination: 'self check hallucination',
};

/** `content safety check input $model=content_safety` → `content safety check input`. */
function flowName(text: string): string {
  const dollar = text.indexOf('$');
  return (dollar === -1 ? text : text.slice(0, dollar)).trim().toLowerCase();
}

/** Flow names declared in a Colang file (`define flow x` in 1.0, `flow x` in 2.x), line by line. */
export function colangFlows(text: string): string[] {
  const flows: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const name = line.startsWith('define flow ') ? line.slice('define flow '.length) : line.startsWith('flow ') ? line.slice('flow '.length) : null;
    if (name !== null && name.trim() !== '') flows.push(excerpt(name.trim().replace(/:$/, ''), 100));
    if (flows.length >= 500) break;
  }
  return flows;
}

export interface NemoSource {
  config: Json;
  /** Other YAML files of the configuration (prompts.yml …), parsed. */
  yaml: Array<{ name: string; value: Json }>;
  /** Colang files by name. */
  colang: Array<{ name: string; text: string }>;
}

export function mapNemo(source: NemoSource): ToolPlan {
  const { config } = source;
  requireSome(config, ['models', 'rails', 'prompts', 'instructions'], 'nemo-guardrails');
  const plan = new PlanBuilder('nemo-guardrails');
  for (const [index, raw] of (optionalList(config.models, 'models') ?? []).entries()) {
    const path = `models[${index}]`;
    const entry = recordAt(raw, path);
    const type = optionalString(entry.type, `${path}.type`) ?? 'main';
    const engine = optionalString(entry.engine, `${path}.engine`) ?? '';
    const modelName = optionalString(entry.model, `${path}.model`) ?? '';
    const upstream = upstreamOf(engine);
    if (type !== 'main') {
      plan.unmapped(path, 'model', type, `a ${type} model serves one rail there; Parapet's detectors need no model of their own (judgment tiers are configured in settings)`);
    } else if (upstream === null) {
      plan.unmapped(path, 'model', type, `the proxy forwards to OpenAI-compatible and Anthropic APIs; engine ${engine || '(none)'} needs an OpenAI-compatible endpoint in front of it`);
    } else {
      plan.planOnly(path, 'model', type, { kind: 'setting', key: upstream.setting }, `${upstream.api} upstream for model ${modelName}`, null, `upstreams are settings (${upstream.setting}), not stored resources: apply records nothing`);
    }
  }
  const rails = optionalRecord(config.rails, 'rails');
  const railConfig = optionalRecord(rails?.config, 'rails.config');
  const sensitiveConfig = optionalRecord(railConfig?.sensitive_data_detection, 'rails.config.sensitive_data_detection');
  const rulesByFlow = new Map<string, string>();
  for (const surface of ['input', 'output', 'retrieval', 'dialog'] as const) {
    const section = optionalRecord(rails?.[surface], `rails.${surface}`);
    for (const [index, raw] of (optionalList(section?.flows, `rails.${surface}.flows`) ?? []).entries()) {
      const path = `rails.${surface}.flows[${index}]`;
      const text = optionalString(raw, path) ?? '';
      const name = flowName(text);
      const mapping = own(FLOWS, name);
      if (mapping === undefined || surface === 'dialog') {
        plan.unmapped(path, 'flow', name, surface === 'dialog' ? 'dialog rails steer the conversation in Colang; Parapet runs no Colang' : 'a flow defined in Colang (not a built-in rail Parapet knows); Parapet runs no Colang');
        continue;
      }
      const checked: Surface = surface === 'output' ? 'output' : 'input';
      const notes = [mapping.why, surface === 'retrieval' ? 'retrieval rails check the retrieved chunks; the rule checks the retrieved surface, which applications report through the gateway' : null];
      let entities: string[] = [];
      if (mapping.pii === true) {
        const names = optionalStrings(optionalRecord(sensitiveConfig?.[surface], `rails.config.sensitive_data_detection.${surface}`)?.entities, `rails.config.sensitive_data_detection.${surface}.entities`) ?? [];
        const found = piiEntities(names);
        entities = found.entities;
        if (found.unknown.length > 0) notes.push(`entities without a Parapet equivalent (left out): ${found.unknown.join(', ')}`);
        if (found.needsNer) notes.push('some entities come from the opt-in detector pii.ner (enable it)');
      }
      const why = notes.filter((note) => note !== null).join('; ');
      const surfaceName = surface === 'retrieval' ? 'retrieved' : checked;
      const rule = mapping.rule(checked, entities);
      const item = plan.detectorRule(
        path,
        'flow',
        name,
        why === '' && mapping.status === 'mapped' ? 'mapped' : 'approximate',
        surface === 'retrieval' ? { ...rule, when: { ...rule.when, surface: surfaceName } } : rule,
        `${mapping.how}${entities.length > 0 ? ` (${entities.join(', ')})` : ''} on ${surfaceName}`,
        why === '' ? null : why,
      );
      rulesByFlow.set(name, item.target?.key ?? '');
    }
  }
  const prompts: Array<{ entry: unknown; path: string }> = (optionalList(config.prompts, 'prompts') ?? []).map((entry, index) => ({ entry, path: `prompts[${index}]` }));
  for (const file of source.yaml) {
    for (const [index, entry] of (optionalList(file.value.prompts, `${file.name}:prompts`) ?? []).entries()) prompts.push({ entry, path: `${file.name}:prompts[${index}]` });
  }
  for (const { entry, path } of prompts) {
    const prompt = recordAt(entry, path);
    const task = optionalString(prompt.task, `${path}.task`) ?? '';
    const flow = own(PROMPT_FLOWS, task);
    const rule = flow === undefined ? undefined : rulesByFlow.get(flow);
    if (rule === undefined || flow === undefined) {
      plan.unmapped(path, 'prompt', task, flow === undefined ? `the prompt of task ${task || '(none)'} instructs the model NeMo drives; Parapet writes no prompts` : `no rail in this configuration uses the ${flow} flow this prompt is for`);
      continue;
    }
    plan.planOnly(
      path,
      'prompt',
      task,
      { kind: 'policy_rule', key: rule },
      `the checks this prompt asks for are made by the detectors behind the rule of flow "${flow}"`,
      null,
      'the prompt\'s text is an instruction to an LLM; Parapet\'s detectors are deterministic, so nothing of the prompt itself is stored (apply records nothing for it)',
    );
  }
  for (const [index] of (optionalList(config.instructions, 'instructions') ?? []).entries()) {
    plan.unmapped(`instructions[${index}]`, 'instruction', undefined, 'a system prompt for the model; Parapet governs the calls and writes no prompts');
  }
  for (const file of source.colang) {
    for (const flow of colangFlows(file.text)) plan.unmapped(file.name, 'colang_flow', flow, 'a Colang flow; Parapet has no Colang runtime');
  }
  return { tool: 'nemo-guardrails', items: plan.items, packKey: plan.packKey, suite: null };
}
