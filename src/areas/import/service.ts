// Import from the tools teams use today (spec 02, issue 21 point 5): a configuration file of
// LiteLLM, Portkey, NeMo Guardrails, LLM Guard or promptfoo is mapped onto Parapet (source.ts and
// tools/), the plan says item by item what maps exactly, approximately or not at all, and apply
// stores what maps through the services that own it — custom rules, the policy lifecycle,
// evaluation suites — so their validation and audit apply. Imported rules go into one policy pack
// per tool that lands in observe. Keys derive from item ids, so a second apply of the same source
// finds what the first made and changes nothing.
import { createHash } from 'node:crypto';
import { stringify } from 'yaml';
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import { Problem, problem } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import type { Store } from '../../infra/store/db.js';
import { parsePack } from '../../engine/policy/parse.js';
import type { Rule } from '../../engine/policy/schema.js';
import type { AuditLog } from '../audit/log.js';
import { toDefinition } from '../custom-rules/definition.js';
import type { CustomRule, UpsertCustomRuleBody } from '../custom-rules/schemas.js';
import type { CustomRuleService } from '../custom-rules/service.js';
import type { EvalCase } from '../eval/suites/schemas.js';
import type { SuiteService } from '../eval/suites/service.js';
import type { PolicyService } from '../policies/service.js';
import type { ApplyResult, ImportBody, Plan } from './schemas.js';
import { isTool, planSource, type ImportSource } from './source.js';
import { TOOLS, type PlanItem, type ToolName, type ToolPlan } from './tools/common.js';

export interface ImportServiceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  /** The policy lifecycle: the import pack is saved as a version and made live in observe. */
  policies: PolicyService;
  customRules: CustomRuleService;
  suites: SuiteService;
}

type Outcome = ApplyResult['items'][number]['outcome'];
interface ItemResult {
  outcome: Outcome;
  detail: string | null;
}

/** Pages of custom rules read to find the imported ones (500 each). */
const MAX_RULE_PAGES = 40;

export class ImportService {
  constructor(readonly deps: ImportServiceDeps) {}

  /** POST /api/import/{tool}/plan: what the source maps onto; nothing is stored. */
  plan(toolName: string, body: ImportBody): Plan {
    const plan = this.read(toolName, body.source as ImportSource);
    const items = plan.items.map(wireItem);
    return {
      tool: plan.tool,
      policy: plan.packKey,
      suite: plan.suite?.key ?? null,
      items,
      counts: {
        mapped: items.filter((item) => item.status === 'mapped').length,
        approximate: items.filter((item) => item.status === 'approximate').length,
        unmapped: items.filter((item) => item.status === 'unmapped').length,
        total: items.length,
      },
    };
  }

  /** POST /api/import/{tool}: stores the mapped and approximate items not in `skip`; audited once with the counts. */
  async apply(caller: Principal, toolName: string, body: ImportBody): Promise<ApplyResult> {
    const source = body.source as ImportSource;
    const plan = this.read(toolName, source);
    const skip = new Set(body.skip ?? []);
    const known = new Set(plan.items.map((item) => item.id));
    const unknown = [...skip].filter((id) => !known.has(id));
    if (unknown.length > 0) {
      const listed = unknown.slice(0, 10).map((id) => JSON.stringify(id.slice(0, 120))).join(', ');
      throw problem('refused', `skip names ids that are not items of this plan: ${listed}${unknown.length > 10 ? ` and ${unknown.length - 10} more` : ''}`, [{ field: '/body/skip', message: 'unknown item ids' }]);
    }
    const results = new Map<string, ItemResult[]>();
    const note = (id: string, result: ItemResult) => results.set(id, [...(results.get(id) ?? []), result]);
    const active = plan.items.filter((item) => item.effect !== null && !skip.has(item.id));

    await this.applyCustomRules(caller, plan.tool, active, note);
    // A pack rule over a custom rule that failed would watch an entity nothing reports.
    const packItems = active.filter((item) => (item.effect?.packRules.length ?? 0) > 0 && !(results.get(item.id) ?? []).some((result) => result.outcome === 'failed'));
    const policy = await this.applyPack(caller, plan, packItems, note);
    const suite = await this.applyCases(caller, plan, active, note);

    const items: ApplyResult['items'] = plan.items.map((item) => {
      const base = { id: item.id, status: item.status, target: item.target };
      if (skip.has(item.id)) return { ...base, outcome: 'skipped', detail: 'left out: named in skip' };
      if (item.status === 'unmapped') return { ...base, outcome: 'unchanged', detail: 'unmapped: nothing to store' };
      if (item.effect === null) return { ...base, outcome: 'unchanged', detail: 'plan only: apply records nothing for this item (see the plan\'s suggested request)' };
      const outcomes = results.get(item.id) ?? [];
      return { ...base, ...combine(outcomes) };
    });
    const counts = { created: 0, updated: 0, unchanged: 0, skipped: 0, failed: 0 };
    for (const item of items) counts[item.outcome] += 1;
    const sourceHash = createHash('sha256').update(typeof source === 'string' ? source : JSON.stringify(Object.entries(source.files).sort(([a], [b]) => a.localeCompare(b)))).digest('hex');
    await this.deps.audit.transact(async (_trx, append) => {
      await append({
        actor: actorOf(caller),
        action: 'import.apply',
        target: plan.tool,
        detail: { counts, items: items.length, skipped: skip.size, policy: policy?.key ?? null, policy_version: policy?.version ?? null, suite, source_sha256: sourceHash },
      });
    });
    return { tool: plan.tool, policy, suite, items, counts };
  }

  private read(toolName: string, source: ImportSource): ToolPlan {
    if (!isTool(toolName)) throw problem('unknown-id', `no import for tool ${JSON.stringify(toolName.slice(0, 50))}; known tools: ${TOOLS.join(', ')}`);
    return planSource(toolName, source);
  }

  private async applyCustomRules(caller: Principal, tool: ToolName, items: readonly PlanItem[], note: (id: string, result: ItemResult) => void): Promise<void> {
    const wanted = items.filter((item) => (item.effect?.customRules.length ?? 0) > 0);
    if (wanted.length === 0) return;
    const existing = await this.importedCustomRules(`import-${tool}-`);
    for (const item of wanted) {
      for (const body of item.effect?.customRules ?? []) {
        const current = existing.get(body.key);
        if (current !== undefined && sameRule(current, body)) {
          note(item.id, { outcome: 'unchanged', detail: null });
          continue;
        }
        try {
          await this.deps.customRules.upsert(caller, body);
          note(item.id, { outcome: current === undefined ? 'created' : 'updated', detail: `custom rule ${body.key} (effect allow: it detects; the import-${tool} pack says what enforcing would do)` });
        } catch (error) {
          if (!(error instanceof Problem) || error.status >= 500) throw error;
          note(item.id, { outcome: 'failed', detail: `custom rule ${body.key}: ${error.detail}`.slice(0, 1000) });
        }
      }
    }
  }

  /** The custom rules whose keys start with the prefix, by key. */
  private async importedCustomRules(prefix: string): Promise<Map<string, CustomRule>> {
    const found = new Map<string, CustomRule>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_RULE_PAGES; page += 1) {
      const { items, next_cursor } = await this.deps.customRules.list({ limit: 500, ...(cursor === undefined ? {} : { cursor }) });
      for (const rule of items) if (rule.key.startsWith(prefix)) found.set(rule.key, rule);
      if (next_cursor === null) break;
      cursor = next_cursor;
    }
    return found;
  }

  /**
   * The tool's pack with the rules of the given items. Saved only when its rules differ from the
   * live version's, then made live in observe: changed rules are watched before anyone enforces them.
   */
  private async applyPack(caller: Principal, plan: ToolPlan, items: readonly PlanItem[], note: (id: string, result: ItemResult) => void): Promise<ApplyResult['policy']> {
    const key = plan.packKey;
    const live = await this.livePack(key);
    const rules = items.flatMap((item) => item.effect?.packRules ?? []);
    if (live === null && rules.length === 0) return null;
    const liveRules = new Map((live?.rules ?? []).map((rule) => [rule.id, canonical(rule)]));
    const perItem = items.map((item) => {
      const outcomes = (item.effect?.packRules ?? []).map((rule): Outcome => {
        const before = liveRules.get(rule.id);
        return before === undefined ? 'created' : before === canonical(rule) ? 'unchanged' : 'updated';
      });
      return { item, outcome: combine(outcomes.map((outcome) => ({ outcome, detail: null }))).outcome };
    });
    const removed = [...liveRules.keys()].some((id) => !rules.some((rule) => rule.id === id));
    const changed = live === null || removed || perItem.some(({ outcome }) => outcome !== 'unchanged');
    if (!changed) {
      for (const { item } of perItem) note(item.id, { outcome: 'unchanged', detail: null });
      return { key, version: live.version, mode: live.mode, proposal_id: null, note: null };
    }
    const text = stringify({ key, description: `Imported from a ${plan.tool} configuration (POST /api/import/${plan.tool}); lands in observe.`, rules });
    let saved: Awaited<ReturnType<PolicyService['upsert']>>;
    try {
      saved = await this.deps.policies.upsert(caller, { body: text, mode: 'observe', notes: `import from ${plan.tool}` });
    } catch (error) {
      if (!(error instanceof Problem) || error.status >= 500) throw error;
      for (const { item } of perItem) note(item.id, { outcome: 'failed', detail: `policy ${key}: ${error.detail}`.slice(0, 1000) });
      return live === null ? null : { key, version: live.version, mode: live.mode, proposal_id: null, note: null };
    }
    try {
      await this.deps.policies.setMode(caller, key, { mode: 'observe', version: saved.version });
    } catch (error) {
      if (!(error instanceof Problem) || error.status >= 500) throw error;
      const detail = `policy ${key} version ${saved.version} was saved but not made live: ${error.detail}`.slice(0, 1000);
      for (const { item, outcome } of perItem) note(item.id, { outcome: outcome === 'unchanged' ? 'unchanged' : 'failed', detail });
      return { key, version: live?.version ?? null, mode: live?.mode ?? 'observe', proposal_id: saved.proposal_id, note: detail };
    }
    for (const { item, outcome } of perItem) note(item.id, { outcome, detail: outcome === 'unchanged' ? null : `rule in policy ${key} version ${saved.version} (observe)` });
    return { key, version: saved.version, mode: 'observe', proposal_id: saved.proposal_id, note: null };
  }

  private async livePack(key: string): Promise<{ rules: Rule[]; version: number | null; mode: string } | null> {
    try {
      const detail = await this.deps.policies.get(key);
      return { rules: detail.text === null ? [] : parsePack(detail.text).rules, version: detail.version, mode: detail.mode };
    } catch (error) {
      if (error instanceof Problem && error.status === 404) return null;
      throw error;
    }
  }

  private async applyCases(caller: Principal, plan: ToolPlan, items: readonly PlanItem[], note: (id: string, result: ItemResult) => void): Promise<string | null> {
    const wanted = items.filter((item) => (item.effect?.cases.length ?? 0) > 0);
    if (plan.suite === null || wanted.length === 0) return null;
    const suite = plan.suite;
    let cases: EvalCase[];
    try {
      cases = (await this.deps.suites.get(suite.key)).cases;
    } catch (error) {
      if (!(error instanceof Problem) || error.status !== 404) throw error;
      await this.deps.suites.create(caller, { key: suite.key, name: suite.name.slice(0, 200), description: suite.description.slice(0, 2000), tags: ['imported', plan.tool] });
      cases = [];
    }
    const byKey = new Map(cases.filter((row) => row.key !== null).map((row) => [row.key as string, row]));
    for (const item of wanted) {
      for (const body of item.effect?.cases ?? []) {
        const current = byKey.get(body.key);
        if (current !== undefined && sameCase(current, body)) {
          note(item.id, { outcome: 'unchanged', detail: null });
          continue;
        }
        try {
          const added = await this.deps.suites.addCase(caller, suite.key, body);
          note(item.id, { outcome: added.created ? 'created' : 'updated', detail: `case ${body.key} of suite ${suite.key}` });
        } catch (error) {
          if (!(error instanceof Problem) || error.status >= 500) throw error;
          note(item.id, { outcome: 'failed', detail: `case ${body.key}: ${error.detail}`.slice(0, 1000) });
        }
      }
    }
    return suite.key;
  }
}

function wireItem(item: PlanItem): Plan['items'][number] {
  return { id: item.id, source_path: item.source_path, kind: item.kind, status: item.status, target: item.target, how: item.how, why: item.why, applied: item.effect !== null, suggested: item.suggested };
}

/** failed beats created beats updated beats unchanged; the details of every change. */
function combine(results: readonly ItemResult[]): ItemResult {
  const outcome = (['failed', 'created', 'updated'] as const).find((kind) => results.some((result) => result.outcome === kind)) ?? 'unchanged';
  const details = results.filter((result) => result.outcome !== 'unchanged' && result.detail !== null).map((result) => result.detail as string);
  return { outcome, detail: details.length === 0 ? null : details.join('; ') };
}

/** JSON with keys sorted at every level, for comparing what is stored with what would be. */
export function canonical(value: unknown): string {
  const sort = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(sort);
    if (node !== null && typeof node === 'object') {
      return Object.fromEntries(
        Object.entries(node as Record<string, unknown>)
          .filter(([, item]) => item !== undefined)
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([key, item]) => [key, sort(item)]),
      );
    }
    return node;
  };
  return JSON.stringify(sort(value));
}

function ruleFields(rule: Pick<CustomRule, 'name' | 'kind' | 'polarity' | 'entries' | 'surfaces' | 'agents' | 'case_sensitive' | 'effect' | 'enabled' | 'description' | 'severity' | 'message'>): string {
  const { name, kind, polarity, entries, surfaces, agents, case_sensitive, effect, enabled, description, severity, message } = rule;
  return canonical({ name, kind, polarity, entries, surfaces, agents, case_sensitive, effect, enabled, description, severity, message });
}

function sameRule(current: CustomRule, body: UpsertCustomRuleBody): boolean {
  return ruleFields(current) === ruleFields(toDefinition(body));
}

function sameCase(current: EvalCase, body: { input: object; expected?: object; context?: object; labels?: string[] }): boolean {
  return (
    canonical({ input: current.input, expected: current.expected, context: current.context, labels: current.labels }) ===
    canonical({ input: body.input, expected: body.expected ?? {}, context: body.context ?? {}, labels: [...new Set(body.labels ?? [])] })
  );
}
