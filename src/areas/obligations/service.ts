// GET /api/obligations: what is due when. Framework dates come from the obligations table (loaded
// from catalogue/obligations.yaml by POST /api/controls/sync) and, for keys the table lacks, from
// the file itself, so the route works before a sync. The rest is computed from the deployment's own
// records each time: risk reviews, the evidence period, the audit checkpoint cadence, suppressions
// that expire and legal holds to review.
import { readFileSync } from 'node:fs';
import Value from 'typebox/value';
import { parse } from 'yaml';
import type { Clock } from '../../infra/lib/clock.js';
import type { Store } from '../../infra/store/db.js';
import { OBLIGATION_STATUSES, ObligationsFile, type Obligation, type ObligationsQuery, type ObligationStatus, type ObligationsView } from './schemas.js';
import * as rows from './store.js';
import { readJsonObject } from '../../infra/store/json-columns.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** An evidence package is due this long after the end of the last packaged period. */
export const EVIDENCE_PERIOD_GRACE_DAYS = 30;
/** The audit log should be checkpointed (signed) at least this often. */
export const CHECKPOINT_CADENCE_HOURS = 24;
/** An active legal hold is reviewed this long after it was placed. */
export const LEGAL_HOLD_REVIEW_DAYS = 90;
const DEFAULT_DUE_SOON_DAYS = 14;

export class ObligationsCatalogueError extends Error {}

/** A catalogue obligation, its date as read (a date or a date-time). */
export interface CatalogueObligation {
  key: string;
  title: string;
  due_at: string;
  source: string;
  recurring: boolean;
  detail: Record<string, unknown>;
}

export function loadObligations(file: string): CatalogueObligation[] {
  const value: unknown = parse(readFileSync(file, 'utf8'));
  const errors = [...Value.Errors(ObligationsFile, value)].slice(0, 5).map((error) => `${error.instancePath || '/'} ${error.message}`);
  if (errors.length > 0) throw new ObligationsCatalogueError(`${file}: ${errors.join('; ')}`);
  return (value as ObligationsFile).obligations.map((entry) => {
    if (Number.isNaN(Date.parse(entry.due_at))) throw new ObligationsCatalogueError(`${file}: ${entry.key} due_at ${entry.due_at} is not a date`);
    return { key: entry.key, title: entry.title, due_at: entry.due_at, source: entry.source, recurring: entry.recurring === true, detail: entry.detail ?? {} };
  });
}

/** A missing table (a migration this database has not run) reads as no rows. */
async function orNone<T>(read: () => Promise<T[]>): Promise<T[]> {
  try {
    return await read();
  } catch (error) {
    if (/no such table|does not exist/i.test(String((error as Error).message))) return [];
    throw error;
  }
}

export interface ObligationsServiceDeps {
  store: Store;
  clock: Clock;
  catalogue: readonly CatalogueObligation[];
}

interface Draft {
  key: string;
  title: string;
  due: number;
  source: string;
  recurring: boolean;
  detail: Record<string, unknown>;
}

export class ObligationsService {
  constructor(private readonly deps: ObligationsServiceDeps) {}

  async list(query: ObligationsQuery): Promise<ObligationsView> {
    const now = this.deps.clock.now().getTime();
    const soonMs = (query.due_soon_days ?? DEFAULT_DUE_SOON_DAYS) * DAY_MS;
    const drafts = [...(await this.fromFrameworks()), ...(await this.fromDeployment(now))];
    const status = (due: number): ObligationStatus => (due <= now ? 'overdue' : due - now <= soonMs ? 'due_soon' : 'upcoming');
    const rank = (value: ObligationStatus) => OBLIGATION_STATUSES.indexOf(value);
    const items: Obligation[] = drafts
      // A one-off framework date that has passed applies now; there is nothing left to do by it.
      .filter((draft) => query.include_past === true || draft.recurring || draft.source === 'deployment' || draft.due > now)
      .map((draft) => ({
        key: draft.key,
        title: draft.title,
        due_at: new Date(draft.due).toISOString(),
        source: draft.source,
        status: status(draft.due),
        detail: draft.detail,
      }))
      .sort((a, b) => rank(a.status) - rank(b.status) || a.due_at.localeCompare(b.due_at) || a.key.localeCompare(b.key));
    const summary = { overdue: 0, due_soon: 0, upcoming: 0 };
    for (const item of items) summary[item.status] += 1;
    return { at: new Date(now).toISOString(), summary, items };
  }

  /** The table's rows, and the file's entries for keys the table does not have. */
  private async fromFrameworks(): Promise<Draft[]> {
    const stored = await orNone(() => rows.listObligations(this.deps.store.db));
    const drafts = new Map<string, Draft>();
    for (const row of stored) {
      const due = Date.parse(row.due_at);
      if (Number.isNaN(due)) continue;
      drafts.set(row.key, { key: row.key, title: row.title, due, source: row.source, recurring: Number(row.recurring) === 1, detail: readJsonObject(row.detail) });
    }
    for (const entry of this.deps.catalogue) {
      if (drafts.has(entry.key)) continue;
      drafts.set(entry.key, { ...entry, due: Date.parse(entry.due_at), detail: { ...entry.detail, loaded: false } });
    }
    return [...drafts.values()];
  }

  private async fromDeployment(now: number): Promise<Draft[]> {
    const db = this.deps.store.db;
    const [reviews, evidence, checkpoint, suppressions, holds] = await Promise.all([
      orNone(() => rows.riskReviews(db)),
      rows.lastReadyEvidence(db),
      rows.lastCheckpoint(db),
      rows.expiringSuppressions(db),
      rows.activeLegalHolds(db),
    ]);
    const drafts: Draft[] = [];
    const add = (draft: Omit<Draft, 'source' | 'recurring'>) => drafts.push({ ...draft, source: 'deployment', recurring: true });
    const seen = new Set<string>();
    for (const review of reviews) {
      // Newest first: an agent's newest assessment sets its next review.
      if (seen.has(review.agent)) continue;
      seen.add(review.agent);
      const due = Date.parse(review.next_review_at);
      if (Number.isNaN(due)) continue;
      add({
        key: `risk.review:${review.agent}`,
        title: `Review the risk assessment of agent ${review.agent}`,
        due,
        detail: { kind: 'risk_review', agent: review.agent, assessment_id: review.id, assessed_at: review.assessed_at, route: `POST /api/risk/assessments/${review.agent}` },
      });
    }
    const periodTo = evidence === undefined ? null : readJsonObject(evidence.scope).period_to;
    const periodEnd = typeof periodTo === 'string' ? Date.parse(periodTo) : Number.NaN;
    add({
      key: 'evidence.package',
      title: 'Build the evidence package of the next period',
      due: evidence === undefined ? now : (Number.isNaN(periodEnd) ? Date.parse(evidence.created_at) : periodEnd) + EVIDENCE_PERIOD_GRACE_DAYS * DAY_MS,
      detail: {
        kind: 'evidence_period',
        last_package_id: evidence?.id ?? null,
        last_period_to: typeof periodTo === 'string' ? periodTo : null,
        grace_days: EVIDENCE_PERIOD_GRACE_DAYS,
        route: 'POST /api/evidence',
        ...(evidence === undefined ? { reason: 'no evidence package has been built' } : {}),
      },
    });
    add({
      key: 'audit.checkpoint',
      title: 'Sign an audit checkpoint',
      due: checkpoint === undefined ? now : Date.parse(checkpoint.at) + CHECKPOINT_CADENCE_HOURS * HOUR_MS,
      detail: {
        kind: 'checkpoint_cadence',
        last_checkpoint_id: checkpoint?.id ?? null,
        last_checkpoint_at: checkpoint?.at ?? null,
        cadence_hours: CHECKPOINT_CADENCE_HOURS,
        route: 'POST /api/audit/checkpoint',
        ...(checkpoint === undefined ? { reason: 'no audit checkpoint has been signed' } : {}),
      },
    });
    for (const suppression of suppressions) {
      const due = Date.parse(suppression.expires_at);
      // An expired suppression no longer applies: nothing is due.
      if (Number.isNaN(due) || due <= now) continue;
      add({
        key: `suppression.expires:${suppression.id}`,
        title: 'A guardrail suppression expires: renew it or let it lapse',
        due,
        detail: {
          kind: 'suppression_expiry',
          suppression_id: suppression.id,
          scope: suppression.scope,
          agent: suppression.agent,
          detector_key: suppression.detector_key,
          entity_type: suppression.entity_type,
          created_by: suppression.created_by,
        },
      });
    }
    for (const hold of holds) {
      add({
        key: `legal_hold.review:${hold.id}`,
        title: `Review whether legal hold ${hold.name} is still needed`,
        due: Date.parse(hold.created_at) + LEGAL_HOLD_REVIEW_DAYS * DAY_MS,
        detail: { kind: 'legal_hold_review', legal_hold_id: hold.id, placed_at: hold.created_at, placed_by: hold.created_by, review_days: LEGAL_HOLD_REVIEW_DAYS },
      });
    }
    return drafts;
  }
}
