// Rule examples: a recorded decision pinned as "this rule should (not) fire here". Creating one
// copies the decision's facts from its trace, so the example outlives trace retention; checking
// evaluates the rule alone (from a candidate text or the live policy) over each example's facts.
// Nothing here touches the pipeline: evaluation is the policy engine's pure functions.
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import type { AuditLog } from '../audit/log.js';
import { decodeCursor, pageOf } from '../../infra/http/paging.js';
import { notFound, problem } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import { newId } from '../../infra/lib/ids.js';
import { compileRule } from '../../engine/policy/evaluate.js';
import { readFacts } from '../../engine/policy/facts.js';
import { PackInvalid, parsePack } from '../../engine/policy/parse.js';
import type { Pack } from '../../engine/policy/schema.js';
import type { Store } from '../../infra/store/db.js';
import type { RuleExamplesTable } from '../../infra/store/tables.js';
import type { CheckResult, CheckRuleExamplesBody, CreateRuleExampleBody, ListRuleExamplesQuery, RuleExample } from './schemas.js';
import * as examples from './store.js';

/** Examples checked per rule at most; a rule with more is not being pinned, it is being sampled. */
export const MAX_EXAMPLES_CHECKED = 5000;

export interface RuleExampleServiceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  /** The pack in force under a key (shipped, saved or extra), or undefined when there is none. */
  livePack: (key: string) => Pack | undefined;
}

export class RuleExampleService {
  constructor(private readonly deps: RuleExampleServiceDeps) {}

  toWire(row: RuleExamplesTable): RuleExample {
    const facts = readFacts(row.facts);
    return {
      id: row.id,
      rule_id: row.rule_id,
      decision_id: row.decision_id,
      fires: row.fires === 1,
      sample: row.sample,
      surface: facts?.surface ?? null,
      agent: facts?.agent ?? null,
      tool: facts?.tool ?? null,
      entities: [...new Set((facts?.detections ?? []).map((detection) => detection.entity))],
      created_by: row.created_by,
      created_at: row.created_at,
    };
  }

  async list(ruleId: string, query: ListRuleExamplesQuery): Promise<{ items: RuleExample[]; next_cursor: string | null }> {
    const limit = query.limit ?? 50;
    const rows = await examples.listRuleExamples(this.deps.store.db, ruleId, limit + 1, decodeCursor(query.cursor));
    const page = pageOf(rows, limit);
    return { items: page.items.map((row) => this.toWire(row)), next_cursor: page.next_cursor };
  }

  async create(caller: Principal, ruleId: string, body: CreateRuleExampleBody): Promise<RuleExample> {
    const trace = await examples.findTraceFacts(this.deps.store.db, body.decision_id);
    if (trace === undefined) throw notFound('decision', body.decision_id);
    if (trace.facts === null || readFacts(trace.facts) === null) {
      throw problem(
        'refused',
        `decision ${body.decision_id} has no recorded facts (it was recorded before facts were kept): pin a newer decision`,
        [{ field: '/body/decision_id', message: 'the decision has no recorded facts' }],
      );
    }
    const facts = trace.facts;
    const actor = actorOf(caller);
    const row = await this.deps.audit.transact(async (trx, append) => {
      const duplicate = await examples.findExampleOfDecision(trx, ruleId, body.decision_id);
      if (duplicate !== undefined) throw problem('conflict', `decision ${body.decision_id} is already example ${duplicate.id} of rule ${ruleId}; delete it to change it`);
      const next: RuleExamplesTable = {
        id: newId('rex'),
        rule_id: ruleId,
        decision_id: body.decision_id,
        fires: body.fires ? 1 : 0,
        sample: body.sample ?? null,
        facts,
        created_by: actor,
        created_at: this.deps.clock.now().toISOString(),
      };
      await examples.insertRuleExample(trx, next);
      await append({ actor, action: 'rule_example.create', target: next.id, detail: { rule_id: ruleId, decision_id: body.decision_id, fires: body.fires } });
      return next;
    });
    return this.toWire(row);
  }

  async remove(caller: Principal, ruleId: string, exampleId: string): Promise<RuleExample> {
    const actor = actorOf(caller);
    const row = await this.deps.audit.transact(async (trx, append) => {
      const existing = await examples.findRuleExample(trx, ruleId, exampleId);
      if (existing === undefined) throw notFound(`example of rule ${ruleId}`, exampleId);
      await examples.deleteRuleExample(trx, exampleId);
      await append({ actor, action: 'rule_example.delete', target: exampleId, detail: { rule_id: ruleId, decision_id: existing.decision_id, fires: existing.fires === 1 } });
      return existing;
    });
    return this.toWire(row);
  }

  /**
   * Evaluates the rule alone over every example's stored facts. Records nothing. A rule missing
   * from the policy fires nowhere, so every example that expects it to fire fails (and `note` says why).
   */
  async check(ruleId: string, body: CheckRuleExamplesBody): Promise<CheckResult> {
    let pack: Pack;
    let source: 'candidate' | 'live';
    if (body.body !== undefined) {
      try {
        pack = parsePack(body.body);
      } catch (error) {
        if (!(error instanceof PackInvalid)) throw error;
        throw problem(
          'invalid-request',
          `the candidate policy is invalid: ${error.message}`,
          error.errors.map((item) => ({ field: `/body/body${item.path}`, message: item.line === undefined ? item.message : `${item.message} (line ${item.line}, column ${item.column ?? 0})` })),
        );
      }
      if (pack.key !== body.policy) {
        throw problem('invalid-request', `the candidate is policy ${pack.key}, not ${body.policy}`, [{ field: '/body/body/key', message: `must be ${body.policy}` }]);
      }
      source = 'candidate';
    } else {
      const live = this.deps.livePack(body.policy);
      if (live === undefined) throw notFound('policy', body.policy);
      pack = live;
      source = 'live';
    }
    const rule = pack.rules.find((candidate) => candidate.id === ruleId);
    const enabled = rule !== undefined && rule.enabled !== false;
    // Evaluated alone and as if enforcing: whether it fires does not depend on its mode.
    const compiled = rule === undefined ? null : compileRule(rule, pack, 'enforce');
    const rows = await examples.ruleExamplesToCheck(this.deps.store.db, ruleId, MAX_EXAMPLES_CHECKED);
    let unreadable = 0;
    const results = rows.map((row) => {
      const facts = readFacts(row.facts);
      if (facts === null) unreadable += 1;
      const fires = enabled && compiled !== null && facts !== null && compiled.match(facts) !== null;
      const expected = row.fires === 1;
      return { example_id: row.id, decision_id: row.decision_id, expected_fires: expected, fires, ok: fires === expected };
    });
    const notes: string[] = [];
    if (rule === undefined) notes.push(`rule ${ruleId} is not in ${source === 'candidate' ? 'the candidate of' : 'the live'} policy ${body.policy}: it fires nowhere, so every example that expects it to fire fails`);
    else if (!enabled) notes.push(`rule ${ruleId} is disabled: it fires nowhere`);
    if (unreadable > 0) notes.push(`${unreadable} example(s) hold facts this gateway cannot read: they count as not firing`);
    if (rows.length === 0) notes.push(`rule ${ruleId} has no examples`);
    return {
      rule_id: ruleId,
      policy: body.policy,
      source,
      rule_found: rule !== undefined,
      rule_enabled: enabled,
      passed: results.every((result) => result.ok),
      note: notes.length === 0 ? null : notes.join('; '),
      results,
    };
  }
}
