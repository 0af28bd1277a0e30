// What every mapper shares: the plan item, the Parapet resources an item contributes when applied,
// stable ids and keys, and the readers that refuse a wrong shape (422) before anything is stored.
// No I/O: a mapper turns parsed configuration into a plan, the service applies it.
import { createHash } from 'node:crypto';
import Value from 'typebox/value';
import { problem, Problem } from '../../../infra/http/problems.js';
import type { Rule } from '../../../engine/policy/schema.js';
import { checkDefinition, toDefinition } from '../../custom-rules/definition.js';
import { entityOf } from '../../custom-rules/matcher.js';
import { UpsertCustomRuleBody } from '../../custom-rules/schemas.js';
import type { AddCaseBody } from '../../eval/suites/schemas.js';

export const TOOLS = ['litellm', 'portkey', 'nemo-guardrails', 'llm-guard', 'promptfoo'] as const;
export type ToolName = (typeof TOOLS)[number];

export type ItemStatus = 'mapped' | 'approximate' | 'unmapped';
export type TargetKind = 'policy_rule' | 'custom_rule' | 'eval_case' | 'redteam_campaign' | 'agent_protection' | 'setting';

/** A request an operator can send to do by hand what apply does not (plan-only items). */
export interface Suggested {
  method: 'POST';
  path: string;
  body: Record<string, unknown>;
}

/** What applying one item stores, through the owning services. */
export interface ItemEffect {
  /** Custom rules that detect (effect allow: the import pack's rule says what enforcing would do). */
  customRules: UpsertCustomRuleBody[];
  /** Rules of the tool's import pack, which lands in observe. */
  packRules: Rule[];
  /** Cases of the tool's imported evaluation suite. */
  cases: Array<AddCaseBody & { key: string }>;
}

export interface PlanItem {
  id: string;
  source_path: string;
  kind: string;
  status: ItemStatus;
  target: { kind: TargetKind; key: string } | null;
  how: string | null;
  why: string | null;
  suggested: Suggested | null;
  /** null: nothing is stored for this item (unmapped, or plan only). */
  effect: ItemEffect | null;
}

export interface ToolPlan {
  tool: ToolName;
  items: PlanItem[];
  /** The policy pack the items' rules go into. */
  packKey: string;
  /** The evaluation suite the items' cases go into, when the tool has tests. */
  suite: { key: string; name: string; description: string } | null;
}

/** Plans larger than this are refused: a configuration file does not hold thousands of guardrails. */
export const MAX_ITEMS = 2000;

export const packKeyOf = (tool: ToolName): string => `import-${tool}`;

/** Lower-case letters, digits and `_`; runs of anything else become one `_`. */
export function snake(text: string, max = 60): string {
  let out = '';
  let gap = false;
  for (const char of text.toLowerCase()) {
    const keep = (char >= 'a' && char <= 'z') || (char >= '0' && char <= '9');
    if (keep) {
      if (gap && out.length > 0) out += '_';
      out += char;
      gap = false;
    } else gap = true;
    if (out.length >= max) break;
  }
  return out.slice(0, max);
}

export const shortHash = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 8);

/** Collects a tool's items; ids are `<tool>:<source path>[:<name>]`, keys derive from them. */
export class PlanBuilder {
  readonly items: PlanItem[] = [];
  private readonly ids = new Set<string>();

  constructor(readonly tool: ToolName) {}

  get packKey(): string {
    return packKeyOf(this.tool);
  }

  id(path: string, name?: string): string {
    const base = `${this.tool}:${path}${name === undefined || name === '' ? '' : `:${name}`}`;
    // Two entries with the same name at the same path cannot happen; a repeated name in a list can.
    let id = base.slice(0, 300);
    for (let n = 2; this.ids.has(id); n += 1) id = `${base.slice(0, 290)}#${n}`;
    return id;
  }

  /** The pack rule id of an item: `import_<tool>.<path and name>`, with a hash when shortened. */
  ruleIdOf(id: string): string {
    const family = `import_${snake(this.tool, 20)}`;
    const local = snake(id.slice(this.tool.length + 1), 70);
    return `${family}.${local === '' ? 'item' : local}_${shortHash(id).slice(0, 6)}`;
  }

  /** The custom rule key of an item: stable, unique, within the custom-rule key pattern. */
  customKeyOf(id: string): string {
    return `import-${this.tool}-${snake(id.slice(this.tool.length + 1), 40).replaceAll('_', '-')}-${shortHash(id)}`.slice(0, 80);
  }

  add(item: Omit<PlanItem, 'suggested' | 'effect' | 'how' | 'why'> & Partial<Pick<PlanItem, 'suggested' | 'effect' | 'how' | 'why'>>): PlanItem {
    if (this.items.length >= MAX_ITEMS) throw problem('refused', `the configuration names more than ${MAX_ITEMS} items; split it`);
    const full: PlanItem = { how: null, why: null, suggested: null, effect: null, ...item };
    this.ids.add(full.id);
    this.items.push(full);
    return full;
  }

  unmapped(path: string, kind: string, name: string | undefined, why: string): PlanItem {
    return this.add({ id: this.id(path, name), source_path: path, kind, status: 'unmapped', target: null, why });
  }

  /** A rule of the import pack over the detections of Parapet's own detectors. */
  detectorRule(
    path: string,
    kind: string,
    name: string | undefined,
    status: 'mapped' | 'approximate',
    rule: Omit<Rule, 'id'>,
    how: string,
    why: string | null = null,
  ): PlanItem {
    const id = this.id(path, name);
    const ruleId = this.ruleIdOf(id);
    const packRule: Rule = { id: ruleId, ...rule, description: `imported from ${id}`.slice(0, 300) };
    return this.add({
      id,
      source_path: path,
      kind,
      status,
      target: { kind: 'policy_rule', key: `${this.packKey}/${ruleId}` },
      how,
      why,
      effect: { customRules: [], packRules: [packRule], cases: [] },
    });
  }

  /**
   * A custom rule that detects (effect allow, so it changes nothing by itself) and the import pack's
   * rule over its entity with the effect the source tool has, in observe. A rule the custom-rule
   * compiler refuses (a pattern RE2 cannot run) is unmapped, with the compiler's reason.
   */
  customRule(
    path: string,
    kind: string,
    name: string | undefined,
    status: 'mapped' | 'approximate',
    rule: Omit<UpsertCustomRuleBody, 'key' | 'name' | 'effect' | 'enabled'> & { name?: string },
    packEffect: Rule['effect'],
    how: string,
    why: string | null = null,
  ): PlanItem {
    const id = this.id(path, name);
    const key = this.customKeyOf(id);
    const body: UpsertCustomRuleBody = { ...rule, key, name: (rule.name ?? id).slice(0, 200), effect: 'allow', enabled: true, description: `imported from ${id}`.slice(0, 5000) };
    const shape = [...Value.Errors(UpsertCustomRuleBody, body)][0];
    if (shape !== undefined) return this.unmapped(path, kind, name, `the rule does not fit a Parapet custom rule: ${shape.instancePath || '/'} ${shape.message}`.slice(0, 1000));
    try {
      checkDefinition(toDefinition(body), { runExamples: false, fieldPrefix: '' });
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      return this.unmapped(path, kind, name, `the rule cannot be compiled as a Parapet custom rule: ${error.detail}`.slice(0, 1000));
    }
    const ruleId = this.ruleIdOf(id);
    const surfaces = rule.surfaces ?? [];
    const packRule: Rule = {
      id: ruleId,
      description: `imported from ${id}`.slice(0, 300),
      when: { entity: entityOf(key), ...(surfaces.length === 0 ? {} : { surface: surfaces.length === 1 ? (surfaces[0] as string as Rule['when']['surface'] & string) : [...surfaces] }) } as Rule['when'],
      effect: packEffect,
      message: `${kind} imported from ${this.tool}`,
    };
    return this.add({
      id,
      source_path: path,
      kind,
      status,
      target: { kind: 'custom_rule', key },
      how,
      why,
      effect: { customRules: [body], packRules: [packRule], cases: [] },
    });
  }

  planOnly(path: string, kind: string, name: string | undefined, target: { kind: TargetKind; key: string }, how: string, suggested: Suggested | null, why: string): PlanItem {
    return this.add({ id: this.id(path, name), source_path: path, kind, status: 'approximate', target, how, why, suggested });
  }
}

// ------------------------------------------------------------------------------------------ readers

export type Json = Record<string, unknown>;

/** A table entry by a name from the source, never one inherited from Object.prototype. */
export function own<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

export function isRecord(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function wrongShape(path: string, what: string): Problem {
  return problem('refused', `${path}: expected ${what}`, [{ field: `/body/source/${path}`, message: `expected ${what}` }]);
}

/** The value at `path` as a mapping; absent (undefined or null) gives undefined. */
export function optionalRecord(value: unknown, path: string): Json | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) throw wrongShape(path, 'a mapping');
  return value;
}

export function optionalList(value: unknown, path: string): unknown[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw wrongShape(path, 'a list');
  return value;
}

export function recordAt(value: unknown, path: string): Json {
  if (!isRecord(value)) throw wrongShape(path, 'a mapping');
  return value;
}

export function optionalString(value: unknown, path: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw wrongShape(path, 'a string');
  return value;
}

export function optionalNumber(value: unknown, path: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw wrongShape(path, 'a number');
  return value;
}

export function optionalBoolean(value: unknown, path: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw wrongShape(path, 'true or false');
  return value;
}

/** A list of strings (a single string counts as a list of one). */
export function optionalStrings(value: unknown, path: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return [value];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw wrongShape(path, 'a list of strings');
  return value as string[];
}

/** Refuses a configuration in which none of the sections a tool reads is present. */
export function requireSome(config: Json, sections: readonly string[], tool: ToolName): void {
  if (!sections.some((section) => config[section] !== undefined && config[section] !== null)) {
    throw problem('refused', `nothing to import: a ${tool} configuration names at least one of ${sections.join(', ')}`, [
      { field: '/body/source', message: `none of ${sections.join(', ')} found` },
    ]);
  }
}

/** Text kept for a message or description: the first line, shortened. */
export function excerpt(text: string, max = 120): string {
  const first = text.split('\n', 1)[0]?.trim() ?? '';
  return first.length > max ? `${first.slice(0, max - 1)}…` : first;
}

/** A model name's provider as the proxy sees it; the upstream setting it would use, if any. */
export function upstreamOf(provider: string): { setting: string; api: string } | null {
  const name = provider.toLowerCase();
  if (name === 'openai' || name === 'openai_compatible' || name === 'text-completion-openai' || name === 'custom_openai') return { setting: 'upstream_openai_base_url', api: 'OpenAI-compatible' };
  if (name === 'anthropic') return { setting: 'upstream_anthropic_base_url', api: 'Anthropic messages' };
  return null;
}

/**
 * Presidio / LLM Guard / NeMo entity names → Parapet PII entities (src/engine/detectors/pii and
 * pii.ner). Names without an equivalent are left out and named by the mapper.
 */
export const PII_ENTITIES: Readonly<Record<string, string>> = {
  CREDIT_CARD: 'PII.CREDIT_CARD',
  CREDIT_CARD_RE: 'PII.CREDIT_CARD',
  EMAIL_ADDRESS: 'PII.EMAIL',
  EMAIL_ADDRESS_RE: 'PII.EMAIL',
  EMAIL: 'PII.EMAIL',
  IP_ADDRESS: 'PII.IP_ADDRESS',
  IBAN_CODE: 'PII.IBAN',
  IBAN: 'PII.IBAN',
  US_SSN: 'PII.US_SSN',
  US_SSN_RE: 'PII.US_SSN',
  PHONE_NUMBER: 'PII.US_PHONE',
  US_PHONE: 'PII.US_PHONE',
  PHONE_NUMBER_ZH: 'PII.US_PHONE',
  US_PASSPORT: 'PII.US_PASSPORT',
  US_PASSPORT_RE: 'PII.US_PASSPORT',
  UK_NHS: 'PII.UK_NHS',
  UK_NINO: 'PII.UK_NINO',
  IN_AADHAAR: 'PII.IN_AADHAAR',
  IN_PAN: 'PII.IN_PAN',
  DATE_OF_BIRTH: 'PII.DATE_OF_BIRTH',
  PERSON: 'PII.PERSON',
  LOCATION: 'PII.LOCATION',
  DATE_TIME: 'PII.DATE_TIME',
  US_DRIVER_LICENSE: 'PII.US_DRIVER_LICENSE',
  MEDICAL_LICENSE: 'PII.MEDICAL_LICENSE',
  CRYPTO: 'PII.CRYPTO_WALLET',
};

/** Entities that only the opt-in named-entity detector (pii.ner) reports. */
export const NER_ONLY = new Set(['PII.PERSON', 'PII.LOCATION', 'PII.DATE_TIME', 'PII.US_DRIVER_LICENSE', 'PII.MEDICAL_LICENSE', 'PII.CRYPTO_WALLET']);

/** Source entity names split into Parapet entities and the names without one. */
export function piiEntities(names: readonly string[]): { entities: string[]; unknown: string[]; needsNer: boolean } {
  const entities = new Set<string>();
  const unknown: string[] = [];
  for (const name of names) {
    const entity = own(PII_ENTITIES, name.toUpperCase());
    if (entity === undefined) unknown.push(name);
    else entities.add(entity);
  }
  const list = [...entities].sort();
  return { entities: list, unknown, needsNer: list.some((entity) => NER_ONLY.has(entity)) };
}

/** A `when` over PII: the named entities, or the whole family when none are named. */
export function piiWhen(entities: readonly string[]): Rule['when'] {
  if (entities.length === 0) return { entity_prefix: 'PII.' };
  return { entity: entities.length === 1 ? (entities[0] as string) : [...entities] };
}

/** Escapes a literal for an RE2 pattern. */
export function escapeRegex(text: string): string {
  let out = '';
  for (const char of text) out += '\\^$.|?*+()[]{}/'.includes(char) ? `\\${char}` : char;
  return out;
}
