// Replays recorded traffic against a candidate policy: each recorded decision's facts (what policy
// saw: detections with scores, taint, capability, action analysis, ...) are evaluated twice, by the
// policies in force now and by the same set with the candidate in place of its key, and every
// decision whose verdict differs is reported. The content is not needed, so traffic recorded
// without content replays too; rows recorded before facts were kept are counted and skipped.
import type { AgentDirectory } from '../../engine/pipeline/agents.js';
import { evaluate } from '../../engine/policy/evaluate.js';
import { readFacts } from '../../engine/policy/facts.js';
import type { BoundPolicy, PolicyRegistry } from '../../engine/policy/registry.js';
import type { Verdict } from '../../engine/policy/schema.js';
import type { Store } from '../../infra/store/db.js';
import { listReplayTraces } from './store.js';

export interface SimulationOptions {
  /** The candidate, bound as it would be (a new key is added at its level). */
  candidate: BoundPolicy;
  agent?: string;
  sinceDays: number;
  limit: number;
}

export interface ChangedDecision {
  decision_id: string;
  at: string;
  agent: string;
  surface: string;
  recorded_verdict: string;
  verdict_before: Verdict;
  verdict_after: Verdict;
  effective_before: Verdict;
  effective_after: Verdict;
  rules_before: string[];
  rules_after: string[];
}

export interface SimulationResult {
  policy: string;
  examined: number;
  /** Recorded decisions without stored facts (older rows): not replayed. */
  without_facts: number;
  changed: number;
  /** `allow->block` and so on, for verdicts. */
  transitions: Record<string, number>;
  effective_changed: number;
  changes: ChangedDecision[];
  since: string;
  ms: number;
}

export class Simulator {
  constructor(
    private readonly store: Store,
    private readonly registry: PolicyRegistry,
    private readonly directory: AgentDirectory,
    private readonly now: () => Date,
  ) {}

  async run(options: SimulationOptions): Promise<SimulationResult> {
    const started = performance.now();
    const since = new Date(this.now().getTime() - options.sinceDays * 86_400_000).toISOString();
    const rows = await listReplayTraces(this.store.db, { since, limit: options.limit, agent: options.agent });

    const sets = new Map<string, { before: ReturnType<PolicyRegistry['replay']>; after: ReturnType<PolicyRegistry['replay']> }>();
    const setsFor = (agent: string, environment: string | null) => {
      const key = `${agent}\u0000${environment ?? ''}`;
      let pair = sets.get(key);
      if (pair === undefined) {
        const facts = this.directory.lookup(agent);
        const subject = { agent, team: facts.team, environment: environment ?? facts.environment };
        pair = { before: this.registry.replay(subject, null), after: this.registry.replay(subject, options.candidate) };
        sets.set(key, pair);
      }
      return pair;
    };

    const result: SimulationResult = {
      policy: options.candidate.key,
      examined: 0,
      without_facts: 0,
      changed: 0,
      transitions: {},
      effective_changed: 0,
      changes: [],
      since,
      ms: 0,
    };
    for (const row of rows) {
      const facts = readFacts(row.facts);
      if (facts === null) {
        result.without_facts += 1;
        continue;
      }
      result.examined += 1;
      const { before, after } = setsFor(row.agent, row.environment);
      const was = evaluate(before, facts);
      const will = evaluate(after, facts);
      if (was.effectiveVerdict !== will.effectiveVerdict) result.effective_changed += 1;
      if (was.verdict === will.verdict) continue;
      result.changed += 1;
      const transition = `${was.verdict}->${will.verdict}`;
      result.transitions[transition] = (result.transitions[transition] ?? 0) + 1;
      result.changes.push({
        decision_id: row.id,
        at: row.at,
        agent: row.agent,
        surface: row.surface,
        recorded_verdict: row.verdict,
        verdict_before: was.verdict,
        verdict_after: will.verdict,
        effective_before: was.effectiveVerdict,
        effective_after: will.effectiveVerdict,
        rules_before: was.fired.map((rule) => rule.rule_id),
        rules_after: will.fired.map((rule) => rule.rule_id),
      });
    }
    result.ms = Math.round((performance.now() - started) * 100) / 100;
    return result;
  }
}
