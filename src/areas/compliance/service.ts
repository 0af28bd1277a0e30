// Compliance computed from live records (spec 02 "Compliance, controls, evidence, risk"): the
// control catalogue loaded from catalogue/ (versioned by its sha256), control results with the
// evidence they used, roll-ups per framework and persons' reviews of a control against a clause.
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import { notFound, problem } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import { newId } from '../../infra/lib/ids.js';
import { packagePath } from '../../infra/lib/package-root.js';
import type { JobQueue } from '../../infra/jobs/queue.js';
import type { JobHandler } from '../../infra/jobs/worker.js';
import type { Store } from '../../infra/store/db.js';
import { readJson, writeJson } from '../../infra/store/json-columns.js';
import type { AuditLog } from '../audit/log.js';
import type { AuditVerification } from '../audit/schemas.js';
import { loadCatalogue, type Catalogue } from './catalogue.js';
import { METRICS, type MetricContext } from './metrics.js';
import type {
  ComplianceStatus,
  ComputeResult,
  ControlDefinition,
  ControlList,
  ControlResult,
  ControlStatus,
  Framework,
  FrameworkDetail,
  FrameworkStatus,
  Review,
  ReviewBody,
  SyncResult,
} from './schemas.js';
import * as store from './store.js';

export const COMPUTE_JOB = 'controls.compute';
export const DEFAULT_WINDOW_DAYS = 30;
/** The daily run: results older than this are computed again. */
export const COMPUTE_EVERY_MS = 86_400_000;

export interface ComplianceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  queue: JobQueue;
  verifyAudit: () => Promise<AuditVerification>;
  retentionTracesDays: number;
  /** Where the catalogue files are; default catalogue/ in the package (tests point at a copy). */
  catalogueDir?: string;
}

type StoredControl = ControlDefinition & { clauses: Array<{ framework: string; ref: string; title: string }> };
type ClauseStatus = 'covered' | 'failing' | 'not_evidenced';

export class ComplianceService {
  catalogueDir: string;
  /** The files last read (frameworks are served from here; controls from their table). */
  private loaded: Catalogue | undefined;

  constructor(private readonly deps: ComplianceDeps) {
    this.catalogueDir = deps.catalogueDir ?? packagePath('catalogue');
  }

  /** The files of the version in force: read again when another process loaded a newer version. */
  private async catalogue(): Promise<Catalogue> {
    const latest = await store.latestCatalogue(this.deps.store.db);
    if (this.loaded === undefined || (latest !== undefined && latest.sha256 !== this.loaded.sha256)) {
      try {
        this.loaded = loadCatalogue(this.catalogueDir);
      } catch (error) {
        throw problem('unavailable', `the control catalogue cannot be loaded: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return this.loaded;
  }

  /**
   * Loads the catalogue files. The same files as the loaded version change nothing; other files
   * make a new version. `actor` null: the start-up load, recorded in the version row but not
   * audited (starting the gateway appends nothing to the audit chain).
   */
  async sync(actor: string | null): Promise<SyncResult> {
    let catalogue: Catalogue;
    try {
      catalogue = loadCatalogue(this.catalogueDir);
    } catch (error) {
      throw problem('unavailable', `the control catalogue cannot be loaded: ${error instanceof Error ? error.message : String(error)}`);
    }
    this.loaded = catalogue;
    const counts = { controls: catalogue.controls.length, frameworks: catalogue.frameworks.length, obligations: catalogue.obligations.length };
    const { audit, clock } = this.deps;
    return audit.transact(async (trx, append) => {
      const latest = await store.latestCatalogue(trx);
      if (latest?.sha256 === catalogue.sha256) return { version: latest.version, changed: false, ...counts };
      const version = (latest?.version ?? 0) + 1;
      const now = clock.now().toISOString();
      await store.insertCatalogue(trx, { version, sha256: catalogue.sha256, loaded_at: now, loaded_by: actor ?? 'startup' });
      await store.replaceControls(
        trx,
        catalogue.controls.map((control) => ({ key: control.key, version, title: control.title, definition: writeJson({ ...control, clauses: clausesOf(catalogue, control.key) }) })),
      );
      await store.replaceCatalogueObligations(
        trx,
        catalogue.obligations.map((item) => ({ key: item.key, title: item.title, due_at: item.due_at, source: item.source, recurring: item.recurring ? 1 : 0, detail: writeJson(item.detail) })),
      );
      if (actor !== null) await append({ actor, action: 'controls.sync', target: `catalogue:${version}`, detail: { version, sha256: catalogue.sha256, file_version: catalogue.fileVersion, ...counts } });
      return { version, changed: true, ...counts };
    });
  }

  private async controls(): Promise<{ version: number; controls: StoredControl[] }> {
    let latest = await store.latestCatalogue(this.deps.store.db);
    if (latest === undefined) {
      await this.sync(null);
      latest = await store.latestCatalogue(this.deps.store.db);
    }
    const rows = await store.listControls(this.deps.store.db);
    return { version: latest?.version ?? 0, controls: rows.map((row) => readJson<StoredControl>(row.definition, { key: row.key, title: row.title } as StoredControl)) };
  }

  /** Evaluates every control over the last `windowDays` and stores the results, audited. */
  async compute(actor: string, windowDays: number = DEFAULT_WINDOW_DAYS): Promise<ComputeResult> {
    const { version, controls } = await this.controls();
    const now = this.deps.clock.now();
    const ctx: MetricContext = { db: this.deps.store.db, now, windowDays, retentionTracesDays: this.deps.retentionTracesDays, verifyAudit: this.deps.verifyAudit };
    const computedAt = now.toISOString();
    const results: ControlResult[] = [];
    for (const control of controls) {
      const metric = METRICS[control.metric];
      let measured: store.Measured;
      try {
        measured = metric === undefined ? { value: null, ids: [], counts: {} } : await metric(ctx);
      } catch {
        // A metric that cannot be read is not evidence either way.
        measured = { value: null, ids: [], counts: { error: 1 } };
      }
      results.push({
        id: newId('ctr'),
        key: control.key,
        computed_at: computedAt,
        window_days: windowDays,
        status: statusOf(measured.value, control.pass_when),
        value: measured.value,
        evidence: { ids: measured.ids.slice(0, store.EVIDENCE_IDS), counts: measured.counts },
      });
    }
    const tally = (status: ControlStatus) => results.filter((result) => result.status === status).length;
    await this.deps.audit.transact(async (trx, append) => {
      await store.insertResults(
        trx,
        results.map((result) => ({ ...result, evidence: writeJson(result.evidence) })),
      );
      await append({
        actor,
        action: 'controls.compute',
        target: `catalogue:${version}`,
        detail: { window_days: windowDays, pass: tally('pass'), fail: tally('fail'), not_evidenced: tally('not_evidenced'), failing: results.filter((r) => r.status === 'fail').map((r) => r.key) },
      });
    });
    return { computed_at: computedAt, window_days: windowDays, catalogue_version: version, results };
  }

  computeAs(caller: Principal, windowDays?: number): Promise<ComputeResult> {
    return this.compute(actorOf(caller), windowDays);
  }

  jobHandlers(): Record<string, JobHandler> {
    return { [COMPUTE_JOB]: this.handleJob };
  }

  readonly handleJob: JobHandler = async ({ job, payload }) => {
    const days = typeof payload.window_days === 'number' && payload.window_days >= 1 && payload.window_days <= 365 ? Math.floor(payload.window_days) : DEFAULT_WINDOW_DAYS;
    const result = await this.compute(job.created_by, days);
    return { computed_at: result.computed_at, window_days: days, failing: result.results.filter((r) => r.status === 'fail').length };
  };

  /** Queues the daily run when the newest result is older than a day (or there is none) and none is queued. */
  async scheduleDaily(): Promise<boolean> {
    const { db } = this.deps.store;
    const last = await store.lastComputedAt(db);
    if (last !== undefined && this.deps.clock.now().getTime() - Date.parse(last) < COMPUTE_EVERY_MS) return false;
    if (await store.jobPending(db, COMPUTE_JOB)) return false;
    await this.deps.queue.enqueue(COMPUTE_JOB, { window_days: DEFAULT_WINDOW_DAYS }, { maxAttempts: 3, createdBy: 'system' });
    return true;
  }

  private async latestByKey(historyPerKey: number, controlCount: number): Promise<Map<string, ControlResult[]>> {
    const rows = await store.recentResults(this.deps.store.db, historyPerKey * Math.max(controlCount, 1) * 2);
    const byKey = new Map<string, ControlResult[]>();
    for (const row of rows) {
      const list = byKey.get(row.key) ?? [];
      if (list.length < historyPerKey) list.push(resultToWire(row));
      byKey.set(row.key, list);
    }
    return byKey;
  }

  async listControls(history = 10): Promise<ControlList> {
    const { version, controls } = await this.controls();
    const byKey = await this.latestByKey(history, controls.length);
    return {
      catalogue_version: version,
      items: controls.map((control) => {
        const list = byKey.get(control.key) ?? [];
        return {
          key: control.key,
          title: control.title,
          checks: control.checks,
          metric: control.metric,
          pass_when: control.pass_when,
          window: control.window,
          clauses: control.clauses ?? [],
          latest: list[0] ?? null,
          history: list,
        };
      }),
    };
  }

  /** The latest result of every control, and when the newest was computed. */
  async latest(): Promise<{ computedAt: string | null; results: Map<string, ControlResult> }> {
    const { controls } = await this.controls();
    const byKey = await this.latestByKey(1, controls.length);
    const results = new Map<string, ControlResult>();
    let computedAt: string | null = null;
    for (const [key, list] of byKey) {
      const first = list[0];
      if (first === undefined) continue;
      results.set(key, first);
      if (computedAt === null || first.computed_at > computedAt) computedAt = first.computed_at;
    }
    return { computedAt, results };
  }

  async status(framework?: string): Promise<ComplianceStatus> {
    const frameworks = (await this.catalogue()).frameworks;
    if (framework !== undefined && !frameworks.some((item) => item.key === framework)) throw notFound('framework', framework);
    const { computedAt, results } = await this.latest();
    return {
      computed_at: computedAt,
      frameworks: frameworks.filter((item) => framework === undefined || item.key === framework).map((item) => rollUp(item, results)),
    };
  }

  async listFrameworks(): Promise<{ items: Array<Omit<FrameworkStatus, 'failing_controls' | 'clauses_detail'> & { source: string }> }> {
    const { results } = await this.latest();
    return {
      items: (await this.catalogue()).frameworks.map((item) => {
        const { failing_controls: _failing, clauses_detail: _detail, ...counts } = rollUp(item, results);
        return { ...counts, source: item.source };
      }),
    };
  }

  async framework(key: string): Promise<FrameworkDetail> {
    const item = (await this.catalogue()).frameworks.find((candidate) => candidate.key === key);
    if (item === undefined) throw notFound('framework', key);
    const { results } = await this.latest();
    const titles = new Map((await this.catalogue()).controls.map((control) => [control.key, control.title]));
    const reviews = await store.listReviews(this.deps.store.db, key);
    return {
      key: item.key,
      title: item.title,
      source: item.source,
      status: rollUp(item, results),
      clauses: item.clauses.map((clause) => ({
        ref: clause.ref,
        title: clause.title,
        summary: clause.summary,
        status: clauseStatus(clause.controls, results),
        controls: clause.controls.map((controlKey) => {
          const result = results.get(controlKey);
          return { key: controlKey, title: titles.get(controlKey) ?? controlKey, status: result?.status ?? 'never_computed', value: result?.value ?? null, computed_at: result?.computed_at ?? null };
        }),
      })),
      reviews: reviews.map((row) => ({ ...row })),
    };
  }

  /** A person's review of a control against a framework (and clause, when `reference` names one): 422 when they are not mapped. */
  async review(caller: Principal, body: ReviewBody): Promise<Review> {
    const catalogue = await this.catalogue();
    const framework = catalogue.frameworks.find((item) => item.key === body.framework);
    if (framework === undefined) throw problem('refused', `no framework ${body.framework}; known: ${catalogue.frameworks.map((item) => item.key).join(', ')}`, [{ field: '/body/framework', message: 'unknown framework' }]);
    if (!catalogue.controls.some((control) => control.key === body.control_key)) {
      throw problem('refused', `no control ${body.control_key}`, [{ field: '/body/control_key', message: 'unknown control' }]);
    }
    const clauses = framework.clauses.filter((clause) => clause.controls.includes(body.control_key) && (body.reference === undefined || clause.ref === body.reference));
    if (clauses.length === 0) {
      throw problem(
        'refused',
        body.reference === undefined ? `control ${body.control_key} is not mapped to any clause of ${body.framework}` : `clause ${body.reference} of ${body.framework} does not map control ${body.control_key}`,
        [{ field: body.reference === undefined ? '/body/control_key' : '/body/reference', message: 'not mapped' }],
      );
    }
    const row: store.FrameworkReviewRow = {
      id: newId('frv'),
      framework: body.framework,
      control_key: body.control_key,
      reference: body.reference ?? null,
      reviewer: actorOf(caller),
      reviewed_at: this.deps.clock.now().toISOString(),
      note: body.note ?? null,
    };
    await this.deps.audit.transact(async (trx, append) => {
      await store.insertReview(trx, row);
      await append({ actor: row.reviewer, action: 'framework.review', target: row.id, detail: { framework: row.framework, control_key: row.control_key, reference: row.reference, note: row.note } });
    });
    return row;
  }

  /** For evidence packages: the results computed in a period, the framework status now and the risk assessments of the period (null: no risk table). */
  async periodRecords(from: string, to: string): Promise<{ results: ControlResult[]; status: ComplianceStatus; risks: Array<Record<string, unknown>> | null }> {
    const rows = await store.resultsBetween(this.deps.store.db, from, to);
    const risks = await store.assessmentsBetween(this.deps.store.db, from, to);
    // A catalogue that cannot be read leaves the status empty rather than failing the package.
    const status = await this.status().catch((): ComplianceStatus => ({ computed_at: null, frameworks: [] }));
    return { results: rows.map(resultToWire), status, risks };
  }
}

function clausesOf(catalogue: Catalogue, controlKey: string): Array<{ framework: string; ref: string; title: string }> {
  return catalogue.frameworks.flatMap((framework) =>
    framework.clauses.filter((clause) => clause.controls.includes(controlKey)).map((clause) => ({ framework: framework.key, ref: clause.ref, title: clause.title })),
  );
}

export function statusOf(value: number | null, passWhen: { min?: number; max?: number }): ControlStatus {
  if (value === null) return 'not_evidenced';
  if (passWhen.min !== undefined && value < passWhen.min) return 'fail';
  if (passWhen.max !== undefined && value > passWhen.max) return 'fail';
  return 'pass';
}

function clauseStatus(controls: string[], results: Map<string, ControlResult>): ClauseStatus {
  const statuses = controls.map((key) => results.get(key)?.status ?? 'not_evidenced');
  if (statuses.includes('fail')) return 'failing';
  if (statuses.length === 0 || statuses.includes('not_evidenced')) return 'not_evidenced';
  return 'covered';
}

const CLAUSE_ORDER: Record<ClauseStatus, number> = { failing: 0, not_evidenced: 1, covered: 2 };

function rollUp(framework: Framework, results: Map<string, ControlResult>): FrameworkStatus {
  const detail = framework.clauses
    .map((clause) => ({
      ref: clause.ref,
      title: clause.title,
      status: clauseStatus(clause.controls, results),
      failing_controls: clause.controls.filter((key) => results.get(key)?.status === 'fail'),
      controls: clause.controls,
    }))
    .sort((a, b) => CLAUSE_ORDER[a.status] - CLAUSE_ORDER[b.status]);
  const count = (status: ClauseStatus) => detail.filter((clause) => clause.status === status).length;
  const covered = count('covered');
  return {
    key: framework.key,
    title: framework.title,
    clauses: detail.length,
    covered,
    failing: count('failing'),
    not_evidenced: count('not_evidenced'),
    pass_rate: detail.length === 0 ? 0 : Math.round((covered / detail.length) * 10_000) / 10_000,
    failing_controls: [...new Set(detail.flatMap((clause) => clause.failing_controls))].sort(),
    clauses_detail: detail,
  };
}

function resultToWire(row: store.ControlResultRow): ControlResult {
  return {
    id: row.id,
    key: row.key,
    computed_at: row.computed_at,
    window_days: row.window_days,
    status: row.status as ControlStatus,
    value: row.value,
    evidence: readJson(row.evidence, { ids: [], counts: {} }),
  };
}
