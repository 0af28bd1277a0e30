// Business rules: plain language compiled to definitions (nothing saved), definitions saved and
// audited, modes changed per rule. Enforced through the one decision pipeline by the
// `business-rules` pack, handed to the policy registry through `onChange`; every process reads the
// table back every second (sync), so several gateway processes on one database agree.
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import type { AuditLog } from '../audit/log.js';
import { notFound, problem, type FieldError } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import type { Mode, Pack } from '../../engine/policy/schema.js';
import type { Store } from '../../infra/store/db.js';
import type { ChangePublisher } from '../../infra/store/notify.js';
import { compileBusinessText, definitionKey } from './grammar.js';
import { businessPolicyRule, businessRuleId, businessRulesPack, type BusinessRuleEntry } from './pack.js';
import type { BusinessDefinition, BusinessRule, CompileResult, ListBusinessRulesQuery, SaveBusinessRuleBody } from './schemas.js';
import { ruleSetVersion } from '../custom-rules/store.js';
import { BusinessRuleStore, type BusinessRuleRow } from './store.js';

export interface BusinessRuleServiceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  /** Called with the new pack whenever the rules this process enforces change. */
  onChange?: (pack: Pack) => void;  /** Tells the other gateway processes sharing the database that the rules changed. */
  changes?: ChangePublisher;
}

const NUMERIC_OPS = new Set(['gt', 'gte', 'lt', 'lte']);

export class BusinessRuleService {
  private readonly rows: BusinessRuleStore;
  private signature: string | null = null;
  private current: Pack = businessRulesPack([]);

  constructor(private readonly deps: BusinessRuleServiceDeps) {
    this.rows = new BusinessRuleStore(deps.store);
  }

  /** The pack in force in this process. */
  pack(): Pack {
    return this.current;
  }

  /** Plain language to a definition, deterministically and without a model. Saves nothing. */
  compile(text: string): CompileResult {
    const compiled = compileBusinessText(text);
    const rule = businessPolicyRule({ key: compiled.definition.key as string, definition: compiled.definition, agent: null, mode: 'observe' });
    return { ...compiled, rule: { id: rule.id, when: rule.when, effect: rule.effect, message: rule.message ?? rule.id, mode: rule.mode ?? 'observe' } };
  }

  toWire(row: BusinessRuleRow): BusinessRule {
    const entry = entryOf(row);
    const rule = businessPolicyRule(entry);
    return {
      key: row.key,
      definition: { ...entry.definition, mode: entry.mode },
      agent: row.agent,
      mode: entry.mode,
      rule_id: rule.id,
      rule: { id: rule.id, when: rule.when, effect: rule.effect, message: rule.message ?? rule.id, mode: entry.mode },
      created_by: row.created_by,
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }

  async list(query: ListBusinessRulesQuery): Promise<{ items: BusinessRule[]; next_cursor: string | null }> {
    const page = await this.rows.page(query.limit ?? 50, query.cursor);
    return { items: page.rows.map((row) => this.toWire(row)), next_cursor: page.next_cursor };
  }

  async save(caller: Principal, body: SaveBusinessRuleBody): Promise<BusinessRule> {
    const { mode: askedMode, ...definition } = body.definition;
    checkDefinition(definition);
    const key = definition.key ?? definitionKey(definition);
    const actor = actorOf(caller);
    const row = await this.deps.audit.transact(async (trx, append) => {
      const existing = await this.rows.get(trx, key);
      let now = this.deps.clock.now().toISOString();
      // updated_at must change on every write: other processes notice changes by it.
      if (existing !== undefined && now <= existing.updated_at) now = new Date(Date.parse(existing.updated_at) + 1).toISOString();
      // A new rule starts in observe unless the definition says otherwise; a changed one keeps its mode.
      const mode: Mode = askedMode ?? (existing?.mode as Mode | undefined) ?? 'observe';
      const next: BusinessRuleRow = {
        key,
        definition: JSON.stringify({ ...definition, key }),
        agent: body.agent ?? null,
        mode,
        created_by: existing?.created_by ?? actor,
        created_at: existing?.created_at ?? now,
        updated_at: now,
      };
      await this.rows.put(trx, next, existing !== undefined);
      await append({
        actor,
        action: 'business_rule.upsert',
        target: key,
        detail: { created: existing === undefined, rule_id: businessRuleId(key), effect: definition.effect, mode, agent: next.agent, tools: definition.tools },
      });
      return next;
    });
    await this.sync();
    this.deps.changes?.publish('rules');
    return this.toWire(row);
  }

  async setMode(caller: Principal, key: string, mode: Mode): Promise<BusinessRule> {
    const actor = actorOf(caller);
    const row = await this.deps.audit.transact(async (trx, append) => {
      const existing = await this.rows.get(trx, key);
      if (existing === undefined) throw notFound('business rule', key);
      if (existing.mode === mode) return existing;
      let now = this.deps.clock.now().toISOString();
      if (now <= existing.updated_at) now = new Date(Date.parse(existing.updated_at) + 1).toISOString();
      const next = { ...existing, mode, updated_at: now };
      await this.rows.put(trx, next, true);
      await append({ actor, action: 'business_rule.mode', target: key, detail: { from: existing.mode, to: mode, rule_id: businessRuleId(key) } });
      return next;
    });
    await this.sync();
    this.deps.changes?.publish('rules');
    return this.toWire(row);
  }

  /** Reads the rules back and hands a new pack to `onChange` when they changed; returns whether they did. */
  async sync(): Promise<boolean> {
    const signature = await this.rows.signature();
    if (signature === this.signature) return false;
    const entries = (await this.rows.all()).map(entryOf);
    this.current = businessRulesPack(entries, ruleSetVersion(signature));
    this.signature = signature;
    this.deps.onChange?.(this.current);
    return true;
  }
}

function entryOf(row: BusinessRuleRow): BusinessRuleEntry {
  const stored = JSON.parse(row.definition) as BusinessDefinition;
  const { mode: _ignored, ...definition } = stored;
  return { key: row.key, definition, agent: row.agent, mode: row.mode === 'enforce' ? 'enforce' : 'observe' };
}

/** What a schema cannot say: conditions whose value does not fit the operator, a rule on every tool. */
function checkDefinition(definition: Omit<BusinessDefinition, 'mode'>): void {
  const errors: FieldError[] = [];
  (definition.conditions ?? []).forEach((condition, index) => {
    const field = `/body/definition/conditions/${index}/value`;
    if (NUMERIC_OPS.has(condition.op) && typeof condition.value !== 'number') errors.push({ field, message: `${condition.op} compares numbers: value must be a number` });
    if (condition.op === 'in' && !Array.isArray(condition.value)) errors.push({ field, message: 'in needs a list of values' });
    if ((condition.op === 'eq' || condition.op === 'ne') && (condition.value === undefined || Array.isArray(condition.value))) errors.push({ field, message: `${condition.op} needs one value` });
    if (condition.op === 'exists' && condition.value !== undefined) errors.push({ field, message: 'exists takes no value' });
  });
  if (errors.length > 0) throw problem('invalid-request', `invalid business rule: ${errors.map((error) => `${error.field} ${error.message}`).join('; ')}`, errors);
  if (definition.tools.every((tool) => /^\*+$/.test(tool))) {
    throw problem('refused', 'a business rule must name its tools: "*" alone would apply it to every tool call', [
      { field: '/body/definition/tools', message: 'name tool keys or patterns such as *refund*' },
    ]);
  }
}
