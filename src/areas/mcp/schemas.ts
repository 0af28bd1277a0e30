// Wire shapes of the MCP registry (spec 02 "Tools, MCP, discovery") and of /v1/mcp/call (spec 01 §4).
import { Type, type Static } from 'typebox';
import { DecisionSchema, GUARD_BODY_LIMIT } from '../guard/schemas.js';
import { Body, Nullable, StringEnum, Timestamp, NullableTimestamp } from '../../infra/http/schemas.js';
import { MCP_TRANSPORTS } from './live.js';

export const TRUST_LEVELS = ['trusted', 'untrusted'] as const;
export const TOOL_STATUSES = ['pinned', 'changed', 'new', 'removed'] as const;
const SERVER_NAME = '^[a-z0-9][a-z0-9_-]{0,63}$';

export const ServerNameParams = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 64, description: 'the server name (a slug)' }),
});
export type ServerNameParams = Static<typeof ServerNameParams>;

const JsonObject = (description: string) => Type.Record(Type.String(), Type.Unknown(), { description });

/** A tool as MCP servers list it: `{name, description, inputSchema, annotations}` (plus title and outputSchema). */
export const ListedToolSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    title: Type.Optional(Type.String({ maxLength: 500 })),
    description: Type.Optional(Type.String({ maxLength: 20_000 })),
    inputSchema: Type.Optional(JsonObject('JSON Schema of the arguments')),
    outputSchema: Type.Optional(JsonObject('JSON Schema of the structured result')),
    annotations: Type.Optional(JsonObject('MCP tool annotations (readOnlyHint, destructiveHint, ...)')),
    _meta: Type.Optional(JsonObject('protocol metadata; not pinned')),
  },
  { additionalProperties: false },
);

export const RegisterServerBody = Body({
  name: Type.String({ pattern: SERVER_NAME, description: 'a slug: lower-case letters, digits, - and _' }),
  url: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, format: 'uri', description: 'streamable_http and sse servers' })),
  transport: Type.Optional(StringEnum(MCP_TRANSPORTS, { description: 'default streamable_http' })),
  trust_level: Type.Optional(StringEnum(TRUST_LEVELS, { description: "whether the server's results are trusted content (default untrusted)" })),
  pinned_version: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'the server version reviewed; unset raises unpinned_server' })),
  command: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'stdio servers: the command to start (admin only)' })),
  args: Type.Optional(Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 100, description: 'stdio servers: its arguments' })),
});
export type RegisterServerBody = Static<typeof RegisterServerBody>;

export const ScanBody = Body({
  tools: Type.Optional(
    Type.Array(ListedToolSchema, { maxItems: 2000, description: 'a tool listing; absent, the gateway fetches it from the live server' }),
  ),
});
export type ScanBody = Static<typeof ScanBody>;

export const ReviewBody = Body({
  tools: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 2000, description: 'tool names to pin; absent: every tool not pinned' }),
  ),
  accept_changes: Type.Optional(
    Type.Boolean({ description: 'needed to pin a tool that changed since its review, or to forget a removed one' }),
  ),
  note: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'why the change is accepted (required with accept_changes)' })),
});
export type ReviewBody = Static<typeof ReviewBody>;

export const McpToolSchema = Type.Object({
  name: Type.String(),
  tool_key: Type.String({ description: 'mcp:<server>/<tool>, the key grants name' }),
  status: StringEnum(TOOL_STATUSES),
  title: Nullable(Type.String()),
  description: Nullable(Type.String()),
  input_schema: JsonObject('as last listed'),
  annotations: JsonObject('as last listed'),
  impact: StringEnum(['low', 'medium', 'high']),
  current_hash: Type.String(),
  pin_hash: Nullable(Type.String()),
  pinned_definition: Nullable(JsonObject('the definition accepted at review ({name, title, description, inputSchema, outputSchema, annotations, impact}), to compare with the current one')),
  poisoned: Type.Boolean({ description: 'the description reads like an instruction' }),
  reviewed_at: NullableTimestamp,
  reviewed_by: Nullable(Type.String()),
  review_note: Nullable(Type.String()),
  first_seen_at: Timestamp,
  last_seen_at: Timestamp,
});
export type McpTool = Static<typeof McpToolSchema>;

export const McpServerSchema = Type.Object({
  name: Type.String(),
  url: Nullable(Type.String()),
  transport: StringEnum(MCP_TRANSPORTS),
  command: Nullable(Type.String()),
  args: Type.Array(Type.String()),
  trust_level: StringEnum(TRUST_LEVELS),
  pinned_version: Nullable(Type.String()),
  server_version: Nullable(Type.String()),
  last_scanned_at: NullableTimestamp,
  watching: Type.Boolean({ description: 'this process holds a connection that rescans on tools/list_changed' }),
  tools: Type.Array(McpToolSchema),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type McpServer = Static<typeof McpServerSchema>;

export const McpServerList = Type.Object({ items: Type.Array(McpServerSchema), next_cursor: Nullable(Type.String()) });

export const ListServersQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
});
export type ListServersQuery = Static<typeof ListServersQuery>;

const Poisoned = Type.Object({ name: Type.String(), entity: Type.String(), score: Type.Number(), explanation: Type.String() });

export const ScanResultSchema = Type.Object({
  server: Type.String(),
  source: StringEnum(['body', 'live', 'list_changed']),
  scanned_at: Timestamp,
  server_version: Nullable(Type.String()),
  added: Type.Array(Type.String()),
  removed: Type.Array(Type.String()),
  changed: Type.Array(Type.String()),
  unchanged: Type.Array(Type.String()),
  poisoned: Type.Array(Poisoned),
  findings: Type.Array(Type.String({ description: 'finding types raised by the scan' })),
  tools: Type.Array(McpToolSchema),
});
export type ScanResult = Static<typeof ScanResultSchema>;

export const McpCallBody = Body(
  {
    server: Type.String({ minLength: 1, maxLength: 64, description: 'the registered server name' }),
    tool: Type.String({ minLength: 1, maxLength: 200, description: 'the tool name as the server lists it' }),
    arguments: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    provenance: Type.Optional(
      Type.Record(Type.String({ maxLength: 200 }), Type.String({ maxLength: 100 }), { description: 'argument name → origin label' }),
    ),
    result: Type.Optional(Type.Unknown({ description: 'what the tool returned, checked as tool_result' })),
    session_id: Type.Optional(Type.String({ maxLength: 500, description: 'taint of untrusted results follows into later calls of the session' })),
    approval_id: Type.Optional(Type.String({ maxLength: 500, description: 'an approved approval for this exact call (a held call goes through once)' })),
  },
  { bodyLimit: GUARD_BODY_LIMIT },
);
export type McpCallBody = Static<typeof McpCallBody>;

export const MCP_CALL_PARTS = ['arguments', 'result'] as const;

/**
 * A Decision like every guard answer (spec 01 §2.1): the deciding part's, that is the part with the
 * stricter verdict, then the stricter effective_verdict, the arguments on a tie. Both parts' own
 * Decisions stay in `decisions`.
 */
export const McpCallAnswer = Type.Object(
  {
    ...DecisionSchema.properties,
    decided_by: StringEnum(MCP_CALL_PARTS, { description: 'which part the top-level Decision is: the stricter one' }),
    decisions: Type.Object(
      {
        arguments: DecisionSchema,
        result: Type.Optional(DecisionSchema),
      },
      { description: 'the Decision of each part: the arguments checked as tool_args, the result (when given) as tool_result' },
    ),
  },
  { description: "the deciding part's Decision, with every part's Decision in decisions" },
);
export type McpCallAnswer = Static<typeof McpCallAnswer>;
