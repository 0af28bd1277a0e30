// The tool registry: what each tool does (impact), the JSON Schema its arguments must match, and
// whether its output is trusted. The pipeline reads it from the registry view in memory.
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import type { AuditLog } from '../audit/log.js';
import type { RegistryDirectory } from '../agents/directory.js';
import { bumpRevision } from '../agents/store.js';
import { schemaProblem } from '../../engine/detectors/schema/json.js';
import { problem } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import type { Store } from '../../infra/store/db.js';
import { readJsonObject, writeJson } from '../../infra/store/json-columns.js';
import type { ToolRow } from '../../infra/store/tables.js';
import type { RegisterToolBody, Tool } from './schemas.js';
import { findTool, listTools, upsertTool } from './store.js';

export class ToolService {
  constructor(
    private readonly store: Store,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly directory: RegistryDirectory,
  ) {}

  toWire(row: ToolRow): Tool {
    return {
      key: row.key,
      name: row.name,
      kind: row.kind,
      impact: row.impact,
      description: row.description,
      json_schema: row.json_schema === null ? null : readJsonObject(row.json_schema),
      output_trust: row.output_trust === 'trusted' ? 'trusted' : 'untrusted',
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }

  async list(): Promise<{ items: Tool[] }> {
    const rows = await listTools(this.store.db);
    return { items: rows.map((row) => this.toWire(row)) };
  }

  async impact(key: string): Promise<string | null> {
    return this.directory.tool(key)?.impact ?? null;
  }

  /** Registers a tool or replaces its record; answers whether it is new. */
  async register(caller: Principal, body: RegisterToolBody): Promise<{ created: boolean; tool: Tool }> {
    if (body.json_schema !== undefined) {
      const why = schemaProblem(body.json_schema);
      if (why !== null) throw problem('invalid-request', why, [{ field: '/body/json_schema', message: why }]);
    }
    const now = this.clock.now().toISOString();
    const existing = await findTool(this.store.db, body.key);
    const row: ToolRow = {
      key: body.key,
      name: body.name ?? existing?.name ?? body.key,
      kind: body.kind ?? existing?.kind ?? null,
      impact: body.impact ?? existing?.impact ?? null,
      description: body.description ?? existing?.description ?? null,
      json_schema: body.json_schema !== undefined ? writeJson(body.json_schema) : (existing?.json_schema ?? null),
      output_trust: body.output_trust ?? existing?.output_trust ?? 'untrusted',
      created_at: existing?.created_at ?? now,
      updated_at: now,
    };
    await this.audit.transact(async (trx, append) => {
      await upsertTool(trx, row);
      await bumpRevision(trx, now);
      await append({
        actor: actorOf(caller),
        action: existing === undefined ? 'tool.create' : 'tool.update',
        target: row.key,
        detail: { impact: row.impact, kind: row.kind, output_trust: row.output_trust, has_schema: row.json_schema !== null },
      });
    });
    await this.directory.reload();
    return { created: existing === undefined, tool: this.toWire(row) };
  }
}
