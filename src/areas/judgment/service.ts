// GET and PUT /api/judgment/posture: which judgment tiers injection.judgment and pii.judgment ask,
// what personal data may leave the machine, and what a failed judgment means. The posture is stored
// in the database (one row, audited); until an operator stores one it follows the settings. Every
// process keeps the posture in memory (the engine's JudgmentState) and reads it back on sync().
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import { problem, type FieldError } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import type { ChangePublisher } from '../../infra/store/notify.js';
import type { Store } from '../../infra/store/db.js';
import type { JudgmentPostureTable } from '../../infra/store/tables.js';
import {
  BACKENDS,
  defaultPosture,
  loosensPii,
  PII_EGRESS,
  postureRefusals,
  sendsOffMachine,
  type JudgmentPosture,
  type JudgmentState,
} from '../../engine/detectors/judgment/posture.js';
import { DETERMINISTIC_TIER, explicitTiers, parseTier } from '../../engine/detectors/judgment/tiers.js';
import type { AuditLog } from '../audit/log.js';
import type { PostureView, PutPostureBody } from './schemas.js';
import { POSTURE_ROW_ID, readPosture, writePosture } from './store.js';

export const POSTURE_AUDIT_TARGET = 'judgment.posture';

const blank = (value: string | undefined): boolean => value === undefined || value.trim() === '';

function fromRow(row: JudgmentPostureTable): JudgmentPosture {
  let tiers: string[] = [];
  try {
    const parsed: unknown = JSON.parse(row.tiers);
    if (Array.isArray(parsed)) tiers = parsed.filter((tier): tier is string => typeof tier === 'string');
  } catch {
    // An unreadable row asks no tier.
  }
  return {
    tiers: explicitTiers(tiers),
    pii_egress: (PII_EGRESS as readonly string[]).includes(row.pii_egress) ? (row.pii_egress as JudgmentPosture['pii_egress']) : 'block',
    fail_closed: Number(row.fail_closed) === 1,
    backend: (BACKENDS as readonly string[]).includes(row.backend) ? (row.backend as JudgmentPosture['backend']) : 'local',
  };
}

interface Stored {
  reason: string;
  updated_by: string;
  updated_at: string;
}

export interface JudgmentServiceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  state: JudgmentState;
  /** The `judgment_tiers` setting: the posture before an operator stores one. */
  configuredTiers: readonly string[];
  /** Called after the posture in memory changed (the detector lists are rebuilt). */
  onChange?: () => void;
  /** Tells the other gateway processes sharing the database that the posture changed. */
  changes?: ChangePublisher;
}

export class JudgmentService {
  private stored: Stored | null = null;
  /** The row last applied, to tell a change from a repeat on sync(). */
  private seen = '';

  constructor(private readonly deps: JudgmentServiceDeps) {}

  view(): PostureView {
    const { state } = this.deps;
    const posture = state.posture;
    const { tiers: usable, reason } = state.tiers();
    const used = new Set(usable.map((tier) => tier.spec));
    const effective: PostureView['effective_tiers'] = explicitTiers(posture.tiers).map((spec) => {
      const tier = parseTier(spec);
      if ('error' in tier) return { name: spec, kind: 'local' as const, model: null, used: false, why_not: tier.error };
      const whyNot =
        posture.backend === 'local' && tier.kind === 'hosted'
          ? 'hosted and the backend is local'
          : posture.backend === 'remote' && tier.kind === 'local'
            ? 'local and the backend is remote'
            : tier.kind === 'hosted' && !state.deployment.allowEgress
              ? 'hosted and allow_egress is false'
              : null;
      return { name: tier.name, kind: tier.kind, model: tier.model, used: used.has(spec), why_not: whyNot };
    });
    effective.push({ name: DETERMINISTIC_TIER, kind: 'deterministic', model: null, used: true, why_not: null });
    return {
      tiers: [...posture.tiers],
      pii_egress: posture.pii_egress,
      fail_closed: posture.fail_closed,
      backend: posture.backend,
      source: this.stored === null ? 'settings' : 'operator',
      reason: this.stored?.reason ?? null,
      updated_by: this.stored?.updated_by ?? null,
      updated_at: this.stored?.updated_at ?? null,
      allow_egress: state.deployment.allowEgress,
      sends_off_machine: state.deployment.allowEgress && sendsOffMachine(posture),
      available: reason === null,
      unavailable_reason: reason,
      effective_tiers: effective,
      stats: { ...state.stats },
    };
  }

  async put(caller: Principal, body: PutPostureBody): Promise<PostureView> {
    const { store, audit, clock, state } = this.deps;
    const row = await readPosture(store.db);
    const before = row === undefined ? defaultPosture(this.deps.configuredTiers) : fromRow(row);
    const after: JudgmentPosture = {
      tiers: body.tiers === undefined ? before.tiers : explicitTiers(body.tiers),
      pii_egress: body.pii_egress ?? before.pii_egress,
      fail_closed: body.fail_closed ?? before.fail_closed,
      backend: body.backend ?? before.backend,
    };
    // CONTRACT.md "Answers": a refusal the specification names on an otherwise valid body is a 422.
    if (blank(body.reason)) {
      throw problem('refused', 'a judgment posture change needs a reason', [{ field: '/body/reason', message: 'required' }]);
    }
    const refusals = postureRefusals(after, state.deployment);
    if (refusals.length > 0) {
      const errors: FieldError[] = refusals.map((message) => ({ field: message.startsWith('backend') ? '/body/backend' : '/body/tiers', message }));
      throw problem('refused', `the deployment does not permit this judgment posture: ${refusals.join('; ')}`, errors);
    }
    const confirmed = body.confirm_egress === true;
    if (!confirmed && !sendsOffMachine(before) && sendsOffMachine(after)) {
      throw problem('refused', 'this posture starts sending payloads off the machine (a hosted judgment tier): confirm with confirm_egress: true', [
        { field: '/body/confirm_egress', message: 'required when payloads start leaving the machine' },
      ]);
    }
    if (!confirmed && loosensPii(before, after)) {
      throw problem('refused', `pii_egress ${before.pii_egress} → ${after.pii_egress} loosens personal-data handling: confirm with confirm_egress: true`, [
        { field: '/body/confirm_egress', message: 'required when personal-data handling loosens' },
      ]);
    }
    const reason = (body.reason as string).trim();
    const actor = actorOf(caller);
    const next: JudgmentPostureTable = {
      id: POSTURE_ROW_ID,
      tiers: JSON.stringify(after.tiers),
      pii_egress: after.pii_egress,
      fail_closed: after.fail_closed ? 1 : 0,
      backend: after.backend,
      reason,
      updated_by: actor,
      updated_at: clock.now().toISOString(),
    };
    await audit.transact(async (trx, append) => {
      await writePosture(trx, next);
      await append({ actor, action: 'judgment.posture', target: POSTURE_AUDIT_TARGET, detail: { before, after, reason, confirm_egress: confirmed } });
    });
    this.apply(next);
    this.deps.changes?.publish('judgment');
    return this.view();
  }

  /** Reads back the posture any process stored (at start and on the periodic state sync). */
  async sync(): Promise<void> {
    const row = await readPosture(this.deps.store.db);
    if (row === undefined) return;
    this.apply(row);
  }

  private apply(row: JudgmentPostureTable): void {
    const signature = JSON.stringify([row.tiers, row.pii_egress, Number(row.fail_closed), row.backend, row.reason, row.updated_by, row.updated_at]);
    if (signature === this.seen) return;
    this.seen = signature;
    this.stored = { reason: row.reason, updated_by: row.updated_by, updated_at: row.updated_at };
    this.deps.state.set(fromRow(row));
    this.deps.onChange?.();
  }
}
