// The code-host integration (spec 02 "Integrations", spec 01 §6 Events): a connection whose token
// is sealed at once and never answered; repository scans through the REST API (no clone) as a job
// (codehost.scan), whose reports become findings and discovery sites; and the signed push webhook,
// which verifies the raw body's HMAC, refuses replays by delivery id and queues a rescan.
import { randomBytes } from 'node:crypto';
import { actorOf, type Principal } from '../../../infra/auth/principal.js';
import { outboundUrlProblem } from '../../../infra/http/outbound.js';
import { notFound, problem, type Problem } from '../../../infra/http/problems.js';
import type { JobQueue } from '../../../infra/jobs/queue.js';
import type { JobHandler } from '../../../infra/jobs/worker.js';
import type { Clock } from '../../../infra/lib/clock.js';
import { newId } from '../../../infra/lib/ids.js';
import type { Sealer } from '../../../infra/lib/sealed.js';
import { storableText, storableValue } from '../../../infra/lib/storable-text.js';
import type { Store } from '../../../infra/store/db.js';
import { readJson, writeJson } from '../../../infra/store/json-columns.js';
import type { CodehostScanRow, DiscoverySiteRow } from '../../../infra/store/tables.js';
import type { OutboundPolicy } from '../../../infra/http/outbound.js';
import { findingType } from '../../../engine/findings/catalog.js';
import { fingerprint } from '../../../engine/findings/fingerprint.js';
import type { Pipeline } from '../../../engine/pipeline/decide.js';
import type { FindingUpsert, Recorder } from '../../../engine/recording/recorder.js';
import type { AuditLog } from '../../audit/log.js';
import type { CodehostScanning, CodehostScanSummary, ScanTrigger } from '../contracts.js';
import { analyzeFiles, selectFiles, type AnalysisReport, type RepoFile } from './analysis/index.js';
import { CodehostClient, CodehostError, DEFAULT_CODEHOST_LIMITS, type CodehostLimits } from './client.js';
import {
  REF_PATTERN,
  REPO_FULL_NAME_PATTERN,
  type Connection,
  type Repo,
  type Scan,
  type ScanReport,
  type WebhookAnswer,
  type WebhookBody,
  type WebhookSecret,
} from './schemas.js';
import * as codehost from './store.js';
import { deliveryIdProblem, eventNameProblem, signatureMatches } from './webhook.js';

export const CODEHOST_SCAN_JOB = 'codehost.scan';
/** The agent name prompt trials run under (a trial records nothing and observes no agent). */
const SCAN_AGENT = 'codehost-scan';
const MAX_PROMPT_CHARS = 20_000;
const MAX_ERROR_CHARS = 2000;
/** Repositories listed at most (10 pages of 100). */
const MAX_REPOS = 1000;
/** Entries of each report list kept at most, and sites written per repository. */
const MAX_REPORT_ITEMS = 1000;
const MAX_SITES = 5000;
const MAX_SHADOW_HINTS = 200;
const MAX_NAME_CHARS = 500;
const MAX_SLUG_CHARS = 64;
const WEBHOOK_ACTOR = 'codehost-webhook';
const REPO_NAME = new RegExp(REPO_FULL_NAME_PATTERN);
const REF = new RegExp(REF_PATTERN, 'u');
const COMMIT_SHA = /^[0-9a-f]{40}$/;
const ZERO_SHA = '0'.repeat(40);
const UNSIGNED = 'the webhook signature (X-Hub-Signature-256) is missing or does not verify under the webhook secret';

export interface CodehostServiceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  queue: JobQueue;
  sealer: Sealer;
  recorder: Recorder;
  /** Prompts found in code are checked through the one pipeline (trials: nothing recorded). */
  pipeline: Pipeline;
  /** `limits` tightens the timeouts and caps (tests); the defaults are DEFAULT_CODEHOST_LIMITS. */
  settings: { apiUrl: string; outbound: OutboundPolicy; limits?: Partial<CodehostLimits> };
}

type ScanInput = Parameters<CodehostScanning['queueScan']>[0];

/** Why a scan stopped, as stored on the scan (never a token). */
class ScanFailure extends Error {}

export class CodehostService implements CodehostScanning {
  private readonly limits: CodehostLimits;

  constructor(readonly deps: CodehostServiceDeps) {
    this.limits = { ...DEFAULT_CODEHOST_LIMITS, ...deps.settings.limits };
  }

  /** POST .../connect: checks the token against the code host, seals it and replaces any earlier connection. */
  async connect(caller: Principal, accessToken: string): Promise<Connection> {
    const { audit, clock, sealer, settings } = this.deps;
    const baseUrl = settings.apiUrl;
    const refusedUrl = outboundUrlProblem(baseUrl, settings.outbound);
    if (refusedUrl !== null) throw problem('refused', `the setting codehost_api_url (${baseUrl}) is refused by the outbound policy: ${refusedUrl}`);
    let login: string | null;
    try {
      login = (await new CodehostClient(baseUrl, accessToken, settings.outbound, this.limits).user()).login;
    } catch (error) {
      throw asProblem(error, 'the code host refused the token: check that it is valid and can read repositories');
    }
    // Sealed before anything else holds it; only the sealed form and a hint go further.
    const sealed = sealer.seal(accessToken);
    const hint = `${accessToken.slice(0, 4)}…`;
    const at = clock.now().toISOString();
    const actor = actorOf(caller);
    const accountLogin = login === null ? null : storableText(login);
    await audit.transact(async (trx, append) => {
      const replaced = await codehost.saveConnection(trx, {
        id: codehost.SINGLETON_ID,
        base_url: baseUrl,
        token_sealed: sealed,
        token_hint: hint,
        account_login: accountLogin,
        created_by: actor,
        created_at: at,
        updated_at: at,
      });
      await append({ actor, action: 'codehost.connected', target: codehost.SINGLETON_ID, detail: { base_url: baseUrl, account_login: accountLogin, token_hint: hint, replaced } });
    });
    return { connected: true, base_url: baseUrl, account_login: accountLogin, token_hint: hint, updated_at: at };
  }

  async connected(): Promise<boolean> {
    return (await codehost.findConnection(this.deps.store.db)) !== undefined;
  }

  /** GET .../repos: what the connection can read (409 when there is none). */
  async repos(): Promise<{ items: Repo[] }> {
    const client = await this.requireClient();
    try {
      return { items: await client.repos(MAX_REPOS) };
    } catch (error) {
      throw asProblem(error, 'the code host refused the stored token: connect again with POST /api/integrations/codehost/connect');
    }
  }

  async listRepoNames(limit: number): Promise<string[]> {
    if (!(await this.connected())) return [];
    const client = await this.requireClient();
    try {
      return (await client.repos(Math.max(0, Math.min(limit, MAX_REPOS)))).map((repo) => repo.full_name);
    } catch (error) {
      throw asProblem(error, 'the code host refused the stored token');
    }
  }

  /** Creates the scan row (queued) and its codehost.scan job in one audited transaction. */
  async queueScan(input: ScanInput): Promise<{ scan_id: string; job_id: string }> {
    const { repo, ref } = checkScanInput(input);
    if (!(await this.connected())) throw notConnected();
    return this.deps.audit.transact(async (trx, append) => this.queueIn(trx, append, { ...input, repo_full_name: repo, ref }));
  }

  /** POST .../scan. */
  async requestScan(caller: Principal, body: { repo_full_name: string; ref?: string }): Promise<{ scan_id: string; status: 'queued'; job_id: string }> {
    const queued = await this.queueScan({ repo_full_name: body.repo_full_name, ref: body.ref ?? null, trigger: 'manual', requested_by: actorOf(caller) });
    return { ...queued, status: 'queued' };
  }

  /** Runs a scan in the caller (monitors): the scan row is written as for a queued one; a failure is an answer. */
  async scanNow(input: Parameters<CodehostScanning['scanNow']>[0]): Promise<CodehostScanSummary> {
    const { repo, ref } = checkScanInput(input);
    const { audit, clock } = this.deps;
    const at = clock.now().toISOString();
    const row = newScanRow({ ...input, repo_full_name: repo, ref }, at, null);
    await audit.transact(async (trx, append) => {
      await codehost.insertScan(trx, row);
      await append({ actor: input.requested_by, action: 'codehost.scan_requested', target: row.id, detail: { repo_full_name: repo, ref, trigger: input.trigger, job_id: null } });
    });
    return this.runScan(row, input.signal);
  }

  async getScan(id: string): Promise<Scan> {
    const row = await codehost.findScan(this.deps.store.db, id);
    if (row === undefined) throw notFound('code-host scan', id);
    return scanToWire(row);
  }

  /** POST .../webhook-secret: a new secret, sealed; the answer is the only place it is shown. */
  async createWebhookSecret(caller: Principal): Promise<WebhookSecret> {
    const { audit, clock, sealer } = this.deps;
    const secret = randomBytes(32).toString('base64url');
    const sealed = sealer.seal(secret);
    const at = clock.now().toISOString();
    const actor = actorOf(caller);
    const replaced = await audit.transact(async (trx, append) => {
      const existed = await codehost.saveWebhookSecret(trx, { id: codehost.SINGLETON_ID, secret_sealed: sealed, created_by: actor, created_at: at });
      await append({ actor, action: 'codehost.webhook_secret_set', target: codehost.SINGLETON_ID, detail: { replaced: existed } });
      return existed;
    });
    return { secret, created_at: at, replaced, header: 'X-Hub-Signature-256', algorithm: 'sha256' };
  }

  /**
   * POST .../webhook. Nothing is written before the signature verifies; the delivery id is
   * recorded first (its primary key refuses a replay, even two copies at once), then a push queues
   * a rescan in the same transaction.
   */
  async receiveWebhook(input: { raw: Buffer; body: WebhookBody; signature: string | undefined; delivery: string | undefined; event: string | undefined }): Promise<{ status: 200 | 202; answer: WebhookAnswer }> {
    const { store, audit, clock, sealer } = this.deps;
    const secretRow = await codehost.findWebhookSecret(store.db);
    if (secretRow === undefined) throw problem('unauthenticated', UNSIGNED);
    let secret: string;
    try {
      secret = sealer.unseal(secretRow.secret_sealed);
    } catch {
      throw problem('unauthenticated', UNSIGNED);
    }
    if (!signatureMatches(secret, input.raw, input.signature)) throw problem('unauthenticated', UNSIGNED);
    const deliveryProblem = deliveryIdProblem(input.delivery);
    if (deliveryProblem !== null) throw problem('invalid-request', deliveryProblem);
    const eventProblem = eventNameProblem(input.event);
    if (eventProblem !== null) throw problem('invalid-request', eventProblem);
    const deliveryId = input.delivery as string;
    const event = input.event as string;
    const at = clock.now().toISOString();
    const replay = () => problem('conflict', `delivery ${deliveryId} was received before: a replay is not acted on`);
    const push = event === 'push' ? pushTarget(input.body) : null;
    const repo = push !== null && 'repo' in push ? push.repo : null;
    const delivery = { delivery_id: deliveryId, event, repo_full_name: repo, scan_id: null, received_at: at };

    if (push !== null && 'repo' in push && (await this.connected())) {
      const queued = await audit.transact(async (trx, append) => {
        if (!(await codehost.recordDelivery(trx, delivery))) throw replay();
        const scan = await this.queueIn(trx, append, { repo_full_name: push.repo, ref: push.ref, trigger: 'webhook', requested_by: WEBHOOK_ACTOR }, deliveryId);
        await codehost.setDeliveryScan(trx, deliveryId, scan.scan_id);
        return scan;
      });
      return { status: 202, answer: { delivery_id: deliveryId, event, ...queued } };
    }
    if (!(await codehost.recordDelivery(store.db, delivery))) throw replay();
    if (event === 'ping') return { status: 200, answer: { delivery_id: deliveryId, event, ok: true } };
    const ignored = push === null ? `event ${event} is not acted on` : 'ignored' in push ? push.ignored : 'no code-host connection: POST /api/integrations/codehost/connect first';
    return { status: 202, answer: { delivery_id: deliveryId, event, ignored } };
  }

  jobHandlers(): Record<string, JobHandler> {
    return { [CODEHOST_SCAN_JOB]: this.handleJob };
  }

  readonly handleJob: JobHandler = async ({ payload, signal }) => {
    const scanId = typeof payload.scan_id === 'string' ? payload.scan_id : '';
    const row = await codehost.findScan(this.deps.store.db, scanId);
    if (row === undefined) return { skipped: 'no such scan', scan_id: scanId };
    if (row.status === 'completed' || row.status === 'failed') return { skipped: `the scan is ${row.status}`, scan_id: scanId };
    const startedAt = this.deps.clock.now().toISOString();
    // A job delivered again after a lost lease takes the scan over; two at once do not both run it.
    if (!(await codehost.claimScan(this.deps.store.db, scanId, row.status, row.started_at, startedAt))) return { skipped: 'the scan is being run elsewhere', scan_id: scanId };
    const summary = await this.runScan({ ...row, status: 'running', started_at: startedAt }, signal);
    return { scan_id: scanId, status: summary.status, commit_sha: summary.commit_sha, error: summary.error };
  };

  private async queueIn(
    trx: Parameters<Parameters<AuditLog['transact']>[0]>[0],
    append: Parameters<Parameters<AuditLog['transact']>[0]>[1],
    input: ScanInput,
    deliveryId?: string,
  ): Promise<{ scan_id: string; job_id: string }> {
    const at = this.deps.clock.now().toISOString();
    const row = newScanRow(input, at, 'queued');
    const job = await this.deps.queue.enqueue(CODEHOST_SCAN_JOB, { scan_id: row.id }, { maxAttempts: 2, createdBy: input.requested_by }, trx);
    await codehost.insertScan(trx, { ...row, job_id: job.id });
    await append({
      actor: input.requested_by,
      action: 'codehost.scan_requested',
      target: row.id,
      detail: { repo_full_name: row.repo_full_name, ref: row.ref, trigger: input.trigger, job_id: job.id, ...(deliveryId === undefined ? {} : { delivery_id: deliveryId }) },
    });
    return { scan_id: row.id, job_id: job.id };
  }

  private async requireClient(signal?: AbortSignal): Promise<CodehostClient> {
    const connection = await codehost.findConnection(this.deps.store.db);
    if (connection === undefined) throw notConnected();
    let token: string;
    try {
      token = this.deps.sealer.unseal(connection.token_sealed);
    } catch (error) {
      throw problem('conflict', `the stored code-host token cannot be read (${(error as Error).message}): connect again`);
    }
    return new CodehostClient(connection.base_url, token, this.deps.settings.outbound, this.limits, signal);
  }

  /** Scans the repository of a running scan row and records the outcome; never throws for the code host's sake. */
  private async runScan(row: CodehostScanRow, jobSignal?: AbortSignal): Promise<CodehostScanSummary> {
    const { store, clock } = this.deps;
    const repo = row.repo_full_name;
    const stop = new AbortController();
    const deadline = AbortSignal.timeout(this.limits.scanTimeoutMs);
    const signal = AbortSignal.any([stop.signal, deadline, ...(jobSignal === undefined ? [] : [jobSignal])]);
    let commitSha: string | null = null;
    try {
      let client: CodehostClient;
      try {
        client = await this.requireClient(signal);
      } catch (error) {
        throw new ScanFailure((error as Problem).detail ?? (error as Error).message);
      }
      const ref = row.ref ?? (await client.defaultBranch(repo));
      if (ref === null) throw new ScanFailure(`the code host names no default branch for ${repo}: give a ref`);
      commitSha = await client.commitSha(repo, ref);
      const tree = await client.tree(repo, commitSha ?? ref);
      const selection = selectFiles(tree.entries);
      const fetched = await this.fetchFiles(client, repo, commitSha ?? ref, selection.paths, stop);
      const analysis = await analyzeFiles(fetched.files, { checkPrompt: (text) => this.checkPrompt(text) });
      const hints = await this.shadowHints(repo, analysis);
      const finishedAt = clock.now().toISOString();
      const sites = await this.siteRows({ ...row, commit_sha: commitSha }, analysis, hints, finishedAt);
      const report = buildReport(analysis, hints, {
        tree_entries: tree.entries.length + tree.dropped,
        tree_truncated: tree.truncated || tree.dropped > 0,
        files_selected: selection.paths.length,
        files_scanned: fetched.files.length,
        files_skipped: selection.skipped + fetched.overBudget,
        files_failed: fetched.failed,
        bytes_read: fetched.bytes,
        sites: sites.length,
      });
      await store.db.transaction().execute(async (trx) => {
        await codehost.updateScan(trx, row.id, {
          status: 'completed',
          commit_sha: commitSha,
          files_scanned: report.counts.files_scanned,
          files_skipped: report.counts.files_skipped,
          report: writeJson(report),
          error: null,
          finished_at: finishedAt,
        });
        await codehost.replaceRepoSites(trx, repo, sites);
      });
      this.raiseFindings(row, commitSha, analysis, hints, finishedAt);
      return { scan_id: row.id, repo_full_name: repo, ref: row.ref, commit_sha: commitSha, status: 'completed', error: null, signature: report.signature };
    } catch (error) {
      stop.abort();
      const reason = error instanceof CodehostError || error instanceof ScanFailure ? error.message : deadline.aborted ? `the scan took longer than ${this.limits.scanTimeoutMs} ms` : `the scan failed: ${(error as Error).message}`;
      const stored = storableText(reason).slice(0, MAX_ERROR_CHARS);
      await codehost.updateScan(store.db, row.id, { status: 'failed', commit_sha: commitSha, error: stored, finished_at: clock.now().toISOString() });
      return { scan_id: row.id, repo_full_name: repo, ref: row.ref, commit_sha: commitSha, status: 'failed', error: stored, signature: [] };
    }
  }

  /** The selected files' text, `fetchConcurrency` at a time, within the scan's byte budget. */
  private async fetchFiles(client: CodehostClient, repo: string, ref: string, paths: readonly string[], stop: AbortController): Promise<{ files: RepoFile[]; failed: number; overBudget: number; bytes: number }> {
    const files: RepoFile[] = [];
    let next = 0;
    let failed = 0;
    let overBudget = 0;
    let bytes = 0;
    const work = async () => {
      while (next < paths.length && !stop.signal.aborted) {
        const path = paths[next] as string;
        next += 1;
        if (bytes >= this.limits.maxScanBytes) {
          overBudget += 1;
          continue;
        }
        const content = await client.contents(repo, path, ref);
        if (content === null) {
          failed += 1;
          continue;
        }
        const size = Buffer.byteLength(content);
        if (bytes + size > this.limits.maxScanBytes) {
          overBudget += 1;
          continue;
        }
        bytes += size;
        files.push({ path, content });
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(this.limits.fetchConcurrency, paths.length) }, work));
    } catch (error) {
      // The other fetchers stop at their next file; their calls in flight are aborted.
      stop.abort();
      throw error;
    }
    files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { files, failed, overBudget, bytes };
  }

  /** A prompt is risky when a trial through the pipeline does not allow it or finds an injection. */
  private async checkPrompt(text: string): Promise<{ risky: boolean; entities: string[] }> {
    try {
      const decision = await this.deps.pipeline.trial({ agent: SCAN_AGENT, surface: 'input', content: text.slice(0, MAX_PROMPT_CHARS) });
      const entities = [...new Set(decision.entities)].sort().slice(0, 20);
      return { risky: decision.effective_verdict !== 'allow' || entities.some((entity) => entity.startsWith('INJECTION.')), entities };
    } catch {
      return { risky: false, entities: [] };
    }
  }

  /**
   * Agents the code shows that the registry does not have: each named agent (by its slug), or,
   * when the code names none but uses a framework or model client, the repository itself.
   */
  private async shadowHints(repo: string, analysis: AnalysisReport): Promise<ShadowHint[]> {
    const candidates = new Map<string, ShadowHint>();
    for (const agent of analysis.agents) {
      const slug = slugOf(agent.name);
      if (slug !== '' && !candidates.has(slug) && candidates.size < MAX_SHADOW_HINTS) {
        candidates.set(slug, { slug, name: agent.name, path: agent.path, line: agent.line, framework: agent.framework, repoLevel: false });
      }
    }
    if (candidates.size === 0 && (analysis.frameworks.length > 0 || analysis.model_clients.length > 0)) {
      const slug = slugOf(repo.split('/')[1] ?? repo);
      const first = analysis.sites.find((site) => site.kind === 'framework' || site.kind === 'model_client');
      if (slug !== '') candidates.set(slug, { slug, name: repo, path: first?.path ?? null, line: first?.line ?? null, framework: analysis.frameworks[0] ?? null, repoLevel: true });
    }
    const registered = await codehost.registeredSlugs(this.deps.store.db, [...candidates.keys()]);
    return [...candidates.values()].filter((hint) => !registered.has(hint.slug));
  }

  /** The repository's discovery sites; a site seen before (same kind, name and path) keeps its first_seen_at. */
  private async siteRows(row: CodehostScanRow, analysis: AnalysisReport, hints: readonly ShadowHint[], at: string): Promise<DiscoverySiteRow[]> {
    const repo = row.repo_full_name;
    const key = (kind: string, name: string, path: string | null) => JSON.stringify([kind, name, path]);
    const before = new Map((await codehost.repoSites(this.deps.store.db, repo)).map((site) => [key(site.kind, site.name, site.path), site.first_seen_at]));
    const agentsByPath = new Map<string, string>();
    for (const agent of analysis.agents) {
      const slug = slugOf(agent.name);
      if (slug !== '' && !agentsByPath.has(agent.path)) agentsByPath.set(agent.path, slug);
    }
    const repoHint = hints.find((hint) => hint.repoLevel)?.slug ?? null;
    const seen = new Set<string>();
    const rows: DiscoverySiteRow[] = [];
    for (const site of analysis.sites) {
      if (rows.length >= MAX_SITES) break;
      const name = storableText(site.name).slice(0, MAX_NAME_CHARS);
      const path = storableText(site.path).slice(0, 4096);
      const identity = key(site.kind, name, path);
      if (seen.has(identity)) continue;
      seen.add(identity);
      const agentHint = site.kind === 'agent' ? slugOf(site.name) || null : (agentsByPath.get(site.path) ?? repoHint);
      rows.push({
        id: newId('dst'),
        origin: 'codehost',
        location: repo,
        path,
        line: site.line,
        kind: site.kind,
        name,
        agent_hint: agentHint,
        detail: writeJson(storableValue({ ...site.detail, language: site.language, commit_sha: row.commit_sha })),
        scan_id: row.id,
        submission_id: null,
        first_seen_at: before.get(identity) ?? at,
        last_seen_at: at,
      });
    }
    return rows;
  }

  private raiseFindings(row: CodehostScanRow, commitSha: string | null, analysis: AnalysisReport, hints: readonly ShadowHint[], at: string): void {
    const repo = row.repo_full_name;
    const subject = `repo:${repo}`;
    const base = { origin: 'codehost', repo, scan_id: row.id, commit_sha: commitSha };
    const findings: FindingUpsert[] = [];
    const add = (type: string, findingSubject: string, parts: string[], title: string, evidence: Record<string, unknown>) =>
      findings.push({
        fingerprint: fingerprint(type, findingSubject, parts),
        type,
        severity: findingType(type).default_severity,
        title: storableText(title).slice(0, 500),
        subject: findingSubject,
        agent: null,
        at,
        evidence: storableValue({ ...base, ...evidence }),
        decisionId: null,
      });
    for (const secret of analysis.secrets.slice(0, MAX_REPORT_ITEMS)) {
      add('hardcoded_secret', subject, [repo, secret.path, secret.entity], `Hard-coded ${secret.entity} in ${repo}: ${secret.path} line ${secret.line}`, {
        path: secret.path,
        line: secret.line,
        entity: secret.entity,
        hint: secret.hint,
        length: secret.length,
      });
    }
    for (const prompt of analysis.prompts.filter((item) => item.risky).slice(0, MAX_REPORT_ITEMS)) {
      add('risky_prompt', subject, [repo, prompt.path, String(prompt.line)], `Risky system prompt in ${repo}: ${prompt.path} line ${prompt.line}`, {
        path: prompt.path,
        line: prompt.line,
        entities: prompt.entities,
        excerpt: prompt.excerpt,
      });
    }
    // Same identity as the pipeline's shadow_agent (subject agent:<slug>, parts [slug]): seen in code and in traffic, one finding.
    for (const hint of hints) {
      const title = hint.repoLevel ? `Unregistered agent code in repository ${repo}` : `Unregistered agent ${hint.name} in ${repo}: ${hint.path} line ${hint.line}`;
      add('shadow_agent', `agent:${hint.slug}`, [hint.slug], title, { agent_name: hint.slug, name: hint.name, path: hint.path, line: hint.line, framework: hint.framework });
    }
    this.deps.recorder.raise(findings);
  }
}

interface ShadowHint {
  slug: string;
  name: string;
  path: string | null;
  line: number | null;
  framework: string | null;
  /** The repository itself (no named agent in it). */
  repoLevel: boolean;
}

function notConnected(): Problem {
  return problem('conflict', 'no code-host connection: POST /api/integrations/codehost/connect with an access token first');
}

/** A code-host failure during a request, as a problem: a refused token 422, the host away or unreadable 503. */
function asProblem(error: unknown, tokenRefused: string): Problem | Error {
  if (!(error instanceof CodehostError)) return error as Error;
  switch (error.kind) {
    case 'token_refused':
      return problem('refused', tokenRefused);
    case 'refused_by_policy':
    case 'not_found':
      return problem('refused', error.message);
    default:
      return problem('unavailable', error.message);
  }
}

/** The repository name and ref, checked (422 naming the field) for callers that skip the route's schema. */
function checkScanInput(input: { repo_full_name: string; ref?: string | null }): { repo: string; ref: string | null } {
  const repo = input.repo_full_name;
  if (!REPO_NAME.test(repo) || repo.split('/').some((part) => part === '.' || part === '..')) {
    throw problem('refused', `repo_full_name ${JSON.stringify(repo.slice(0, 210))} is not 'owner/name'`, [{ field: '/body/repo_full_name', message: "must be 'owner/name'" }]);
  }
  const ref = input.ref ?? null;
  if (ref !== null && !isRefName(ref)) {
    throw problem('refused', 'ref is not a branch, tag or commit name', [{ field: '/body/ref', message: 'must be a git ref name' }]);
  }
  return { repo, ref };
}

function newScanRow(input: { repo_full_name: string; ref?: string | null; trigger: ScanTrigger; requested_by: string }, at: string, status: 'queued' | null): CodehostScanRow {
  return {
    id: newId('chs'),
    repo_full_name: input.repo_full_name,
    ref: input.ref ?? null,
    trigger: input.trigger,
    status: status ?? 'running',
    job_id: null,
    commit_sha: null,
    files_scanned: 0,
    files_skipped: 0,
    report: null,
    error: null,
    requested_by: storableText(input.requested_by).slice(0, 300),
    created_at: at,
    started_at: status === null ? at : null,
    finished_at: null,
  };
}

/** What a push asks for: the repository and the commit pushed, or why nothing is done. */
function pushTarget(body: WebhookBody): { repo: string; ref: string } | { ignored: string } {
  const repo = body.repository?.full_name;
  if (typeof repo !== 'string' || !REPO_NAME.test(repo)) return { ignored: 'the push names no repository (repository.full_name)' };
  const after = typeof body.after === 'string' ? body.after.toLowerCase() : '';
  if (after === ZERO_SHA) return { ignored: 'the push deleted the ref: nothing to scan' };
  if (COMMIT_SHA.test(after)) return { repo, ref: after };
  const ref = typeof body.ref === 'string' ? body.ref.replace(/^refs\/(heads|tags)\//, '') : '';
  if (isRefName(ref)) return { repo, ref };
  return { ignored: 'the push names no commit (after) or ref' };
}

/** A branch, tag or commit name git would accept (roughly): no control characters, spaces, `..` or unpaired surrogates. */
function isRefName(ref: string): boolean {
  return ref !== '' && ref.isWellFormed() && REF.test(ref) && !ref.includes('..') && !ref.startsWith('/') && !ref.endsWith('/');
}

/** An agent name as a registry slug: lower-case letters, digits, `-`, `_`, `.`; other runs become `-`. */
export function slugOf(name: string): string {
  let slug = '';
  let dash = false;
  for (const char of name.toLowerCase()) {
    if (slug.length >= MAX_SLUG_CHARS) break;
    if ((char >= 'a' && char <= 'z') || (char >= '0' && char <= '9') || char === '_' || char === '.') {
      slug += char;
      dash = false;
    } else if (!dash && slug !== '') {
      slug += '-';
      dash = true;
    }
  }
  while (slug.endsWith('-') || slug.endsWith('.')) slug = slug.slice(0, -1);
  return slug;
}

function buildReport(analysis: AnalysisReport, hints: readonly ShadowHint[], counts: ScanReport['counts']): ScanReport {
  const cap = <T>(items: readonly T[]): T[] => items.slice(0, MAX_REPORT_ITEMS);
  const signature = new Set<string>();
  for (const name of analysis.frameworks) signature.add(`framework:${name}`);
  for (const name of analysis.model_clients) signature.add(`model_client:${name}`);
  for (const server of analysis.mcp_servers) signature.add(`mcp_server:${server.name}@${server.path}`);
  for (const tool of analysis.tools) signature.add(`tool:${tool.name}`);
  for (const secret of analysis.secrets) signature.add(`secret:${secret.path}:${secret.entity}`);
  for (const prompt of analysis.prompts) if (prompt.risky) signature.add(`prompt_risky:${prompt.path}`);
  for (const agent of analysis.agents) signature.add(`agent:${agent.name}`);
  return storableValue({
    frameworks: cap(analysis.frameworks),
    model_clients: cap(analysis.model_clients),
    mcp_servers: cap(analysis.mcp_servers).map((server) => ({ name: server.name, path: server.path, line: server.line, transport: server.transport, command: server.command, url: server.url })),
    tools: cap(analysis.tools).map((tool) => ({ name: tool.name, path: tool.path, line: tool.line, framework: tool.framework })),
    prompts: cap(analysis.prompts).map((prompt) => ({ path: prompt.path, line: prompt.line, chars: prompt.chars, risky: prompt.risky, entities: prompt.entities, excerpt: prompt.excerpt })),
    secrets: cap(analysis.secrets).map((secret) => ({ path: secret.path, line: secret.line, entity: secret.entity, hint: secret.hint, length: secret.length })),
    agents: cap(analysis.agents).map((agent) => ({ name: agent.name, path: agent.path, line: agent.line, framework: agent.framework })),
    languages: { ...analysis.languages },
    shadow_agents: hints.map((hint) => hint.slug),
    signature: [...signature].sort().slice(0, 5 * MAX_REPORT_ITEMS),
    counts,
  });
}

function scanToWire(row: CodehostScanRow): Scan {
  return {
    id: row.id,
    repo_full_name: row.repo_full_name,
    ref: row.ref,
    trigger: row.trigger as Scan['trigger'],
    status: row.status as Scan['status'],
    job_id: row.job_id,
    commit_sha: row.commit_sha,
    files_scanned: Number(row.files_scanned),
    files_skipped: Number(row.files_skipped),
    report: row.report === null ? null : readJson<ScanReport | null>(row.report, null),
    error: row.error,
    requested_by: row.requested_by,
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
  };
}
