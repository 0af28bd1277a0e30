// What is pinned of an MCP tool at review, and the tool keys grants name MCP tools by. Pure.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../infra/lib/canonical-json.js';

/** A tool as an MCP server lists it (the protocol's own shape, CONTRACT.md "Answers"). */
export interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** The part of a listed tool a review pins: everything that tells a model what the tool is and does. */
export interface PinnedDefinition {
  name: string;
  title: string | null;
  description: string | null;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown> | null;
  annotations: Record<string, unknown>;
  impact: McpImpact;
}

export type McpImpact = 'low' | 'medium' | 'high';

/**
 * The tool key grants and decisions use for an MCP tool: `mcp:<server>/<tool>`. A grant of
 * `mcp:<server>/*` covers every tool of that server (and `*` every tool anywhere).
 * @example toolKey('weather', 'get_weather') === 'mcp:weather/get_weather'
 */
export function toolKey(server: string, tool: string): string {
  return `mcp:${server}/${tool}`;
}

export function serverWildcard(server: string): string {
  return `mcp:${server}/*`;
}

/**
 * The impact a tool declares through its annotations (MCP ToolAnnotations): destructive is high,
 * read-only is low, anything else medium. It is part of the pin, so a tool that stops calling
 * itself read-only drifts.
 */
export function impactOf(annotations: Record<string, unknown>): McpImpact {
  if (annotations.destructiveHint === true) return 'high';
  if (annotations.readOnlyHint === true) return 'low';
  return 'medium';
}

export function definitionOf(tool: ListedTool): PinnedDefinition {
  const annotations = tool.annotations ?? {};
  return {
    name: tool.name,
    title: tool.title ?? null,
    description: tool.description ?? null,
    inputSchema: tool.inputSchema ?? { type: 'object' },
    outputSchema: tool.outputSchema ?? null,
    annotations,
    impact: impactOf(annotations),
  };
}

/**
 * sha256 over the RFC 8785 canonical JSON of the definition. The name is inside the hash, so a
 * pin never carries over to a renamed tool; key order in schemas does not matter.
 */
export function pinHash(definition: PinnedDefinition): string {
  return createHash('sha256').update(canonicalJson(definition)).digest('hex');
}
