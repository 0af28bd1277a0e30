// The MCP registry and MCP call governance: registers tool servers, scans their listings (given,
// or fetched live with the official SDK), pins each tool's definition by hash at review, and
// governs /v1/mcp/call through the one decision pipeline. Scan findings (schema_drift,
// tool_poisoning, unpinned_server, mcp_tool_added_under_wildcard) are raised here; the call's own
// findings (mcp_schema_drift, undeclared_mcp_tool) come from the decision (src/findings/raise.ts).
import { actorOf, hasRole, type Principal } from '../../infra/auth/principal.js';
import type { AuditLog } from '../audit/log.js';
import { ALL_DETECTORS } from '../../engine/detectors/index.js';
import type { Detection, Detector } from '../../engine/detectors/types.js';
import { findingType, type Severity } from '../../engine/findings/catalog.js';
import { fingerprint } from '../../engine/findings/fingerprint.js';
import { notFound, problem } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import type { TraceSpan } from '../../infra/lib/trace-span.js';
import type { Decision, McpCallFacts, Pipeline } from '../../engine/pipeline/decide.js';
import { RequestBudget } from '../../engine/pipeline/request-budget.js';
import type { FindingUpsert, Recorder } from '../../engine/recording/recorder.js';
import type { Store } from '../../infra/store/db.js';
import { readJsonObject, readJsonStrings } from '../../infra/store/json-columns.js';
import type { McpServerRow, McpToolRow } from '../../infra/store/tables.js';
import { LiveServers, type Listing, type McpTransport, type ServerAddress } from './live.js';
import { definitionOf, pinHash, serverWildcard, toolKey, type ListedTool, type PinnedDefinition } from './pin.js';
import type { ListServersQuery, McpCallAnswer, McpCallBody, McpServer, McpTool, RegisterServerBody, ReviewBody, ScanResult } from './schemas.js';
import * as mcp from './store.js';

/** Instruction-like text in a tool description: the baseline's threshold for retrieved content. */
const POISON_SCORE = 0.6;
const SYSTEM_ACTOR = 'system (tools/list_changed)';

export interface McpServiceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  recorder: Recorder;
  pipeline: Pipeline;
  gatewayVersion: string;
  /** request_budget_ms: the detector time the arguments' and the result's checks of one call share. */
  requestBudgetMs: number;
  /** How long connecting to a live server and listing its tools may take. */
  scanTimeoutMs?: number;
  /** Where a rescan triggered by tools/list_changed reports failure. */
  onError?: (error: unknown, server: string) => void;
}

type ScanSource = ScanResult['source'];

export class McpService {
  readonly live: LiveServers;
  private readonly injection: Detector;
  /** Scans of one server run one after another in this process. */
  private readonly scanning = new Map<string, Promise<unknown>>();
  private readonly rescanPending = new Set<string>();

  constructor(private readonly deps: McpServiceDeps) {
    this.live = new LiveServers(deps.gatewayVersion, (server) => this.onListChanged(server), deps.scanTimeoutMs);
    const injection = ALL_DETECTORS.find((detector) => detector.key === 'injection.heuristic');
    if (injection === undefined) throw new Error('injection.heuristic is not registered');
    this.injection = injection;
  }

  async close(): Promise<void> {
    await this.live.close();
  }

  async list(query: ListServersQuery): Promise<{ items: McpServer[]; next_cursor: string | null }> {
    const limit = query.limit ?? 50;
    const rows = await mcp.listServers(this.deps.store.db, limit + 1, query.cursor);
    const page = rows.slice(0, limit);
    const tools = await mcp.toolsOf(this.deps.store.db, page.map((row) => row.name));
    return {
      items: page.map((row) => this.serverToWire(row, tools.filter((tool) => tool.server === row.name))),
      next_cursor: rows.length > limit ? (page.at(-1)?.name ?? null) : null,
    };
  }

  /** Registers a server or changes its record (upsert); answers whether it is new. */
  async register(caller: Principal, body: RegisterServerBody): Promise<{ created: boolean; server: McpServer }> {
    const existing = await mcp.findServer(this.deps.store.db, body.name);
    // Fields left out keep their stored values, as POST /api/tools does.
    const transport = body.transport ?? (existing?.transport as McpTransport | undefined) ?? 'streamable_http';
    const command = transport === 'stdio' ? (body.command ?? (existing?.transport === 'stdio' ? existing.command : null)) : null;
    if (transport === 'stdio' || existing?.transport === 'stdio') {
      // A stdio server is a command the gateway runs: only an admin may name or change one.
      if (!hasRole(caller, 'admin')) throw problem('forbidden', 'registering or changing a stdio server (a command the gateway runs) needs the admin role');
    }
    if (transport === 'stdio' && command === null) {
      throw problem('invalid-request', 'a stdio server needs command', [{ field: '/body/command', message: 'required for transport stdio' }]);
    }
    if (transport !== 'stdio' && (body.command !== undefined || body.args !== undefined)) {
      throw problem('invalid-request', 'command and args are for stdio servers', [{ field: '/body/command', message: `not used with transport ${transport}` }]);
    }
    if (body.url !== undefined && !/^https?:\/\//i.test(body.url)) {
      throw problem('invalid-request', 'url must be http or https', [{ field: '/body/url', message: 'http or https' }]);
    }
    const now = this.now();
    const row: McpServerRow = {
      name: body.name,
      url: transport === 'stdio' ? null : (body.url ?? existing?.url ?? null),
      transport,
      command,
      args: transport === 'stdio' ? (body.args === undefined ? (existing?.args ?? '[]') : JSON.stringify(body.args)) : '[]',
      trust_level: body.trust_level ?? existing?.trust_level ?? 'untrusted',
      pinned_version: body.pinned_version ?? existing?.pinned_version ?? null,
      server_version: existing?.server_version ?? null,
      last_scanned_at: existing?.last_scanned_at ?? null,
      created_by: existing?.created_by ?? actorOf(caller),
      created_at: existing?.created_at ?? now,
      updated_at: now,
    };
    await this.deps.audit.transact(async (trx, append) => {
      await mcp.upsertServer(trx, row);
      await append({
        actor: actorOf(caller),
        action: existing === undefined ? 'mcp.server.create' : 'mcp.server.update',
        target: row.name,
        detail: { url: row.url, transport: row.transport, command: row.command, args: readJsonStrings(row.args), trust_level: row.trust_level, pinned_version: row.pinned_version },
      });
    });
    // A held connection may point at the old address.
    if (existing !== undefined) await this.live.forget(row.name);
    if (row.pinned_version === null) this.raiseUnpinned(row, null);
    const tools = await mcp.toolsOf(this.deps.store.db, [row.name]);
    return { created: existing === undefined, server: this.serverToWire(row, tools) };
  }

  /** Scans a server: the listing in the body, or the live server's own. */
  async scan(caller: Principal, name: string, tools: ListedTool[] | undefined): Promise<ScanResult> {
    const server = await this.requireServer(name);
    let listing: Listing;
    if (tools !== undefined) {
      listing = { tools, serverVersion: null };
    } else {
      if (server.transport !== 'stdio' && server.url === null) throw problem('refused', `server ${name} has no url: send its listing in tools, or register its url`);
      try {
        listing = await this.live.list(addressOf(server), true);
      } catch (error) {
        throw problem('unavailable', `could not list the tools of server ${name}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return this.serialised(name, () => this.apply(server, listing, tools === undefined ? 'live' : 'body', actorOf(caller)));
  }

  /**
   * A live scan on behalf of the system (monitors), applied as the scan route applies one; the
   * connection is not kept: a monitor polls on its own schedule.
   */
  async scanLive(actor: string, name: string): Promise<ScanResult> {
    const server = await this.requireServer(name);
    if (server.transport !== 'stdio' && server.url === null) throw problem('refused', `server ${name} has no url to list its tools from`);
    let listing: Listing;
    try {
      listing = await this.live.list(addressOf(server), false);
    } catch (error) {
      throw problem('unavailable', `could not list the tools of server ${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
    return this.serialised(name, () => this.apply(server, listing, 'live', actor));
  }

  /**
   * Pins the current definitions of the named tools (every tool not pinned when none are named).
   * A tool that changed since its review, or a removed one, needs accept_changes and a note.
   */
  async review(caller: Principal, name: string, body: ReviewBody): Promise<McpServer> {
    const server = await this.requireServer(name);
    if (body.accept_changes === true && body.note === undefined) {
      throw problem('refused', 'accepting changes needs a note saying why', [{ field: '/body/note', message: 'required with accept_changes' }]);
    }
    return this.serialised(name, async () => {
      const rows = await mcp.toolsOf(this.deps.store.db, [name]);
      const byName = new Map(rows.map((row) => [row.name, row]));
      const named = body.tools ?? rows.filter((row) => row.status !== 'pinned').map((row) => row.name);
      const missing = named.filter((tool) => !byName.has(tool));
      if (missing.length > 0) throw problem('unknown-id', `server ${name} lists no tool ${missing.join(', ')}`);
      const targets = [...new Set(named)].map((tool) => byName.get(tool) as McpToolRow);
      // A changed or removed tool, or one whose description reads like an instruction, is
      // pinned only when the reviewer says so explicitly, with a note.
      const needChanges = targets.filter((row) => row.status === 'changed' || row.status === 'removed' || row.poisoned === 1);
      if (needChanges.length > 0 && body.accept_changes !== true) {
        const why = needChanges.map((row) => `${row.name} (${row.poisoned === 1 && row.status !== 'removed' ? 'poisoned' : row.status})`).join(', ');
        throw problem('conflict', `${why}: accept with accept_changes and a note`);
      }
      if (targets.length === 0) return this.serverToWire(server, rows);
      const now = this.now();
      const actor = actorOf(caller);
      await this.deps.audit.transact(async (trx, append) => {
        for (const row of targets) {
          if (row.status === 'removed') {
            await mcp.deleteTool(trx, name, row.name);
            continue;
          }
          await mcp.updateTool(trx, name, row.name, {
            pin_hash: row.current_hash,
            pinned_definition: JSON.stringify(definitionOfRow(row)),
            status: 'pinned',
            reviewed_at: now,
            reviewed_by: actor,
            review_note: body.note ?? null,
          });
        }
        await append({
          actor,
          action: 'mcp.tools.accept',
          target: name,
          detail: {
            tools: targets.map((row) => ({ name: row.name, from: row.status, pin_hash: row.status === 'removed' ? null : row.current_hash })),
            accept_changes: body.accept_changes ?? false,
            note: body.note ?? null,
          },
        });
      });
      return this.serverToWire(server, await mcp.toolsOf(this.deps.store.db, [name]));
    });
  }

  /**
   * Governs one MCP call: the arguments as tool_args under the key `mcp:<server>/<tool>` with the
   * registry's MCP facts, then the result (when given) as tool_result.
   */
  async call(agent: string, body: McpCallBody, span?: TraceSpan): Promise<McpCallAnswer> {
    const db = this.deps.store.db;
    const [server, tool] = await Promise.all([mcp.findServer(db, body.server), mcp.findTool(db, body.server, body.tool)]);
    const facts: McpCallFacts = {
      server: body.server,
      tool: body.tool,
      fact: server === undefined || tool === undefined ? 'undeclared' : tool.status === 'pinned' && tool.current_hash === tool.pin_hash ? null : 'drifted',
      status: server === undefined ? null : (tool?.status ?? null),
    };
    const key = toolKey(body.server, body.tool);
    const args = body.arguments ?? {};
    const session = body.session_id === undefined ? {} : { sessionId: body.session_id };
    // One governed call: the arguments' and the result's checks share request_budget_ms.
    const requestBudget = new RequestBudget(this.deps.requestBudgetMs);
    const argumentsDecision = await this.deps.pipeline.decide({
      agent,
      surface: 'tool_args',
      tool: key,
      content: JSON.stringify(args),
      arguments: args,
      mcp: facts,
      requestBudget,
      ...(span === undefined ? {} : { span }),
      ...(body.provenance === undefined ? {} : { provenance: body.provenance }),
      ...(body.approval_id === undefined ? {} : { approvalId: body.approval_id }),
      ...session,
    });
    if (body.result === undefined) return { ...argumentsDecision, decided_by: 'arguments', decisions: { arguments: argumentsDecision } };
    // A trusted server's result is still checked, but it is not remembered as untrusted
    // content of the session, so its values carry no taint into later calls.
    const trusted = server?.trust_level === 'trusted';
    const resultDecision = await this.deps.pipeline.decide({
      agent,
      surface: 'tool_result',
      tool: key,
      content: resultText(body.result),
      requestBudget,
      ...(span === undefined ? {} : { span }),
      ...(trusted ? {} : session),
    });
    const decisions = { arguments: argumentsDecision, result: resultDecision };
    const decidedBy = stricter(resultDecision, argumentsDecision) ? 'result' : 'arguments';
    return { ...decisions[decidedBy], decided_by: decidedBy, decisions };
  }

  private async onListChanged(server: string): Promise<void> {
    // Notifications that arrive while a rescan waits to start are covered by that rescan.
    if (this.rescanPending.has(server)) return;
    this.rescanPending.add(server);
    try {
      const row = await mcp.findServer(this.deps.store.db, server);
      if (row === undefined) {
        await this.live.forget(server);
        return;
      }
      await this.serialised(server, async () => {
        this.rescanPending.delete(server);
        const listing = await this.live.list(addressOf(row), true);
        return this.apply(row, listing, 'list_changed', SYSTEM_ACTOR);
      });
    } catch (error) {
      this.rescanPending.delete(server);
      this.deps.onError?.(error, server);
    }
  }

  /** Compares a listing with what is known, stores it, audits the scan and raises its findings. */
  private async apply(server: McpServerRow, listing: Listing, source: ScanSource, actor: string): Promise<ScanResult> {
    const now = this.now();
    const name = server.name;
    const known = await mcp.toolsOf(this.deps.store.db, [name]);
    const byName = new Map(known.map((row) => [row.name, row]));
    const hadListing = known.some((row) => row.status !== 'removed');
    const result: ScanResult = { server: name, source, scanned_at: now, server_version: listing.serverVersion, added: [], removed: [], changed: [], unchanged: [], poisoned: [], findings: [], tools: [] };
    const listed = new Map<string, ListedTool>();
    for (const tool of listing.tools) listed.set(tool.name, tool);

    const writes: Array<(trx: Parameters<Parameters<AuditLog['transact']>[0]>[0]) => Promise<void>> = [];
    const poisonedNames = new Set<string>();
    for (const tool of listed.values()) {
      const definition = definitionOf(tool);
      const hash = pinHash(definition);
      const poison = await this.poisoning(definition);
      if (poison !== null) {
        poisonedNames.add(tool.name);
        result.poisoned.push({ name: tool.name, entity: poison.entity, score: Math.round(poison.score * 1000) / 1000, explanation: poison.explanation });
      }
      const row = byName.get(tool.name);
      const fields = {
        title: definition.title,
        description: definition.description,
        input_schema: JSON.stringify(definition.inputSchema),
        output_schema: definition.outputSchema === null ? null : JSON.stringify(definition.outputSchema),
        annotations: JSON.stringify(definition.annotations),
        impact: definition.impact,
        current_hash: hash,
        poisoned: poison === null ? 0 : 1,
        last_seen_at: now,
      };
      if (row === undefined) {
        // A name never seen has no pin, whatever its definition: a renamed tool is a new tool.
        result.added.push(tool.name);
        writes.push((trx) => mcp.insertTool(trx, { server: name, name: tool.name, ...fields, pin_hash: null, pinned_definition: null, reviewed_at: null, reviewed_by: null, review_note: null, status: 'new', first_seen_at: now }));
        continue;
      }
      if (row.status === 'removed') result.added.push(tool.name);
      else if (row.current_hash !== hash) result.changed.push(tool.name);
      else result.unchanged.push(tool.name);
      const status = row.pin_hash === null ? 'new' : row.pin_hash === hash ? 'pinned' : 'changed';
      writes.push((trx) => mcp.updateTool(trx, name, tool.name, { ...fields, status }));
    }
    for (const row of known) {
      if (listed.has(row.name) || row.status === 'removed') continue;
      result.removed.push(row.name);
      if (row.pin_hash === null) writes.push((trx) => mcp.deleteTool(trx, name, row.name));
      else writes.push((trx) => mcp.updateTool(trx, name, row.name, { status: 'removed' }));
    }

    const listingChanged = result.added.length + result.removed.length + result.changed.length > 0;
    await this.deps.audit.transact(async (trx, append) => {
      for (const write of writes) await write(trx);
      await mcp.markScanned(trx, name, now, listing.serverVersion ?? server.server_version);
      // A server may send list_changed as often as it likes: only rescans that changed something are audited.
      if (source === 'list_changed' && !listingChanged) return;
      await append({
        actor,
        action: 'mcp.server.scan',
        target: name,
        detail: { source, added: result.added, removed: result.removed, changed: result.changed, poisoned: [...poisonedNames], server_version: listing.serverVersion },
      });
    });

    const findings: FindingUpsert[] = [];
    const subject = `mcp_server:${name}`;
    const add = (type: string, parts: string[], title: string, evidence: Record<string, unknown>, agent: string | null = null, severity?: Severity) => {
      const findingSubject = agent === null ? subject : `agent:${agent}`;
      findings.push({
        fingerprint: fingerprint(type, findingSubject, parts),
        type,
        severity: severity ?? findingType(type).default_severity,
        title,
        subject: findingSubject,
        agent,
        at: now,
        evidence: { ...evidence, server: name, scan_source: source },
        decisionId: null,
      });
      if (!result.findings.includes(type)) result.findings.push(type);
    };
    if (hadListing && listingChanged) {
      const after = [...listed.values()].map((tool) => `${tool.name}:${pinHash(definitionOf(tool))}`).sort().join(',');
      add('schema_drift', [name, after], `Tool listing of MCP server ${name} changed: ${describeDiff(result)}`, {
        added: result.added,
        removed: result.removed,
        changed: result.changed,
      });
    }
    for (const poisoned of result.poisoned) {
      const tool = listed.get(poisoned.name) as ListedTool;
      add('tool_poisoning', [name, poisoned.name, pinHash(definitionOf(tool))], `Description of MCP tool ${name}/${poisoned.name} reads like an instruction`, {
        tool: poisoned.name,
        tool_key: toolKey(name, poisoned.name),
        entity: poisoned.entity,
        score: poisoned.score,
        explanation: poisoned.explanation,
        description: tool.description ?? null,
      });
    }
    if (result.added.length > 0) {
      const grants = await mcp.wildcardGrants(this.deps.store.db, ['*', serverWildcard(name)]);
      const byAgent = new Map<string, typeof grants>();
      for (const grant of grants) byAgent.set(grant.agent_slug, [...(byAgent.get(grant.agent_slug) ?? []), grant]);
      for (const [agent, held] of byAgent) {
        for (const tool of result.added) {
          add('mcp_tool_added_under_wildcard', [name, tool], `New MCP tool ${name}/${tool} is already allowed for ${agent} by ${held.map((grant) => grant.tool_key).join(', ')}`, {
            tool,
            tool_key: toolKey(name, tool),
            grants: held.map((grant) => ({ capability_id: grant.id, agent: grant.agent_slug, tool_key: grant.tool_key })),
          }, agent);
        }
      }
    }
    this.deps.recorder.raise(findings);
    const reported = listing.serverVersion;
    if (server.pinned_version === null) this.raiseUnpinned(server, reported);
    else if (reported !== null && reported !== server.pinned_version) this.raiseUnpinned(server, reported);
    if (server.pinned_version === null || (reported !== null && reported !== server.pinned_version)) result.findings.push('unpinned_server');

    result.tools = (await mcp.toolsOf(this.deps.store.db, [name])).map((row) => toolToWire(row));
    return result;
  }

  /** The strongest injection detection in a tool's description, title or argument descriptions. */
  private async poisoning(definition: PinnedDefinition): Promise<Detection | null> {
    const texts = [definition.description, definition.title, ...schemaDescriptions(definition.inputSchema)].filter(
      (text): text is string => typeof text === 'string' && text.length > 0,
    );
    let worst: Detection | null = null;
    for (const text of texts) {
      const detections = await this.injection.detect(text, { surface: 'retrieved', settings: { pii_packs: [] } });
      for (const detection of detections) {
        if (detection.entity.startsWith('INJECTION.') && detection.score >= POISON_SCORE && (worst === null || detection.score > worst.score)) worst = detection;
      }
    }
    return worst;
  }

  private raiseUnpinned(server: McpServerRow, reported: string | null): void {
    const subject = `mcp_server:${server.name}`;
    const mismatch = server.pinned_version !== null;
    const title = mismatch
      ? `MCP server ${server.name} reports version ${reported ?? '?'}, not the pinned ${server.pinned_version}`
      : `MCP server ${server.name} has no pinned version`;
    this.deps.recorder.raise([
      {
        fingerprint: fingerprint('unpinned_server', subject, [server.name, server.pinned_version ?? '']),
        type: 'unpinned_server',
        severity: findingType('unpinned_server').default_severity,
        title,
        subject,
        agent: null,
        at: this.now(),
        evidence: { server: server.name, pinned_version: server.pinned_version, reported_version: reported },
        decisionId: null,
      },
    ]);
  }

  private async serialised<T>(server: string, work: () => Promise<T>): Promise<T> {
    const before = this.scanning.get(server) ?? Promise.resolve();
    const next = before.then(work, work);
    const settled = next.catch(() => undefined);
    this.scanning.set(server, settled);
    try {
      return await next;
    } finally {
      if (this.scanning.get(server) === settled) this.scanning.delete(server);
    }
  }

  private async requireServer(name: string): Promise<McpServerRow> {
    const row = await mcp.findServer(this.deps.store.db, name);
    if (row === undefined) throw notFound('MCP server', name);
    return row;
  }

  private serverToWire(row: McpServerRow, tools: readonly McpToolRow[]): McpServer {
    return {
      name: row.name,
      url: row.url,
      transport: row.transport as McpTransport,
      command: row.command,
      args: readJsonStrings(row.args),
      trust_level: row.trust_level === 'trusted' ? 'trusted' : 'untrusted',
      pinned_version: row.pinned_version,
      server_version: row.server_version,
      last_scanned_at: row.last_scanned_at,
      watching: this.live.isWatching(row.name),
      tools: tools.map((tool) => toolToWire(tool)),
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }

  private now(): string {
    return this.deps.clock.now().toISOString();
  }
}

function addressOf(row: McpServerRow): ServerAddress {
  return { name: row.name, transport: row.transport as McpTransport, url: row.url, command: row.command, args: readJsonStrings(row.args) };
}

function definitionOfRow(row: McpToolRow): PinnedDefinition {
  return definitionOf({
    name: row.name,
    ...(row.title === null ? {} : { title: row.title }),
    ...(row.description === null ? {} : { description: row.description }),
    inputSchema: readJsonObject(row.input_schema),
    ...(row.output_schema === null ? {} : { outputSchema: readJsonObject(row.output_schema) }),
    annotations: readJsonObject(row.annotations),
  });
}

function toolToWire(row: McpToolRow): McpTool {
  return {
    name: row.name,
    tool_key: toolKey(row.server, row.name),
    status: row.status as McpTool['status'],
    title: row.title,
    description: row.description,
    input_schema: readJsonObject(row.input_schema),
    annotations: readJsonObject(row.annotations),
    impact: row.impact as McpTool['impact'],
    current_hash: row.current_hash,
    pin_hash: row.pin_hash,
    pinned_definition: row.pinned_definition === null ? null : readJsonObject(row.pinned_definition),
    poisoned: row.poisoned === 1,
    reviewed_at: row.reviewed_at,
    reviewed_by: row.reviewed_by,
    review_note: row.review_note,
    first_seen_at: row.first_seen_at,
    last_seen_at: row.last_seen_at,
  };
}

/** Descriptions of arguments, where poisoning hides as often as in the tool's own description. */
function schemaDescriptions(schema: unknown, depth = 0, out: string[] = []): string[] {
  if (depth > 8 || schema === null || typeof schema !== 'object' || out.length >= 200) return out;
  if (Array.isArray(schema)) {
    for (const item of schema) schemaDescriptions(item, depth + 1, out);
    return out;
  }
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'description' && typeof value === 'string') out.push(value);
    else schemaDescriptions(value, depth + 1, out);
  }
  return out;
}

function describeDiff(result: ScanResult): string {
  const parts: string[] = [];
  if (result.added.length > 0) parts.push(`added ${result.added.join(', ')}`);
  if (result.removed.length > 0) parts.push(`removed ${result.removed.join(', ')}`);
  if (result.changed.length > 0) parts.push(`changed ${result.changed.join(', ')}`);
  return parts.join('; ');
}

/** The text of an MCP result: its text content items and structured content, else its JSON. */
function resultText(result: unknown): string {
  if (typeof result === 'string') return result;
  if (result !== null && typeof result === 'object' && !Array.isArray(result)) {
    const record = result as Record<string, unknown>;
    if (Array.isArray(record.content)) {
      const texts = record.content
        .map((item: unknown) => (item !== null && typeof item === 'object' && typeof (item as { text?: unknown }).text === 'string' ? (item as { text: string }).text : JSON.stringify(item)))
        .filter((text) => text !== undefined);
      if (record.structuredContent !== undefined) texts.push(JSON.stringify(record.structuredContent));
      return texts.join('\n');
    }
  }
  return JSON.stringify(result) ?? '';
}

const RANK = { allow: 0, escalate: 1, block: 2 } as const;

/** Whether `a` is stricter than `b`: by verdict, then by effective verdict (what observe-mode packs would do). */
function stricter(a: Decision, b: Decision): boolean {
  if (RANK[a.verdict] !== RANK[b.verdict]) return RANK[a.verdict] > RANK[b.verdict];
  return RANK[a.effective_verdict] > RANK[b.effective_verdict];
}
