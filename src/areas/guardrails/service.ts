// Guardrail feedback and suppressions (spec 02 "Detectors and guardrail feedback"): people label
// what a recorded decision detected, and a false-positive label can become a suppression that stops
// the same guardrail_detection finding recurring. Every change is audited in its transaction; the
// in-memory SuppressionFilter of this process is re-read after each change (others within a second).
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import type { AuditLog } from '../audit/log.js';
import { decodeCursor, pageOf } from '../../infra/http/paging.js';
import { notFound, problem } from '../../infra/http/problems.js';
import { addDays, type Clock } from '../../infra/lib/clock.js';
import { newId } from '../../infra/lib/ids.js';
import { readFacts } from '../../engine/policy/facts.js';
import type { Store } from '../../infra/store/db.js';
import type {
  CreateFeedbackBody,
  CreateSuppressionBody,
  Feedback,
  FeedbackLabel,
  FeedbackStatus,
  ListFeedbackQuery,
  ListSuppressionsQuery,
  Suppression,
  SuppressionScope,
} from './schemas.js';
import {
  activeFromFeedback,
  deleteSuppression,
  findDecision,
  findFeedback,
  findSuppression,
  insertFeedback,
  insertSuppression,
  listFeedback,
  listSuppressions,
  sameFeedback,
  setFeedbackStatus,
  type DecisionRow,
  type FeedbackRow,
  type SuppressionRow,
} from './store.js';

/** One detection a recorded decision made: entity type, the detector that found it and its score. */
export interface Detected {
  entity: string;
  detector: string | null;
  score: number | null;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

function parseArray(text: string): unknown[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value : [];
  } catch {
    return [];
  }
}

/**
 * What a decision detected: every detection from its stored facts; rows recorded before facts were
 * kept fall back to the decisive detections of the fired rules and the list of entity types.
 */
export function detectedOf(row: Pick<DecisionRow, 'facts' | 'rules' | 'entities'>): Detected[] {
  const facts = readFacts(row.facts);
  if (facts !== null) return facts.detections.map((d) => ({ entity: d.entity, detector: d.detector ?? null, score: d.score }));
  const found: Detected[] = [];
  for (const rule of parseArray(row.rules)) {
    if (isObject(rule) && typeof rule.entity === 'string') {
      found.push({
        entity: rule.entity,
        detector: typeof rule.detector === 'string' ? rule.detector : null,
        score: typeof rule.score === 'number' ? rule.score : null,
      });
    }
  }
  for (const entity of parseArray(row.entities)) {
    if (typeof entity === 'string' && !found.some((item) => item.entity === entity)) found.push({ entity, detector: null, score: null });
  }
  return found;
}

const unique = <T>(values: T[]): T[] => [...new Set(values)];

export function feedbackToWire(row: FeedbackRow): Feedback {
  return {
    id: row.id,
    decision_id: row.decision_id,
    label: row.label as FeedbackLabel,
    detector_key: row.detector_key,
    entity_type: row.entity_type,
    note: row.note,
    agent: row.agent,
    surface: row.surface,
    content_sha256: row.content_sha256,
    status: row.status as FeedbackStatus,
    created_by: row.created_by,
    created_at: row.created_at,
  };
}

export function suppressionToWire(row: SuppressionRow, now: string): Suppression {
  return {
    id: row.id,
    feedback_id: row.feedback_id,
    scope: row.scope as SuppressionScope,
    agent: row.agent,
    detector_key: row.detector_key,
    entity_type: row.entity_type,
    content_sha256: row.content_sha256,
    exact: row.content_sha256 !== null,
    reason: row.reason,
    expires_at: row.expires_at,
    active: row.deleted_at === null && (row.expires_at === null || row.expires_at > now),
    created_by: row.created_by,
    created_at: row.created_at,
    deleted_at: row.deleted_at,
  };
}

const invalid = (field: string, detail: string, message: string) => problem('invalid-request', detail, [{ field, message }]);

export interface FeedbackDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  /** Re-reads the suppressions this process enforces (SuppressionFilter.sync) after a change. */
  onSuppressionsChanged?: () => Promise<void>;
}

export class FeedbackService {
  constructor(private readonly deps: FeedbackDeps) {}

  async listFeedback(query: ListFeedbackQuery): Promise<{ items: Feedback[]; next_cursor: string | null }> {
    const limit = query.limit ?? 50;
    const rows = await listFeedback(this.deps.store.db, { label: query.label, status: query.status, before: decodeCursor(query.cursor), limit: limit + 1 });
    const page = pageOf(rows, limit);
    return { items: page.items.map(feedbackToWire), next_cursor: page.next_cursor };
  }

  /**
   * POST /api/guardrails/feedback. A false or true positive is about something the decision
   * detected: entity_type and detector_key must name one of its detections, and when left out
   * they are taken from the detections if that is unambiguous. A false negative is about a miss,
   * so any entity type is accepted and nothing is filled in.
   */
  async createFeedback(caller: Principal, body: CreateFeedbackBody): Promise<Feedback> {
    const { store, audit, clock } = this.deps;
    const decision = await findDecision(store.db, body.decision_id);
    if (decision === undefined) throw notFound('decision', body.decision_id);
    let entity = body.entity_type ?? null;
    let detector = body.detector_key ?? null;
    if (body.label !== 'false_negative') {
      const detected = detectedOf(decision);
      const entities = unique(detected.map((item) => item.entity));
      if (detected.length === 0) {
        throw invalid('/body/label', `decision ${decision.id} detected nothing; label a missed detection false_negative`, 'the decision made no detection');
      }
      if (entity !== null && !entities.includes(entity)) {
        throw invalid('/body/entity_type', `decision ${decision.id} did not detect ${entity}; it detected ${entities.join(', ')}`, `one of ${entities.join(', ')}`);
      }
      const ofEntity = detected.filter((item) => entity === null || item.entity === entity);
      const detectors = unique(ofEntity.map((item) => item.detector).filter((key): key is string => key !== null));
      if (detector !== null && !detectors.includes(detector)) {
        throw invalid(
          '/body/detector_key',
          `detector ${detector} made no detection${entity === null ? '' : ` of ${entity}`} in decision ${decision.id}`,
          detectors.length === 0 ? 'the decision does not say which detector found it' : `one of ${detectors.join(', ')}`,
        );
      }
      if (entity === null) {
        const candidates = unique(detected.filter((item) => detector === null || item.detector === detector).map((item) => item.entity));
        if (candidates.length !== 1) {
          throw invalid('/body/entity_type', `decision ${decision.id} detected ${candidates.join(', ')}: name the entity_type the label is about`, 'required when the decision detected several entity types');
        }
        entity = candidates[0] as string;
      }
      if (detector === null) {
        const found = unique(detected.filter((item) => item.entity === entity).map((item) => item.detector).filter((key): key is string => key !== null));
        if (found.length === 1) detector = found[0] as string;
      }
    }
    const key = { decision_id: decision.id, label: body.label, detector_key: detector, entity_type: entity };
    const existing = await sameFeedback(store.db, key);
    if (existing !== undefined) throw problem('conflict', `decision ${decision.id} already has this label (feedback ${existing.id})`);
    const actor = actorOf(caller);
    const row: FeedbackRow = {
      id: newId('gfb'),
      ...key,
      note: body.note ?? null,
      agent: decision.agent,
      surface: decision.surface,
      content_sha256: decision.content_sha256,
      status: 'open',
      created_by: actor,
      created_at: clock.now().toISOString(),
    };
    await audit.transact(async (trx, append) => {
      await insertFeedback(trx, row);
      await append({
        actor,
        action: 'guardrail.feedback',
        target: row.id,
        detail: { decision_id: row.decision_id, label: row.label, detector_key: row.detector_key, entity_type: row.entity_type, agent: row.agent },
      });
    });
    return feedbackToWire(row);
  }

  async listSuppressions(query: ListSuppressionsQuery): Promise<{ items: Suppression[]; next_cursor: string | null }> {
    const limit = query.limit ?? 50;
    const rows = await listSuppressions(this.deps.store.db, { agent: query.agent, before: decodeCursor(query.cursor), limit: limit + 1 });
    const page = pageOf(rows, limit);
    const now = this.deps.clock.now().toISOString();
    return { items: page.items.map((row) => suppressionToWire(row, now)), next_cursor: page.next_cursor };
  }

  /** POST /api/guardrails/suppressions: only from a false-positive label, one in force per label. */
  async createSuppression(caller: Principal, body: CreateSuppressionBody): Promise<Suppression> {
    const { store, audit, clock } = this.deps;
    const feedback = await findFeedback(store.db, body.feedback_id);
    if (feedback === undefined) throw notFound('feedback', body.feedback_id);
    if (feedback.label !== 'false_positive') {
      throw problem('conflict', `feedback ${feedback.id} is labelled ${feedback.label}; only a false_positive label can be suppressed`);
    }
    const now = clock.now();
    const nowText = now.toISOString();
    const inForce = await activeFromFeedback(store.db, feedback.id, nowText);
    if (inForce.length > 0) throw problem('conflict', `feedback ${feedback.id} already has suppression ${inForce[0]?.id} in force`);
    const scope = body.scope ?? 'agent';
    const actor = actorOf(caller);
    const row: SuppressionRow = {
      id: newId('gsp'),
      feedback_id: feedback.id,
      scope,
      agent: scope === 'agent' ? feedback.agent : null,
      detector_key: feedback.detector_key,
      entity_type: feedback.entity_type,
      content_sha256: body.exact === true ? feedback.content_sha256 : null,
      reason: body.reason ?? null,
      expires_at: body.ttl_days === undefined ? null : addDays(now, body.ttl_days).toISOString(),
      created_by: actor,
      created_at: nowText,
      deleted_at: null,
    };
    await audit.transact(async (trx, append) => {
      await insertSuppression(trx, row);
      await setFeedbackStatus(trx, feedback.id, 'suppressed');
      await append({
        actor,
        action: 'guardrail.suppression.create',
        target: row.id,
        detail: {
          feedback_id: row.feedback_id,
          scope: row.scope,
          agent: row.agent,
          detector_key: row.detector_key,
          entity_type: row.entity_type,
          exact: row.content_sha256 !== null,
          expires_at: row.expires_at,
          ...(row.reason === null ? {} : { reason: row.reason }),
        },
      });
    });
    await this.deps.onSuppressionsChanged?.();
    return suppressionToWire(row, nowText);
  }

  /** DELETE /api/guardrails/suppressions/{id}: soft delete; its label is open again when nothing else suppresses it. */
  async deleteSuppression(caller: Principal, id: string): Promise<Suppression> {
    const { store, audit, clock } = this.deps;
    const row = await findSuppression(store.db, id);
    if (row === undefined) throw notFound('suppression', id);
    if (row.deleted_at !== null) throw problem('conflict', `suppression ${id} was deleted at ${row.deleted_at}`);
    const actor = actorOf(caller);
    const now = clock.now().toISOString();
    await audit.transact(async (trx, append) => {
      if (!(await deleteSuppression(trx, id, now))) throw problem('conflict', `suppression ${id} was deleted meanwhile`);
      if ((await activeFromFeedback(trx, row.feedback_id, now)).length === 0) await setFeedbackStatus(trx, row.feedback_id, 'open');
      await append({ actor, action: 'guardrail.suppression.delete', target: id, detail: { feedback_id: row.feedback_id, scope: row.scope, agent: row.agent } });
    });
    await this.deps.onSuppressionsChanged?.();
    return suppressionToWire({ ...row, deleted_at: now }, now);
  }
}
