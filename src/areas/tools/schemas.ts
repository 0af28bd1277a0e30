// Wire shapes of the tool registry (spec 02 "Tools, MCP, discovery").
import { Type, type Static } from 'typebox';
import { Body, Nullable, StringEnum, Timestamp } from '../../infra/http/schemas.js';

export const TOOL_IMPACTS = ['low', 'medium', 'high', 'critical'] as const;
export const OUTPUT_TRUST = ['trusted', 'untrusted'] as const;

export const ToolSchema = Type.Object({
  key: Type.String(),
  name: Type.String(),
  kind: Nullable(Type.String()),
  impact: Nullable(Type.String()),
  description: Nullable(Type.String()),
  json_schema: Nullable(Type.Record(Type.String(), Type.Unknown())),
  output_trust: StringEnum(OUTPUT_TRUST),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Tool = Static<typeof ToolSchema>;

export const RegisterToolBody = Body({
  key: Type.String({ minLength: 1, maxLength: 200, pattern: '^[^*\\s]+$', description: 'the tool key agents call it by' }),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  kind: Type.Optional(Type.String({ minLength: 1, maxLength: 50, description: 'e.g. function, mcp, http, sql, shell' })),
  impact: Type.Optional(StringEnum(TOOL_IMPACTS, { description: 'what a call can do: low, medium, high, critical' })),
  description: Type.Optional(Type.String({ maxLength: 5000 })),
  json_schema: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), { description: "JSON Schema of the tool's arguments; schema.json checks every call against it" }),
  ),
  output_trust: Type.Optional(
    StringEnum(OUTPUT_TRUST, { description: "whether the tool's results are trusted content (default untrusted: their taint follows them)" }),
  ),
});
export type RegisterToolBody = Static<typeof RegisterToolBody>;

export const ToolList = Type.Object({ items: Type.Array(ToolSchema) });
