// Risk of agents (spec 02 "Compliance, controls, evidence, risk"): assessments by people (every one
// kept, the latest in force, audited), a deterministic classification from declarations and traffic
// (rules in catalogue/risk-classification.yaml), and the register of every registered agent.
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import { notFound, problem } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import { newId } from '../../infra/lib/ids.js';
import type { Store } from '../../infra/store/db.js';
import { readJsonObject, readJsonStrings, writeJson } from '../../infra/store/json-columns.js';
import type { AgentRow, RiskAssessmentRow } from '../../infra/store/tables.js';
import type { AuditLog } from '../audit/log.js';
import { classify } from './classify.js';
import {
  EU_AI_ACT_CLASSES,
  RISK_LEVELS,
  type AssessBody,
  type Assessment,
  type Classification,
  type ClassificationRules,
  type EuAiActClass,
  type Register,
  type RegisterEntry,
  type RiskLevel,
} from './schemas.js';
import * as risk from './store.js';

const DAY_MS = 86_400_000;
/** Bounds on `answers`: serialised size and nesting depth. */
export const MAX_ANSWERS_BYTES = 65_536;
export const MAX_ANSWERS_DEPTH = 6;
/** Names that are not a person: a sign-off by one of them is refused. */
const NOT_A_PERSON = new Set(['system', 'anonymous', 'admin', 'operator', 'unknown']);

export interface RiskDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  rules: ClassificationRules;
}

export class RiskService {
  constructor(private readonly deps: RiskDeps) {}

  async assess(caller: Principal, slug: string, body: AssessBody): Promise<Assessment> {
    const { store, audit, clock } = this.deps;
    const answers = body.answers ?? {};
    checkAnswers(answers);
    const signOff = body.sign_off ?? false;
    const signer = body.signed_off_by?.trim();
    if (signOff && (signer === undefined || signer === '')) {
      throw problem('refused', 'a sign-off needs signed_off_by: the person signing off', [{ field: '/body/signed_off_by', message: 'required when sign_off is true' }]);
    }
    if (signOff && signer !== undefined && NOT_A_PERSON.has(signer.toLowerCase())) {
      throw problem('refused', `signed_off_by must name a person, not "${signer}"`, [{ field: '/body/signed_off_by', message: 'must name a person' }]);
    }
    if (!signOff && body.signed_off_by !== undefined) {
      throw problem('refused', 'signed_off_by is given but sign_off is not true', [{ field: '/body/sign_off', message: 'must be true when signed_off_by is given' }]);
    }
    if (RISK_LEVELS.indexOf(body.residual_risk) > RISK_LEVELS.indexOf(body.inherent_risk)) {
      throw problem('refused', `residual_risk ${body.residual_risk} is above inherent_risk ${body.inherent_risk}: controls do not raise risk; raise inherent_risk instead`, [
        { field: '/body/residual_risk', message: 'must not be above inherent_risk' },
      ]);
    }
    const agent = await risk.findAgent(store.db, slug);
    if (agent === undefined) throw notFound('agent', slug);

    const now = clock.now();
    const at = now.toISOString();
    const reviewMonths = body.review_months ?? 12;
    const actor = actorOf(caller);
    const row: RiskAssessmentRow = {
      id: newId('risk'),
      agent: agent.slug,
      eu_ai_act_class: body.eu_ai_act_class,
      inherent_risk: body.inherent_risk,
      residual_risk: body.residual_risk,
      answers: writeJson(answers),
      review_months: reviewMonths,
      signed_off: signOff ? 1 : 0,
      signed_off_by: signOff ? (signer ?? null) : null,
      signed_off_at: signOff ? at : null,
      assessed_by: actor,
      assessed_at: at,
      next_review_at: addMonths(now, reviewMonths).toISOString(),
    };
    const previous = await audit.transact(async (trx, append) => {
      const count = await risk.countAssessments(trx, agent.slug);
      await risk.insertAssessment(trx, row);
      const detail = {
        agent: agent.slug,
        eu_ai_act_class: row.eu_ai_act_class,
        inherent_risk: row.inherent_risk,
        residual_risk: row.residual_risk,
        review_months: reviewMonths,
        next_review_at: row.next_review_at,
      };
      await append({ actor, action: 'risk.assessed', target: row.id, detail });
      if (signOff) await append({ actor, action: 'risk.signed_off', target: row.id, detail: { agent: agent.slug, signed_off_by: row.signed_off_by } });
      return count;
    });
    return assessmentToWire(row, previous);
  }

  async classify(slug: string): Promise<Classification> {
    const agent = await risk.findAgent(this.deps.store.db, slug);
    if (agent === undefined) throw notFound('agent', slug);
    return this.classifyAgent(agent);
  }

  private async classifyAgent(agent: AgentRow): Promise<Classification> {
    const { rules, store, clock } = this.deps;
    const since = new Date(clock.now().getTime() - rules.observed_days * DAY_MS).toISOString();
    const seen = await risk.observed(store.db, agent.slug, since);
    return classify(agent.slug, rules, {
      purpose: agent.purpose,
      data_classes: readJsonStrings(agent.data_classes),
      declared_tools: readJsonStrings(agent.declared_tools),
      risk_tier: agent.risk_tier,
      observed: { window_days: rules.observed_days, ...seen },
    });
  }

  async register(): Promise<Register> {
    const { db } = this.deps.store;
    const [agents, latest, critical] = await Promise.all([risk.registeredAgents(db), risk.latestAssessments(db), risk.openCriticalFindings(db)]);
    const now = this.deps.clock.now().toISOString();
    const items: RegisterEntry[] = [];
    for (const agent of agents) {
      const assessment = latest.get(agent.slug);
      const base = { agent: agent.slug, name: agent.name, owner_email: agent.owner_email, owner_team: agent.owner_team, open_critical_findings: critical.get(agent.slug) ?? 0 };
      if (assessment === undefined) {
        // Not assessed: the classification stands in, marked provisional.
        const classification = await this.classifyAgent(agent);
        items.push({
          ...base,
          class: classification.class,
          provisional: true,
          inherent_risk: null,
          residual_risk: null,
          assessment_id: null,
          assessed: false,
          assessed_at: null,
          signed_off: false,
          signed_off_by: null,
          next_review_at: null,
          overdue: false,
        });
        continue;
      }
      items.push({
        ...base,
        class: assessment.eu_ai_act_class as EuAiActClass,
        provisional: false,
        inherent_risk: assessment.inherent_risk as RiskLevel,
        residual_risk: assessment.residual_risk as RiskLevel,
        assessment_id: assessment.id,
        assessed: true,
        assessed_at: assessment.assessed_at,
        signed_off: Number(assessment.signed_off) === 1,
        signed_off_by: assessment.signed_off_by,
        next_review_at: assessment.next_review_at,
        overdue: assessment.next_review_at < now,
      });
    }
    items.sort(registerOrder);
    return {
      items,
      counts: {
        agents: items.length,
        assessed: items.filter((item) => item.assessed).length,
        signed_off: items.filter((item) => item.signed_off).length,
        overdue: items.filter((item) => item.overdue).length,
        provisional: items.filter((item) => item.provisional).length,
      },
    };
  }
}

/** Overdue first, then the strictest class, then the highest residual risk (unassessed last), then slug. */
function registerOrder(a: RegisterEntry, b: RegisterEntry): number {
  const residual = (entry: RegisterEntry) => (entry.residual_risk === null ? -1 : RISK_LEVELS.indexOf(entry.residual_risk));
  return (
    Number(b.overdue) - Number(a.overdue) ||
    EU_AI_ACT_CLASSES.indexOf(a.class) - EU_AI_ACT_CLASSES.indexOf(b.class) ||
    residual(b) - residual(a) ||
    (a.agent < b.agent ? -1 : a.agent > b.agent ? 1 : 0)
  );
}

/** `months` calendar months later, UTC; a day the month lacks becomes its last day (31 Jan + 1 → 28/29 Feb). */
export function addMonths(from: Date, months: number): Date {
  const result = new Date(from.getTime());
  const day = result.getUTCDate();
  result.setUTCDate(1);
  result.setUTCMonth(result.getUTCMonth() + months);
  const last = new Date(Date.UTC(result.getUTCFullYear(), result.getUTCMonth() + 1, 0)).getUTCDate();
  result.setUTCDate(Math.min(day, last));
  return result;
}

function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  let deepest = 0;
  for (const child of children) deepest = Math.max(deepest, depthOf(child));
  return 1 + deepest;
}

function checkAnswers(answers: object): void {
  if (Buffer.byteLength(JSON.stringify(answers)) > MAX_ANSWERS_BYTES) {
    throw problem('invalid-request', `answers is larger than ${MAX_ANSWERS_BYTES} bytes as JSON`, [{ field: '/body/answers', message: `at most ${MAX_ANSWERS_BYTES} bytes` }]);
  }
  if (depthOf(answers) > MAX_ANSWERS_DEPTH) {
    throw problem('invalid-request', `answers is nested more than ${MAX_ANSWERS_DEPTH} levels deep`, [{ field: '/body/answers', message: `at most ${MAX_ANSWERS_DEPTH} levels` }]);
  }
}

function assessmentToWire(row: RiskAssessmentRow, previous: number): Assessment {
  return {
    id: row.id,
    agent: row.agent,
    eu_ai_act_class: row.eu_ai_act_class as EuAiActClass,
    inherent_risk: row.inherent_risk as RiskLevel,
    residual_risk: row.residual_risk as RiskLevel,
    answers: readJsonObject(row.answers),
    review_months: row.review_months,
    signed_off: Number(row.signed_off) === 1,
    signed_off_by: row.signed_off_by,
    signed_off_at: row.signed_off_at,
    assessed_by: row.assessed_by,
    assessed_at: row.assessed_at,
    next_review_at: row.next_review_at,
    previous_assessments: previous,
  };
}
