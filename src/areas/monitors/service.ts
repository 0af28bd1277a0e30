// Monitors with baselines (spec 02 "Tools, MCP, discovery, monitors, imports"): an MCP server's
// tool listing, a hosted API's OpenAPI document, a code-host repository or a knowledge source's
// freshness, looked at on a schedule and on request (job monitors.run). The first successful run
// stores a baseline; later runs are compared with it and a difference is a finding. The baseline
// does not move on its own, so a change stays visible until someone re-baselines (POST .../run
// with rebaseline). Scheduling lives in the row (next_run_at, claimed with a compare-and-set) so
// that it survives restarts and each slot runs once across every gateway process.
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import { outboundUrlProblem, type OutboundPolicy } from '../../infra/http/outbound.js';
import { notFound, problem, type Problem } from '../../infra/http/problems.js';
import type { JobQueue } from '../../infra/jobs/queue.js';
import { describeError, type JobHandler } from '../../infra/jobs/worker.js';
import type { Clock } from '../../infra/lib/clock.js';
import { newId } from '../../infra/lib/ids.js';
import { storableText, storableValue } from '../../infra/lib/storable-text.js';
import type { Store } from '../../infra/store/db.js';
import { readJson, readJsonObject, writeJson } from '../../infra/store/json-columns.js';
import type { MonitorRow, MonitorRunRow, MonitorsTable } from '../../infra/store/tables.js';
import { findingType } from '../../engine/findings/catalog.js';
import { fingerprint } from '../../engine/findings/fingerprint.js';
import type { Recorder } from '../../engine/recording/recorder.js';
import type { AuditLog } from '../audit/log.js';
import type { CodehostScanning, HostedApiReading } from '../integrations/contracts.js';
import type { McpService } from '../mcp/service.js';
import {
  compare,
  configProblems,
  findingsFor,
  MAX_EVIDENCE_CHANGES,
  MAX_RUN_CHANGES,
  observe,
  repoNameProblem,
  type Change,
  type KindDeps,
  type MonitorKind,
  type Observation,
} from './kinds.js';
import type { CreateMonitorBody, Deleted, ListMonitorsQuery, Monitor, MonitorDetail, MonitorList, Run, RunAccepted, RunBody, UpdateMonitorBody } from './schemas.js';
import * as monitors from './store.js';

export const MONITOR_RUN_JOB = 'monitors.run';
export const DEFAULT_INTERVAL_SECONDS = 3600;
export const MAX_INTERVAL_SECONDS = 30 * 86_400;
/** The config as JSON, at most. */
export const MAX_CONFIG_BYTES = 8192;
/** Due monitors queued per schedule pass. */
const DUE_BATCH = 100;
/** Runs shown with one monitor. */
const RUNS_SHOWN = 20;
/** Characters kept of a run's error. */
const MAX_ERROR_CHARS = 2000;
/** A run job is tried twice (a process dying mid-run); a finished run is never run again. */
const RUN_ATTEMPTS = 2;
const SYSTEM = 'system';

export interface MonitorServiceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  queue: JobQueue;
  recorder: Recorder;
  mcp: McpService;
  codehost: CodehostScanning;
  hostedApi: HostedApiReading;
  settings: { minIntervalSeconds: number; outbound: OutboundPolicy };
}

type RunStatus = 'baseline' | 'unchanged' | 'changed' | 'failed';

export class MonitorService {
  private readonly kindDeps: KindDeps;

  constructor(readonly deps: MonitorServiceDeps) {
    this.kindDeps = {
      mcp: deps.mcp,
      codehost: deps.codehost,
      hostedApi: deps.hostedApi,
      readSource: (key) => monitors.findSource(deps.store.db, key),
      now: () => deps.clock.now(),
    };
  }

  async list(query: ListMonitorsQuery): Promise<MonitorList> {
    const limit = query.limit ?? 100;
    const rows = await monitors.listMonitors(this.deps.store.db, {
      ...(query.kind === undefined ? {} : { kind: query.kind }),
      ...(query.enabled === undefined ? {} : { enabled: query.enabled }),
      ...(query.cursor === undefined ? {} : { before: query.cursor }),
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    return { items: page.map(monitorToWire), next_cursor: rows.length > limit ? (page.at(-1)?.id ?? null) : null };
  }

  async get(id: string): Promise<MonitorDetail> {
    const row = await this.requireMonitor(id);
    const runs = await monitors.recentRuns(this.deps.store.db, id, RUNS_SHOWN);
    return { ...monitorToWire(row), runs: runs.map(runToWire) };
  }

  async create(caller: Principal, body: CreateMonitorBody): Promise<Monitor> {
    const { audit, clock } = this.deps;
    const kind = body.kind;
    const target = await this.checkTarget(kind, body.target);
    const interval = this.checkInterval(body.interval_seconds ?? DEFAULT_INTERVAL_SECONDS);
    const config = checkConfig(kind, body.config ?? {});
    const enabled = body.enabled ?? true;
    const now = clock.now();
    const at = now.toISOString();
    const actor = actorOf(caller);
    const row: MonitorRow = {
      id: newId('mon'),
      kind,
      target,
      name: storableText(body.name ?? `${kind} ${target}`.slice(0, 200)),
      interval_seconds: interval,
      config: writeJson(config),
      enabled: enabled ? 1 : 0,
      baseline: null,
      baseline_at: null,
      // The first scheduled run is an interval away (POST .../run takes the baseline at once).
      next_run_at: enabled ? afterSeconds(now, interval) : null,
      last_run_at: null,
      last_status: null,
      last_error: null,
      last_change_at: null,
      created_by: actor,
      created_at: at,
      updated_at: at,
    };
    await audit.transact(async (trx, append) => {
      await monitors.insertMonitor(trx, row);
      await append({ actor, action: 'monitor.created', target: row.id, detail: { kind, target, name: row.name, interval_seconds: interval, config, enabled } });
    });
    return monitorToWire(row);
  }

  async update(caller: Principal, id: string, body: UpdateMonitorBody): Promise<Monitor> {
    const { audit, clock } = this.deps;
    const current = await this.requireMonitor(id);
    const kind = current.kind as MonitorKind;
    const changes: Partial<MonitorsTable> = {};
    const now = clock.now();
    if (body.name !== undefined) changes.name = storableText(body.name);
    if (body.interval_seconds !== undefined) changes.interval_seconds = this.checkInterval(body.interval_seconds);
    if (body.config !== undefined) {
      const config = writeJson(checkConfig(kind, body.config));
      if (config !== current.config) {
        changes.config = config;
        // What a run looks at depends on the config: the old baseline says nothing about the new one.
        changes.baseline = null;
        changes.baseline_at = null;
      }
    }
    const wasEnabled = Number(current.enabled) === 1;
    const enabled = body.enabled ?? wasEnabled;
    if (enabled !== wasEnabled) {
      changes.enabled = enabled ? 1 : 0;
      changes.next_run_at = enabled ? now.toISOString() : null;
    } else if (enabled && changes.interval_seconds !== undefined && changes.interval_seconds !== Number(current.interval_seconds)) {
      changes.next_run_at = afterSeconds(now, changes.interval_seconds);
    }
    if (changes.name === current.name) delete changes.name;
    if (changes.interval_seconds === Number(current.interval_seconds)) delete changes.interval_seconds;
    if (Object.keys(changes).length === 0) return monitorToWire(current);
    changes.updated_at = now.toISOString();
    const actor = actorOf(caller);
    await audit.transact(async (trx, append) => {
      await monitors.updateMonitor(trx, id, changes);
      const { baseline: _baseline, updated_at: _at, config, ...shown } = changes;
      await append({
        actor,
        action: 'monitor.updated',
        target: id,
        detail: { ...shown, ...(config === undefined ? {} : { config: readJsonObject(config), baseline_cleared: true }) },
      });
    });
    return monitorToWire({ ...current, ...changes });
  }

  /** Deletes the monitor and its runs; the findings it raised stay. */
  async remove(caller: Principal, id: string): Promise<Deleted> {
    const actor = actorOf(caller);
    return this.deps.audit.transact(async (trx, append) => {
      const current = await monitors.findMonitor(trx, id);
      if (current === undefined) throw notFound('monitor', id);
      const runsDeleted = await monitors.deleteMonitor(trx, id);
      await append({ actor, action: 'monitor.deleted', target: id, detail: { kind: current.kind, target: current.target, name: current.name, runs_deleted: runsDeleted } });
      return { id, deleted: true as const, runs_deleted: runsDeleted };
    });
  }

  async pause(caller: Principal, id: string): Promise<Monitor> {
    return this.setEnabled(caller, id, false);
  }

  /** Enables the monitor and makes it due now. */
  async resume(caller: Principal, id: string): Promise<Monitor> {
    return this.setEnabled(caller, id, true);
  }

  /** POST .../run: a run now, through the job queue (paused monitors too: someone asked). */
  async requestRun(caller: Principal, id: string, body: RunBody): Promise<RunAccepted> {
    const { audit, clock, queue } = this.deps;
    const actor = actorOf(caller);
    const rebaseline = body.rebaseline === true;
    const at = clock.now().toISOString();
    const runId = newId('mrun');
    const job = await audit.transact(async (trx, append) => {
      const current = await monitors.findMonitor(trx, id);
      if (current === undefined) throw notFound('monitor', id);
      const queued = await queue.enqueue(MONITOR_RUN_JOB, { monitor_id: id, run_id: runId, rebaseline }, { maxAttempts: RUN_ATTEMPTS, createdBy: actor }, trx);
      await monitors.insertRun(trx, newRun(runId, id, 'manual', `manual:${runId}`, queued.id, at));
      await append({ actor, action: 'monitor.run_requested', target: id, detail: { run_id: runId, job_id: queued.id, rebaseline } });
      return queued;
    });
    return { monitor_id: id, run_id: runId, job_id: job.id, status: 'queued', rebaseline };
  }

  /** Queues the runs that are due, each once across every gateway process (called on a timer); answers how many this call queued. */
  async scheduleDue(): Promise<number> {
    const { store, clock, queue } = this.deps;
    const now = clock.now();
    const at = now.toISOString();
    let queued = 0;
    for (const monitor of await monitors.dueMonitors(store.db, at, DUE_BATCH)) {
      const slot = monitor.next_run_at;
      if (slot === null) continue;
      const runId = newId('mrun');
      try {
        const claimed = await store.db.transaction().execute(async (trx) => {
          // Moving next_run_at on first keeps another process from claiming the same slot; the
          // unique (monitor_id, slot) index on the run is the second guard.
          if (!(await monitors.claimDueSlot(trx, monitor.id, slot, afterSeconds(now, Number(monitor.interval_seconds)), at))) return false;
          const job = await queue.enqueue(MONITOR_RUN_JOB, { monitor_id: monitor.id, run_id: runId, rebaseline: false }, { maxAttempts: RUN_ATTEMPTS, createdBy: SYSTEM }, trx);
          await monitors.insertRun(trx, newRun(runId, monitor.id, 'schedule', slot, job.id, at));
          return true;
        });
        if (claimed) queued += 1;
      } catch (error) {
        // Another process holds this slot: its transaction won.
        if (!monitors.isUniqueViolation(error)) throw error;
      }
    }
    return queued;
  }

  jobHandlers(): Record<string, JobHandler> {
    return { [MONITOR_RUN_JOB]: this.handleJob };
  }

  readonly handleJob: JobHandler = async ({ payload, signal }) => {
    const { store } = this.deps;
    const runId = typeof payload.run_id === 'string' ? payload.run_id : '';
    const run = await monitors.findRun(store.db, runId);
    if (run === undefined) return { skipped: 'no such run (its monitor was deleted)', run_id: runId };
    if (run.status !== 'queued') return { skipped: `the run is finished already (${run.status})`, run_id: runId };
    const monitor = await monitors.findMonitor(store.db, run.monitor_id);
    if (monitor === undefined) return { skipped: 'no such monitor', run_id: runId };
    if (run.trigger === 'schedule' && Number(monitor.enabled) !== 1) {
      await monitors.finishRun(store.db, runId, { status: 'failed', error: 'the monitor was paused before the run started', finished_at: this.now() });
      return { skipped: 'the monitor is paused', run_id: runId };
    }
    return this.execute(monitor, run, payload.rebaseline === true, signal);
  };

  /** Looks at the target, compares with the baseline (or stores it), finishes the run and raises the findings. */
  private async execute(monitor: MonitorRow, run: MonitorRunRow, rebaseline: boolean, signal: AbortSignal): Promise<Record<string, unknown>> {
    const { store } = this.deps;
    const kind = monitor.kind as MonitorKind;
    let observation: Observation;
    try {
      observation = await observe(this.kindDeps, { monitorId: monitor.id, kind, target: monitor.target, config: readJsonObject(monitor.config), signal });
    } catch (error) {
      const message = storableText(describeError(error).slice(0, MAX_ERROR_CHARS));
      await this.finish(monitor, run, 'failed', [], message);
      return { run_id: run.id, monitor_id: monitor.id, status: 'failed', error: message };
    }
    const state = storableValue(observation.state);
    let status: RunStatus;
    let changes: Change[] = [];
    let baselineRow = monitor;
    if (monitor.baseline === null || rebaseline) {
      const at = this.now();
      if (await monitors.storeBaseline(store.db, monitor.id, monitor.baseline_at, writeJson(state), at)) {
        status = 'baseline';
      } else {
        // Another run set a baseline meanwhile: compare with that one.
        baselineRow = (await monitors.findMonitor(store.db, monitor.id)) ?? monitor;
        status = 'unchanged';
      }
    } else {
      status = 'unchanged';
    }
    if (status !== 'baseline') {
      changes = compare(kind, readJsonObject(baselineRow.baseline), { ...observation, state });
      if (changes.length > 0) status = 'changed';
    }
    if (!(await this.finish(monitor, run, status, changes, null))) return { run_id: run.id, skipped: 'the run was finished by another worker' };
    this.raise(monitor, run, changes, { ...observation, state });
    return { run_id: run.id, monitor_id: monitor.id, status, changes: changes.length };
  }

  /** Marks the run done and the monitor's last_*; false when the run was finished already. */
  private async finish(monitor: MonitorRow, run: MonitorRunRow, status: RunStatus, changes: readonly Change[], error: string | null): Promise<boolean> {
    const at = this.now();
    const kept = changes.slice(0, MAX_RUN_CHANGES).map((change) => storableValue(change));
    return this.deps.store.db.transaction().execute(async (trx) => {
      if (!(await monitors.finishRun(trx, run.id, { status, changes: writeJson(kept), error, finished_at: at }))) return false;
      // A run of a monitor deleted meanwhile updates nothing: the row is gone.
      await monitors.updateMonitor(trx, monitor.id, {
        last_run_at: at,
        last_status: status === 'failed' ? 'failed' : status === 'changed' ? 'changed' : 'ok',
        last_error: error,
        ...(status === 'changed' ? { last_change_at: at } : {}),
      });
      return true;
    });
  }

  private raise(monitor: MonitorRow, run: MonitorRunRow, changes: readonly Change[], observation: Observation): void {
    const kind = monitor.kind as MonitorKind;
    const raised = findingsFor(kind, monitor.target, changes, observation);
    if (raised.length === 0) return;
    const at = this.now();
    this.deps.recorder.raise(
      raised.map((finding) => ({
        fingerprint: fingerprint(finding.type, finding.subject, [monitor.id, finding.what]),
        type: finding.type,
        severity: finding.severity ?? findingType(finding.type).default_severity,
        title: storableText(finding.title.slice(0, 1000)),
        subject: finding.subject,
        agent: null,
        at,
        evidence: storableValue({
          monitor_id: monitor.id,
          monitor_name: monitor.name,
          kind,
          target: monitor.target,
          run_id: run.id,
          changes: changes.slice(0, MAX_EVIDENCE_CHANGES),
          changes_total: changes.length,
          observed: observation.facts,
        }),
        decisionId: null,
      })),
    );
  }

  private async setEnabled(caller: Principal, id: string, enabled: boolean): Promise<Monitor> {
    const { audit, clock } = this.deps;
    const actor = actorOf(caller);
    return audit.transact(async (trx, append) => {
      const current = await monitors.findMonitor(trx, id);
      if (current === undefined) throw notFound('monitor', id);
      if ((Number(current.enabled) === 1) === enabled) return monitorToWire(current);
      const at = clock.now().toISOString();
      const changes = { enabled: enabled ? 1 : 0, next_run_at: enabled ? at : null, updated_at: at };
      await monitors.updateMonitor(trx, id, changes);
      await append({ actor, action: enabled ? 'monitor.resumed' : 'monitor.paused', target: id, detail: { kind: current.kind, target: current.target, next_run_at: changes.next_run_at } });
      return monitorToWire({ ...current, ...changes });
    });
  }

  /** The target as stored, or 422 saying why the kind cannot watch it. */
  private async checkTarget(kind: MonitorKind, raw: string): Promise<string> {
    const { store, settings } = this.deps;
    const target = raw.trim();
    switch (kind) {
      case 'mcp_server':
        if (!(await monitors.mcpServerExists(store.db, target))) throw refused('target', `names no registered MCP server (POST /api/mcp-servers first)`);
        return target;
      case 'hosted_api': {
        const why = outboundUrlProblem(target, settings.outbound);
        if (why !== null) throw refused('target', `is not a URL the gateway may call: ${why}`);
        return storableText(new URL(target).toString());
      }
      case 'codehost_repo': {
        const why = repoNameProblem(target);
        if (why !== null) throw refused('target', why);
        return target;
      }
      case 'source_freshness':
        if ((await monitors.findSource(store.db, target)) === undefined) throw refused('target', 'names no registered knowledge source (PUT /api/sources first)');
        return target;
    }
  }

  private checkInterval(seconds: number): number {
    const min = this.deps.settings.minIntervalSeconds;
    if (seconds < min) throw refused('interval_seconds', `is under the minimum of ${min} seconds (the setting monitor_min_interval_seconds)`);
    if (seconds > MAX_INTERVAL_SECONDS) throw refused('interval_seconds', `is over the maximum of ${MAX_INTERVAL_SECONDS} seconds (30 days)`);
    return seconds;
  }

  private async requireMonitor(id: string): Promise<MonitorRow> {
    const row = await monitors.findMonitor(this.deps.store.db, id);
    if (row === undefined) throw notFound('monitor', id);
    return row;
  }

  private now(): string {
    return this.deps.clock.now().toISOString();
  }
}

/** The config for a kind: only the keys it reads, with values of their shape, ≤ 8 KiB as JSON (else 422). */
function checkConfig(kind: MonitorKind, raw: Record<string, unknown>): Record<string, unknown> {
  const found = configProblems(kind, raw);
  if (found.length > 0) {
    throw problem(
      'refused',
      `config ${found.map((entry) => `${entry.key} ${entry.message}`).join('; ')}`,
      found.map((entry) => ({ field: `/body/config/${entry.key}`, message: entry.message })),
    );
  }
  const config = storableValue(raw);
  if (Buffer.byteLength(writeJson(config)) > MAX_CONFIG_BYTES) throw refused('config', `is over ${MAX_CONFIG_BYTES} bytes as JSON`);
  return config;
}

function newRun(id: string, monitorId: string, trigger: 'schedule' | 'manual', slot: string, jobId: string, at: string): MonitorRunRow {
  return { id, monitor_id: monitorId, trigger, slot, status: 'queued', job_id: jobId, changes: '[]', error: null, created_at: at, finished_at: null };
}

function afterSeconds(now: Date, seconds: number): string {
  return new Date(now.getTime() + seconds * 1000).toISOString();
}

function refused(field: string, message: string): Problem {
  return problem('refused', `${field} ${message}`, [{ field: `/body/${field}`, message }]);
}

function monitorToWire(row: MonitorRow): Monitor {
  const baseline = row.baseline === null ? null : readJsonObject(row.baseline);
  return {
    id: row.id,
    kind: row.kind as MonitorKind,
    target: row.target,
    name: row.name,
    interval_seconds: Number(row.interval_seconds),
    config: readJsonObject(row.config),
    enabled: Number(row.enabled) === 1,
    baseline,
    baseline_at: row.baseline_at,
    next_run_at: row.next_run_at,
    last_run_at: row.last_run_at,
    last_status: row.last_status as Monitor['last_status'],
    last_error: row.last_error,
    last_change_at: row.last_change_at,
    created_by: row.created_by,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function runToWire(row: MonitorRunRow): Run {
  return {
    id: row.id,
    monitor_id: row.monitor_id,
    trigger: row.trigger === 'manual' ? 'manual' : 'schedule',
    slot: row.slot,
    status: row.status as Run['status'],
    job_id: row.job_id,
    changes: readJson<Run['changes']>(row.changes, []),
    error: row.error,
    created_at: row.created_at,
    finished_at: row.finished_at,
  };
}
