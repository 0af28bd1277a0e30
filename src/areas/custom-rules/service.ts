// Custom rules: stored, validated and audited here; enforced through the one decision pipeline by
// the `custom.rules` detector (fed by setRules) and the `custom-rules` pack (handed to the policy
// registry through `onChange`). Every process reads the table back every second (sync), so several
// gateway processes on one database enforce the same rules.
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import type { AuditLog } from '../audit/log.js';
import { notFound, problem } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import type { Pack } from '../../engine/policy/schema.js';
import type { Store } from '../../infra/store/db.js';
import type { ChangePublisher } from '../../infra/store/notify.js';
import { checkDefinition, toDefinition } from './definition.js';
import type { CustomRulesDetector } from './detector.js';
import { callerMessage, entityOf, ruleIdOf, type CustomRuleDefinition } from './matcher.js';
import { customRulesPack } from './pack.js';
import type { CustomRule, ListCustomRulesQuery, TryCustomRuleBody, TryResult, UpsertCustomRuleBody } from './schemas.js';
import { CustomRuleStore, ruleSetVersion, type CustomRuleRow } from './store.js';

/** Spans a try answers with; the count says how many there were. */
const TRY_SPANS = 100;
/** Locating spans in a try stops after this long (whether the rule fires is decided first, in full). */
const TRY_BUDGET_MS = 300;

export interface CustomRuleServiceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  detector: CustomRulesDetector;
  /** Called with the new pack whenever the rule set this process enforces changes. */
  onChange?: (pack: Pack) => void;
  /** Stored rules that no longer compile (they are left out of enforcement). */
  onSkipped?: (skipped: Array<{ key: string; reason: string }>) => void;  /** Tells the other gateway processes sharing the database that the rules changed. */
  changes?: ChangePublisher;
}

export class CustomRuleService {
  private readonly rows: CustomRuleStore;
  private signature: string | null = null;
  private current: Pack = customRulesPack([]);

  constructor(private readonly deps: CustomRuleServiceDeps) {
    this.rows = new CustomRuleStore(deps.store);
  }

  /** The pack in force in this process. */
  pack(): Pack {
    return this.current;
  }

  toWire(row: CustomRuleRow): CustomRule {
    const definition = readDefinition(row);
    return {
      ...definition,
      rule_id: ruleIdOf(definition.key),
      entity: entityOf(definition.key),
      created_by: row.created_by,
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }

  async list(query: ListCustomRulesQuery): Promise<{ items: CustomRule[]; next_cursor: string | null }> {
    const page = await this.rows.page(query.limit ?? 50, query.cursor);
    return { items: page.rows.map((row) => this.toWire(row)), next_cursor: page.next_cursor };
  }

  async upsert(caller: Principal, body: UpsertCustomRuleBody): Promise<CustomRule & { warnings: string[] }> {
    const { definition, warnings } = checkDefinition(toDefinition(body), { runExamples: true, fieldPrefix: '/body' });
    const actor = actorOf(caller);
    const row = await this.deps.audit.transact(async (trx, append) => {
      const existing = await this.rows.get(trx, definition.key);
      // Keys that differ only in case or punctuation would share a rule id and an entity type.
      const clash = (await this.rows.keys(trx)).find((key) => key !== definition.key && ruleIdOf(key) === ruleIdOf(definition.key));
      if (clash !== undefined) {
        throw problem('conflict', `custom rule ${clash} already uses rule id ${ruleIdOf(clash)} and entity ${entityOf(clash)}; choose another key or update ${clash}`);
      }
      let now = this.deps.clock.now().toISOString();
      // updated_at must change on every write: other processes notice changes by it.
      if (existing !== undefined && now <= existing.updated_at) now = new Date(Date.parse(existing.updated_at) + 1).toISOString();
      const next: CustomRuleRow = {
        key: definition.key,
        definition: JSON.stringify(definition),
        enabled: definition.enabled ? 1 : 0,
        created_by: existing?.created_by ?? actor,
        created_at: existing?.created_at ?? now,
        updated_at: now,
      };
      await this.rows.put(trx, next, existing !== undefined);
      await append({
        actor,
        action: 'custom_rule.upsert',
        target: definition.key,
        detail: { created: existing === undefined, kind: definition.kind, polarity: definition.polarity, effect: definition.effect, enabled: definition.enabled, rule_id: ruleIdOf(definition.key) },
      });
      return next;
    });
    await this.sync();
    this.deps.changes?.publish('rules');
    return { ...this.toWire(row), warnings };
  }

  async remove(caller: Principal, key: string): Promise<CustomRule> {
    const actor = actorOf(caller);
    const row = await this.deps.audit.transact(async (trx, append) => {
      const existing = await this.rows.get(trx, key);
      if (existing === undefined || !(await this.rows.remove(trx, key))) throw notFound('custom rule', key);
      await append({ actor, action: 'custom_rule.delete', target: key, detail: { rule_id: ruleIdOf(key) } });
      return existing;
    });
    await this.sync();
    this.deps.changes?.publish('rules');
    return this.toWire(row);
  }

  /** Runs one rule from the body over a text. Records nothing: no trace, no finding, no audit entry. */
  tryRule(body: TryCustomRuleBody): TryResult {
    const started = performance.now();
    const { definition, compiled } = checkDefinition(toDefinition(body.rule), { runExamples: false, fieldPrefix: '/body/rule' });
    const applies = body.surface === undefined || definition.surfaces.length === 0 || definition.surfaces.includes(body.surface);
    const outcome = applies ? compiled.run(body.text, { deadline: Date.now() + TRY_BUDGET_MS }) : { matched: false, fires: false, spans: [], complete: true };
    const fires = applies && outcome.fires;
    const explanation = !applies
      ? `the rule checks ${definition.surfaces.join(', ')}, not ${body.surface}`
      : definition.polarity === 'deny'
        ? outcome.matched
          ? `${outcome.spans.length} match${outcome.spans.length === 1 ? '' : 'es'}: the rule fires (${definition.effect})`
          : 'no match: the rule does not fire'
        : outcome.matched
          ? 'the required text is present: the rule does not fire'
          : outcome.complete
            ? `the required text is missing: the rule fires (${definition.effect})`
            : 'matching stopped at its time limit: a require rule does not fire on an incomplete check';
    return {
      rule_id: compiled.ruleId,
      entity: compiled.entity,
      applies,
      matched: outcome.matched,
      fires,
      polarity: definition.polarity,
      effect: definition.effect,
      message: callerMessage(definition),
      spans: outcome.spans.slice(0, TRY_SPANS).map((span) => ({ ...span, text: body.text.slice(span.start, span.end) })),
      total_spans: outcome.spans.length,
      complete: outcome.complete,
      explanation,
      ms: Math.round((performance.now() - started) * 1000) / 1000,
    };
  }

  /**
   * Reads the rules back from the database and, when they changed since the last read, recompiles
   * the detector's table and hands the new pack to `onChange`. Returns whether anything changed.
   */
  async sync(): Promise<boolean> {
    const signature = await this.rows.signature();
    if (signature === this.signature) return false;
    const definitions = (await this.rows.all()).map(readDefinition);
    const { skipped } = this.deps.detector.setRules(definitions);
    if (skipped.length > 0) this.deps.onSkipped?.(skipped);
    const broken = new Set(skipped.map((item) => item.key));
    this.current = customRulesPack(
      definitions.filter((definition) => !broken.has(definition.key)),
      ruleSetVersion(signature),
    );
    this.signature = signature;
    this.deps.onChange?.(this.current);
    return true;
  }
}

/** The stored definition, with defaults for fields older rows may lack. */
function readDefinition(row: CustomRuleRow): CustomRuleDefinition {
  const stored = JSON.parse(row.definition) as Partial<CustomRuleDefinition>;
  return { ...toDefinition({ key: row.key, name: row.key }), ...stored, key: row.key, enabled: row.enabled === 1 };
}
