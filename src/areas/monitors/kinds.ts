// What each kind of monitor watches: how its target and config are checked, what one run observes
// (the part compared with the baseline, `state`, and facts kept for the finding), how two states
// differ, and which finding a difference raises. Collaborators come in as shapes (McpLiveScanning,
// CodehostScanning, HostedApiReading) so the kinds can be exercised without the areas behind them.
import type { Severity } from '../../engine/findings/catalog.js';
import { storableText } from '../../infra/lib/storable-text.js';
import type { KnowledgeSourceRow } from '../../infra/store/tables.js';
import type { CodehostScanning, HostedApiReading } from '../integrations/contracts.js';
import type { ScanResult } from '../mcp/schemas.js';

export const MONITOR_KINDS = ['mcp_server', 'hosted_api', 'codehost_repo', 'source_freshness'] as const;
export type MonitorKind = (typeof MONITOR_KINDS)[number];

export const CHANGE_KINDS = ['added', 'removed', 'changed'] as const;
export interface Change {
  kind: (typeof CHANGE_KINDS)[number];
  item: string;
  detail: string;
}

/** Items (tools, operations, signature entries) kept of one observation: a remote answer cannot grow a baseline without end. */
export const MAX_OBSERVED_ITEMS = 5000;
/** Characters kept of one item's name. */
const MAX_ITEM_CHARS = 500;
/** Changes kept on a run (the title and counts still speak of all of them). */
export const MAX_RUN_CHANGES = 200;
/** Changes copied into a finding's evidence. */
export const MAX_EVIDENCE_CHANGES = 50;
const HOUR_MS = 3_600_000;

/** The one method of McpService a monitor uses. */
export interface McpLiveScanning {
  scanLive(actor: string, name: string): Promise<ScanResult>;
}

export interface KindDeps {
  mcp: McpLiveScanning;
  codehost: CodehostScanning;
  hostedApi: HostedApiReading;
  readSource(key: string): Promise<KnowledgeSourceRow | undefined>;
  now(): Date;
}

export interface RunSubject {
  monitorId: string;
  kind: MonitorKind;
  target: string;
  config: Record<string, unknown>;
  signal?: AbortSignal;
}

export interface Observation {
  /** Compared with the baseline, and stored as it on the first run. */
  state: Record<string, unknown>;
  /** What the finding and the change details may say besides (not compared). */
  facts: Record<string, unknown>;
}

export interface RaisedFinding {
  type: string;
  subject: string;
  title: string;
  /** Identifies what changed, for the fingerprint: a repeat of the same change recurs on one finding. */
  what: string;
  severity?: Severity;
}

// ---------------------------------------------------------------------------------------------
// Config

type ConfigCheck = (value: unknown) => string | null;

const CONFIG_KEYS: Record<MonitorKind, Record<string, ConfigCheck>> = {
  mcp_server: {
    check_pins: (value) => (typeof value === 'boolean' ? null : 'must be a boolean'),
  },
  hosted_api: {},
  codehost_repo: {
    ref: (value) => (typeof value === 'string' && value.length > 0 && value.length <= 200 ? null : 'must be a branch, tag or commit of 1 to 200 characters'),
  },
  source_freshness: {},
};

/** The config keys each kind reads (README and errors name them). */
export function configKeys(kind: MonitorKind): string[] {
  return Object.keys(CONFIG_KEYS[kind]);
}

/** Problems with a config for a kind: unknown keys and values of the wrong shape, one message per field. */
export function configProblems(kind: MonitorKind, config: Record<string, unknown>): Array<{ key: string; message: string }> {
  const checks = CONFIG_KEYS[kind];
  const problems: Array<{ key: string; message: string }> = [];
  for (const [key, value] of Object.entries(config)) {
    const check = Object.hasOwn(checks, key) ? checks[key] : undefined;
    if (check === undefined) {
      const known = Object.keys(checks);
      problems.push({ key, message: `is not read by ${kind} monitors (${known.length === 0 ? 'they take no config' : `they read ${known.join(', ')}`})` });
      continue;
    }
    const message = check(value);
    if (message !== null) problems.push({ key, message });
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Targets

/** Why `text` is not a repository full name (`owner/name`), or null. Linear scan, no regex. */
export function repoNameProblem(text: string): string | null {
  const slash = text.indexOf('/');
  if (slash <= 0 || slash === text.length - 1 || text.indexOf('/', slash + 1) !== -1) return 'must be owner/name';
  if (text.length > 201) return 'is too long for owner/name';
  for (const char of text) {
    const ok = char === '/' || char === '-' || char === '_' || char === '.' || (char >= '0' && char <= '9') || (char >= 'a' && char <= 'z') || (char >= 'A' && char <= 'Z');
    if (!ok) return 'may hold only letters, digits, -, _ and . around one /';
  }
  const [owner, name] = [text.slice(0, slash), text.slice(slash + 1)];
  if (owner === '.' || owner === '..' || name === '.' || name === '..') return 'must be owner/name';
  return null;
}

// ---------------------------------------------------------------------------------------------
// Observing

export async function observe(deps: KindDeps, subject: RunSubject): Promise<Observation> {
  switch (subject.kind) {
    case 'mcp_server':
      return observeMcp(deps, subject);
    case 'hosted_api':
      return observeHostedApi(deps, subject);
    case 'codehost_repo':
      return observeRepo(deps, subject);
    case 'source_freshness':
      return observeSource(deps, subject);
  }
}

async function observeMcp(deps: KindDeps, subject: RunSubject): Promise<Observation> {
  const result = await deps.mcp.scanLive(`monitor:${subject.monitorId}`, subject.target);
  const checkPins = subject.config.check_pins !== false;
  const tools: Record<string, string> = {};
  const drifted: string[] = [];
  for (const tool of result.tools.slice(0, MAX_OBSERVED_ITEMS)) {
    if (tool.status === 'removed') continue;
    tools[item(tool.name)] = tool.current_hash;
    // `changed` in the registry: pinned at review, and the definition differs from the pin now.
    if (checkPins && tool.status === 'changed') drifted.push(item(tool.name));
  }
  return { state: { tools: sortedRecord(tools), drifted_from_pin: drifted.sort() }, facts: { server_version: result.server_version } };
}

async function observeHostedApi(deps: KindDeps, subject: RunSubject): Promise<Observation> {
  const document = await deps.hostedApi.readDocument(subject.target, subject.signal);
  return { state: { sha256: document.sha256, operations: uniqueItems(document.operations) }, facts: { url: document.url } };
}

async function observeRepo(deps: KindDeps, subject: RunSubject): Promise<Observation> {
  const ref = typeof subject.config.ref === 'string' ? subject.config.ref : null;
  const summary = await deps.codehost.scanNow({
    repo_full_name: subject.target,
    ref,
    trigger: 'monitor',
    requested_by: `monitor:${subject.monitorId}`,
    ...(subject.signal === undefined ? {} : { signal: subject.signal }),
  });
  if (summary.status !== 'completed') throw new Error(`the scan of ${subject.target} failed: ${summary.error ?? 'no reason given'}`);
  return { state: { signature: uniqueItems(summary.signature) }, facts: { scan_id: summary.scan_id, ref: summary.ref, commit_sha: summary.commit_sha } };
}

async function observeSource(deps: KindDeps, subject: RunSubject): Promise<Observation> {
  const row = await deps.readSource(subject.target);
  if (row === undefined) throw new Error(`knowledge source ${subject.target} is no longer registered`);
  const sla = row.freshness_sla_hours === null ? null : Number(row.freshness_sla_hours);
  const now = deps.now();
  // As the registry judges it (GET /api/sources `stale`): past the SLA, or of unknown age under one.
  const stale = sla !== null && (row.updated_at_source === null || now.getTime() - Date.parse(row.updated_at_source) > sla * HOUR_MS);
  return {
    state: { stale, deprecated: Number(row.deprecated) === 1 },
    facts: { updated_at_source: row.updated_at_source, freshness_sla_hours: sla, checked_at: now.toISOString() },
  };
}

// ---------------------------------------------------------------------------------------------
// Comparing

/** What differs between the baseline and a run's state, sorted by item; empty when nothing does. */
export function compare(kind: MonitorKind, baseline: Record<string, unknown>, current: Observation): Change[] {
  switch (kind) {
    case 'mcp_server':
      return compareMcp(baseline, current.state);
    case 'hosted_api':
      return compareHostedApi(baseline, current.state);
    case 'codehost_repo':
      return compareLists(strings(baseline.signature), strings(current.state.signature), 'signature entry');
    case 'source_freshness':
      return compareSource(baseline, current);
  }
}

function compareMcp(baseline: Record<string, unknown>, current: Record<string, unknown>): Change[] {
  const before = hashes(baseline.tools);
  const after = hashes(current.tools);
  const byItem = new Map<string, Change>();
  for (const [name, hash] of after) {
    const was = before.get(name);
    if (was === undefined) byItem.set(name, { kind: 'added', item: name, detail: 'a tool not in the baseline' });
    else if (was !== hash) byItem.set(name, { kind: 'changed', item: name, detail: `definition changed since the baseline (${short(was)} → ${short(hash)})` });
  }
  for (const name of before.keys()) if (!after.has(name)) byItem.set(name, { kind: 'removed', item: name, detail: 'a baseline tool is no longer listed' });
  const driftedBefore = new Set(strings(baseline.drifted_from_pin));
  for (const name of strings(current.drifted_from_pin)) {
    if (driftedBefore.has(name)) continue;
    const known = byItem.get(name);
    if (known === undefined) byItem.set(name, { kind: 'changed', item: name, detail: 'differs from its review pin' });
    else known.detail = `${known.detail}; differs from its review pin`;
  }
  return [...byItem.values()].sort(byItemName);
}

function compareHostedApi(baseline: Record<string, unknown>, current: Record<string, unknown>): Change[] {
  const changes = compareLists(strings(baseline.operations), strings(current.operations), 'operation');
  const [was, now] = [String(baseline.sha256 ?? ''), String(current.sha256 ?? '')];
  if (changes.length === 0 && was !== now) changes.push({ kind: 'changed', item: 'document', detail: `the document changed, its operations did not (sha256 ${short(was)} → ${short(now)})` });
  return changes;
}

function compareSource(baseline: Record<string, unknown>, current: Observation): Change[] {
  const changes: Change[] = [];
  const { stale, deprecated } = current.state;
  const sla = current.facts.freshness_sla_hours;
  const updated = current.facts.updated_at_source;
  if (baseline.stale !== stale) {
    const detail = stale
      ? updated === null
        ? `freshness SLA ${String(sla)} h, but when the content last changed is unknown`
        : `last changed ${String(updated)}, more than the ${String(sla)} h freshness SLA ago`
      : 'within its freshness SLA again';
    changes.push({ kind: 'changed', item: 'stale', detail });
  }
  if (baseline.deprecated !== deprecated) changes.push({ kind: 'changed', item: 'deprecated', detail: deprecated ? 'the source was deprecated' : 'the source is no longer deprecated' });
  return changes;
}

function compareLists(before: readonly string[], after: readonly string[], noun: string): Change[] {
  const was = new Set(before);
  const now = new Set(after);
  const changes: Change[] = [];
  for (const entry of now) if (!was.has(entry)) changes.push({ kind: 'added', item: entry, detail: `${noun} not in the baseline` });
  for (const entry of was) if (!now.has(entry)) changes.push({ kind: 'removed', item: entry, detail: `baseline ${noun} no longer found` });
  return changes.sort(byItemName);
}

// ---------------------------------------------------------------------------------------------
// Findings

/**
 * The findings of a run: a difference from the baseline for the kinds that watch for change, and
 * for knowledge sources the standing state (stale or deprecated is a finding whatever the
 * baseline said, on every run that sees it, recurring on one finding).
 */
export function findingsFor(kind: MonitorKind, target: string, changes: readonly Change[], current: Observation): RaisedFinding[] {
  if (kind === 'source_freshness') {
    const problems = [current.state.stale === true ? 'stale' : null, current.state.deprecated === true ? 'deprecated' : null].filter((entry): entry is string => entry !== null);
    if (problems.length === 0) return [];
    const sla = current.facts.freshness_sla_hours;
    const why = [current.state.stale === true ? `stale (older than its ${String(sla)} h freshness SLA, or of unknown age)` : null, current.state.deprecated === true ? 'deprecated' : null].filter(Boolean).join(' and ');
    return [{ type: 'stale_source', subject: `source:${target}`, title: `Knowledge source ${target} is ${why}`, what: problems.join('+') }];
  }
  if (changes.length === 0) return [];
  const what = JSON.stringify(changes.map((change) => [change.kind, change.item, change.detail]));
  const summary = summarise(changes);
  switch (kind) {
    case 'mcp_server':
      return [{ type: 'schema_drift', subject: `mcp:${target}`, title: `Tool listing of MCP server ${target} differs from its monitor's baseline: ${summary}`, what }];
    case 'hosted_api':
      return [{ type: 'monitor_change', subject: `api:${target}`, title: `OpenAPI document at ${target} differs from its monitor's baseline: ${summary}`, what }];
    case 'codehost_repo':
      return [{ type: 'monitor_change', subject: `repo:${target}`, title: `Repository ${target} differs from its monitor's baseline: ${summary}`, what }];
  }
}

/** "added a, b; removed c; changed d (+3 more)": the first few items of each kind. */
export function summarise(changes: readonly Change[]): string {
  const parts: string[] = [];
  for (const kind of CHANGE_KINDS) {
    const items = changes.filter((change) => change.kind === kind).map((change) => change.item);
    if (items.length === 0) continue;
    const shown = items.slice(0, 5).join(', ');
    parts.push(`${kind} ${shown}${items.length > 5 ? ` (+${items.length - 5} more)` : ''}`);
  }
  return parts.join('; ');
}

// ---------------------------------------------------------------------------------------------

function item(text: string): string {
  return storableText(text.slice(0, MAX_ITEM_CHARS));
}

function uniqueItems(values: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const value of values) {
    if (seen.size >= MAX_OBSERVED_ITEMS) break;
    if (typeof value === 'string') seen.add(item(value));
  }
  return [...seen].sort();
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
}

function hashes(value: unknown): Map<string, string> {
  const map = new Map<string, string>();
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return map;
  for (const [name, hash] of Object.entries(value)) if (typeof hash === 'string') map.set(name, hash);
  return map;
}

function sortedRecord(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function short(hash: string): string {
  return hash.length > 12 ? hash.slice(0, 12) : hash;
}

function byItemName(a: Change, b: Change): number {
  return a.item < b.item ? -1 : a.item > b.item ? 1 : 0;
}
