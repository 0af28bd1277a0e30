// mcp_servers: registered MCP servers and the reviewed definition pinned for each of their tools,
// keyed by name. Applied through McpService: register, then (when the pins differ) a scan of the
// pinned definitions and a review that pins them, accepting the change with a note. Tools the
// server lists that were never pinned keep their listing; a pin the document drops is forgotten.
import { Type } from 'typebox';
import { readJsonObject } from '../../../infra/store/json-columns.js';
import type { McpToolRow } from '../../../infra/store/tables.js';
import { definitionOf, type ListedTool } from '../../mcp/pin.js';
import { RegisterServerBody } from '../../mcp/schemas.js';
import type { RegisterServerBody as RegisterServer } from '../../mcp/schemas.js';
import { toolsOf } from '../../mcp/store.js';
import type { WorkspaceTargets } from './targets.js';
import { allPages, byKey, NO_DELETE, touches, withoutEmpty, type Item, type ResourceKind } from './types.js';

const REVIEW_NOTE = 'applied from the workspace document';
const JsonObject = (description: string) => Type.Record(Type.String({ maxLength: 200 }), Type.Unknown(), { description });

const PinSchema = Type.Object(
  {
    title: Type.Optional(Type.String({ maxLength: 500 })),
    description: Type.Optional(Type.String({ maxLength: 20_000 })),
    inputSchema: Type.Optional(JsonObject('JSON Schema of the arguments')),
    outputSchema: Type.Optional(JsonObject('JSON Schema of the structured result')),
    annotations: Type.Optional(JsonObject('MCP tool annotations (readOnlyHint, destructiveHint, ...)')),
  },
  { additionalProperties: false, description: 'the reviewed definition of one tool, as the server lists it' },
);

export const McpServerItem = Type.Object(
  {
    ...RegisterServerBody.properties,
    pins: Type.Optional(
      Type.Record(Type.String({ minLength: 1, maxLength: 200 }), PinSchema, {
        maxProperties: 2000,
        description: 'tool name → the definition pinned at review; a tool left out is not pinned',
      }),
    ),
    comment: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);

/** A pinned definition as the document writes it: no name (it is the key), no impact (it follows from the annotations), nothing empty. */
function pinOf(definition: Record<string, unknown>): Item {
  const { name: _name, impact: _impact, ...rest } = definition;
  return withoutEmpty(rest);
}

function listedOf(name: string, pin: Item): ListedTool {
  return { name, ...(pin as Omit<ListedTool, 'name'>) };
}

function listedOfRow(row: McpToolRow): ListedTool {
  return {
    name: row.name,
    ...(row.title === null ? {} : { title: row.title }),
    ...(row.description === null ? {} : { description: row.description }),
    inputSchema: readJsonObject(row.input_schema),
    ...(row.output_schema === null ? {} : { outputSchema: readJsonObject(row.output_schema) }),
    annotations: readJsonObject(row.annotations),
  };
}

export function mcpServersKind(targets: WorkspaceTargets): ResourceKind {
  const kind: ResourceKind = {
    name: 'mcp_servers',
    itemSchema: McpServerItem,
    description: 'MCP servers with their tool pins, keyed by name',
    key: (item) => String(item.name),

    async current() {
      const servers = await allPages((cursor) => targets.mcp.list({ limit: 500, ...(cursor === undefined ? {} : { cursor }) }));
      return byKey(
        kind,
        servers.map((server) => {
          const pins: Record<string, Item> = {};
          for (const tool of [...server.tools].sort((a, b) => (a.name < b.name ? -1 : 1))) {
            if (tool.pinned_definition !== null) pins[tool.name] = pinOf(tool.pinned_definition);
          }
          return withoutEmpty({
            name: server.name,
            url: server.url,
            transport: server.transport,
            ...(server.transport === 'stdio' ? { command: server.command, args: server.args } : {}),
            trust_level: server.trust_level,
            pinned_version: server.pinned_version,
            ...(Object.keys(pins).length === 0 ? {} : { pins }),
          });
        }),
      );
    },

    normalise(item) {
      if (item.pins === undefined) return item;
      const pins: Record<string, Item> = {};
      for (const [name, pin] of Object.entries(item.pins as Record<string, Item>)) pins[name] = pinOf({ ...definitionOf(listedOf(name, pin)) });
      return { ...item, pins };
    },

    blocked(change) {
      if (change.action === 'delete') return NO_DELETE('an MCP server', 'leave it in the document');
      const cleared = change.fields.filter((field) => field.to === null && ['url', 'pinned_version', 'command'].includes(field.path)).map((field) => field.path);
      return cleared.length === 0 ? null : `${cleared.join(', ')} of an MCP server cannot be cleared through the API (only replaced)`;
    },

    async apply(change, { caller }) {
      const desired = change.desired as Item;
      const { pins, comment: _comment, ...record } = desired;
      const server = change.key;
      if (change.action === 'create' || change.fields.some((field) => !field.path.startsWith('pins'))) {
        await targets.mcp.register(caller, withoutEmpty(record) as RegisterServer);
      }
      if (pins === undefined || (change.action === 'change' && touches(change.fields, ['pins']).length === 0)) return;
      const wanted = pins as Record<string, Item>;
      const rows = await toolsOf(targets.store.db, [server]);
      // The listing scanned: the pinned definitions, and the tools never pinned as last listed.
      const listing = [
        ...Object.entries(wanted).map(([name, pin]) => listedOf(name, pin)),
        ...rows.filter((row) => row.status === 'new' && !(row.name in wanted)).map(listedOfRow),
      ];
      await targets.mcp.scan(caller, server, listing);
      const removed = (await toolsOf(targets.store.db, [server])).filter((row) => row.status === 'removed').map((row) => row.name);
      const review = [...Object.keys(wanted), ...removed];
      if (review.length > 0) await targets.mcp.review(caller, server, { tools: review, accept_changes: true, note: REVIEW_NOTE });
    },
  };
  return kind;
}
