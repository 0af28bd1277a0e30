// LiteLLM proxy config.yaml → Parapet: model_list (upstreams), guardrails (detector rules in the
// import pack), litellm_settings callbacks and budgets (per-agent limits, plan only). The table of
// what maps how is in ../README.md.
import type { Rule } from '../../../engine/policy/schema.js';
import {
  excerpt,
  optionalList,
  optionalNumber,
  optionalRecord,
  optionalString,
  optionalStrings,
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

/** LiteLLM guardrail modes → the surfaces Parapet checks, and whether the mapping is approximate. */
function surfacesOf(mode: unknown, path: string): { surfaces: Surface[]; approximate: string | null } {
  const modes = optionalStrings(mode, path) ?? ['pre_call'];
  const surfaces = new Set<Surface>();
  const notes: string[] = [];
  for (const item of modes) {
    if (item === 'pre_call') surfaces.add('input');
    else if (item === 'post_call') surfaces.add('output');
    else if (item === 'during_call') {
      surfaces.add('input');
      notes.push('during_call runs beside the model call; Parapet checks the input before forwarding it (stricter: the call is not made when it blocks)');
    } else if (item === 'logging_only') {
      surfaces.add('input');
      surfaces.add('output');
      notes.push('logging_only masks what is logged; Parapet records decisions on input and output');
    } else notes.push(`mode ${item} has no surface in Parapet; input is used`);
  }
  if (surfaces.size === 0) surfaces.add('input');
  return { surfaces: [...surfaces].sort(), approximate: notes.length === 0 ? null : notes.join('; ') };
}

const surfaceWhen = (surfaces: Surface[]): Pick<Rule['when'], 'surface'> => ({ surface: surfaces.length === 1 ? (surfaces[0] as Surface) : surfaces });

const INJECTION_VENDORS = new Set(['lakera', 'lakera_v2', 'lakera_prompt_injection', 'aporia', 'azure/prompt_shield', 'prompt_injection', 'detect_prompt_injection', 'pangea', 'lasso', 'pillar']);
const MODERATION_VENDORS = new Set(['openai_moderation', 'azure/text_moderations', 'llamaguard_moderations', 'google_text_moderation', 'llama_guard']);
const SECRET_GUARDRAILS = new Set(['hide-secrets', 'hide_secrets', 'secret_detection']);

/** Days in a LiteLLM budget duration (`30s`, `10m`, `24h`, `1d`, `4w`, `1mo`), or null. */
export function durationDays(text: string): number | null {
  const trimmed = text.trim();
  let digits = 0;
  while (digits < trimmed.length && trimmed[digits]! >= '0' && trimmed[digits]! <= '9') digits += 1;
  if (digits === 0 || digits > 6) return null;
  const amount = Number(trimmed.slice(0, digits));
  const unit = trimmed.slice(digits);
  const perUnit: Record<string, number> = { s: 1 / 86_400, m: 1 / 1440, h: 1 / 24, d: 1, w: 7, mo: 30 };
  const factor = perUnit[unit];
  return factor === undefined || amount === 0 ? null : amount * factor;
}

function guardrail(plan: PlanBuilder, entry: Json, path: string): void {
  const name = optionalString(entry.guardrail_name, `${path}.guardrail_name`);
  const params = optionalRecord(entry.litellm_params, `${path}.litellm_params`) ?? {};
  const vendor = (optionalString(params.guardrail, `${path}.litellm_params.guardrail`) ?? '').toLowerCase();
  const label = name ?? vendor;
  const { surfaces, approximate } = surfacesOf(params.mode, `${path}.litellm_params.mode`);
  if (vendor === 'presidio') {
    const config = optionalRecord(params.pii_entities_config, `${path}.litellm_params.pii_entities_config`);
    if (config === undefined) {
      plan.detectorRule(path, 'guardrail', label, approximate === null ? 'mapped' : 'approximate', { when: { ...surfaceWhen(surfaces), ...piiWhen([]) }, effect: 'mask', message: 'Personal data (imported presidio guardrail).' }, 'every PII entity of Parapet\'s own detectors, masked, on the guardrail\'s surfaces', approximate);
      return;
    }
    for (const [entityName, action] of Object.entries(config)) {
      const entryPath = `${path}.litellm_params.pii_entities_config.${entityName}`;
      const actionName = (optionalString(action, entryPath) ?? 'MASK').toUpperCase();
      const { entities, needsNer } = piiEntities([entityName]);
      if (entities.length === 0) {
        plan.unmapped(path, 'pii_entity', `${label}:${entityName}`, `Parapet has no detector for the Presidio entity ${entityName}`).source_path = entryPath;
        continue;
      }
      const notes = [approximate, needsNer ? 'reported by the opt-in detector pii.ner: enable it (POST /api/detectors/pii.ner)' : null].filter((note) => note !== null).join('; ');
      const item = plan.detectorRule(
        path,
        'pii_entity',
        `${label}:${entityName}`,
        notes === '' ? 'mapped' : 'approximate',
        { when: { ...surfaceWhen(surfaces), ...piiWhen(entities) }, effect: actionName === 'BLOCK' ? 'block' : 'mask', message: `${entities.join(', ')} (imported presidio guardrail).` },
        `${entities.join(', ')} → ${actionName === 'BLOCK' ? 'block' : 'mask'}`,
        notes === '' ? null : notes,
      );
      item.source_path = entryPath;
    }
    return;
  }
  if (INJECTION_VENDORS.has(vendor)) {
    const why = [`${vendor} is a hosted classifier; Parapet's own injection detectors stand in for it (scores differ)`, approximate].filter((note) => note !== null).join('; ');
    plan.detectorRule(path, 'guardrail', label, 'approximate', { when: { ...surfaceWhen(surfaces), entity_prefix: 'INJECTION.', min_score: 0.7 }, effect: 'block', message: 'Prompt injection (imported guardrail).' }, 'INJECTION.* at score 0.7 or more → block', why);
    return;
  }
  if (MODERATION_VENDORS.has(vendor)) {
    const why = [`${vendor} is a moderation model; Parapet's safety lexicon stands in for it (categories and scores differ)`, approximate].filter((note) => note !== null).join('; ');
    plan.detectorRule(path, 'guardrail', label, 'approximate', { when: { ...surfaceWhen(surfaces), entity_prefix: 'SAFETY.' }, effect: 'block', message: 'Unsafe content (imported moderation guardrail).' }, 'SAFETY.* → block', why);
    return;
  }
  if (SECRET_GUARDRAILS.has(vendor)) {
    plan.detectorRule(path, 'guardrail', label, approximate === null ? 'mapped' : 'approximate', { when: { ...surfaceWhen(surfaces), entity_prefix: 'SECRET.' }, effect: 'mask', message: 'A secret (imported secret-masking guardrail).' }, 'SECRET.* → mask (secrets.native)', approximate);
    return;
  }
  plan.unmapped(path, 'guardrail', label, vendor === '' ? 'the guardrail names no guardrail type' : `guardrail type ${vendor} is configured in its vendor's service or in custom code; Parapet has no equivalent to map it onto`);
}

/** Scheme, host and path only: user info, query and fragment may hold credentials. */
function baseUrl(text: string): string {
  try {
    const url = new URL(text);
    return excerpt(`${url.protocol}//${url.host}${url.pathname}`, 200);
  } catch {
    return '(not a URL)';
  }
}

function model(plan: PlanBuilder, entry: Json, path: string): void {
  const name = optionalString(entry.model_name, `${path}.model_name`);
  const params = optionalRecord(entry.litellm_params, `${path}.litellm_params`) ?? {};
  const upstreamModel = optionalString(params.model, `${path}.litellm_params.model`) ?? '';
  const slash = upstreamModel.indexOf('/');
  const provider = slash > 0 ? upstreamModel.slice(0, slash) : 'openai';
  const apiBase = optionalString(params.api_base, `${path}.litellm_params.api_base`);
  const upstream = upstreamOf(provider);
  if (upstream === null) {
    plan.unmapped(path, 'model', name, `the proxy forwards to OpenAI-compatible and Anthropic APIs; a ${provider} deployment needs an OpenAI-compatible endpoint in front of it`);
    return;
  }
  plan.planOnly(
    path,
    'model',
    name,
    { kind: 'setting', key: upstream.setting },
    `${upstream.api} upstream${apiBase === undefined ? '' : ` at ${baseUrl(apiBase)}`}: callers send model ${name ?? upstreamModel} and the proxy forwards it as given`,
    null,
    `upstreams are settings (${upstream.setting}, its key in the matching api_key setting), not stored resources: apply records nothing; LiteLLM's alias to ${upstreamModel} is not kept (the proxy forwards the model name the caller sends)`,
  );
}

function budgets(plan: PlanBuilder, settings: Json): void {
  const global = optionalNumber(settings.max_budget, 'litellm_settings.max_budget');
  if (global !== undefined) {
    plan.unmapped('litellm_settings.max_budget', 'budget', undefined, 'a proxy-wide spend limit; Parapet limits model cost per agent per UTC day (protections max_cost_usd_per_day), not for the whole gateway');
  }
  const keyDefaults = optionalRecord(settings.default_key_generate_params, 'litellm_settings.default_key_generate_params');
  const keyBudget = optionalNumber(keyDefaults?.max_budget, 'litellm_settings.default_key_generate_params.max_budget');
  if (keyDefaults !== undefined && keyBudget !== undefined) {
    const duration = optionalString(keyDefaults.budget_duration, 'litellm_settings.default_key_generate_params.budget_duration');
    const days = duration === undefined ? null : durationDays(duration);
    const path = 'litellm_settings.default_key_generate_params.max_budget';
    if (days === null) {
      plan.unmapped(path, 'budget', 'per-key', 'a budget without a reset period is a lifetime limit; Parapet limits cost per UTC day');
    } else {
      const perDay = Math.round((keyBudget / days) * 10_000) / 10_000;
      plan.planOnly(
        path,
        'budget',
        'per-key',
        { kind: 'agent_protection', key: '{slug}' },
        `each key's ${keyBudget} USD per ${duration} → each agent's max_cost_usd_per_day ${perDay} (a key here is an agent there)`,
        { method: 'POST', path: '/api/agents/{slug}/protection', body: { protections: { max_cost_usd_per_day: perDay } } },
        'limits are enforced as soon as they are set (they have no observe mode), and LiteLLM keys are not Parapet agents one to one: apply records nothing; post the suggested body for each agent',
      );
    }
  }
  for (const key of ['max_internal_user_budget', 'max_end_user_budget'] as const) {
    if (optionalNumber(settings[key], `litellm_settings.${key}`) !== undefined) {
      plan.unmapped(`litellm_settings.${key}`, 'budget', undefined, 'a budget per person calling the proxy; Parapet limits cost per agent, not per end user');
    }
  }
  for (const [index, callback] of (optionalStrings(settings.callbacks, 'litellm_settings.callbacks') ?? []).entries()) {
    const path = `litellm_settings.callbacks[${index}]`;
    if (callback === 'detect_prompt_injection') {
      plan.detectorRule(path, 'callback', callback, 'approximate', { when: { surface: 'input', entity_prefix: 'INJECTION.', min_score: 0.7 }, effect: 'block', message: 'Prompt injection (imported callback).' }, 'INJECTION.* on input at score 0.7 or more → block', 'LiteLLM compares with its own list of attack phrases; Parapet\'s injection detectors cover more and score differently');
    } else if (callback === 'presidio') {
      plan.detectorRule(path, 'callback', callback, 'mapped', { when: { surface: ['input', 'output'], entity_prefix: 'PII.' }, effect: 'mask', message: 'Personal data (imported presidio callback).' }, 'PII.* on input and output → mask', null);
    } else if (callback === 'hide_secrets') {
      plan.detectorRule(path, 'callback', callback, 'mapped', { when: { surface: 'input', entity_prefix: 'SECRET.' }, effect: 'mask', message: 'A secret (imported hide_secrets callback).' }, 'SECRET.* on input → mask', null);
    } else {
      plan.unmapped(path, 'callback', callback, `${callback} is a logging or custom callback; Parapet records every decision itself and is read through /api/export and OTLP`);
    }
  }
}

export function mapLitellm(config: Json): ToolPlan {
  requireSome(config, ['model_list', 'guardrails', 'litellm_settings', 'router_settings'], 'litellm');
  const plan = new PlanBuilder('litellm');
  for (const [index, entry] of (optionalList(config.model_list, 'model_list') ?? []).entries()) model(plan, recordAt(entry, `model_list[${index}]`), `model_list[${index}]`);
  for (const [index, entry] of (optionalList(config.guardrails, 'guardrails') ?? []).entries()) guardrail(plan, recordAt(entry, `guardrails[${index}]`), `guardrails[${index}]`);
  const settings = optionalRecord(config.litellm_settings, 'litellm_settings');
  if (settings !== undefined) budgets(plan, settings);
  const router = optionalRecord(config.router_settings, 'router_settings');
  const providerBudgets = optionalRecord(router?.provider_budget_config, 'router_settings.provider_budget_config');
  for (const provider of Object.keys(providerBudgets ?? {})) {
    plan.unmapped(`router_settings.provider_budget_config.${provider}`, 'budget', undefined, 'a spend limit per model provider; Parapet limits cost per agent');
  }
  return { tool: 'litellm', items: plan.items, packKey: plan.packKey, suite: null };
}
