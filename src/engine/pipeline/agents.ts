import type { ProtectionSettings } from './protection-match.js';

// What the decision pipeline knows of an agent, read from memory on the hot path. The agent
// registry (src/agents/directory.ts) keeps this view in step with the database; the pipeline only
// reads it.

/** A grant of one tool to one agent (spec 02 "Agents": tool_key, requires_approval, max_taint, constraints, actions). */
export interface Grant {
  id: string;
  toolKey: string;
  requiresApproval: boolean;
  /** The most tainted arguments accepted (0 trusted, 0.5 untrusted, 1 hostile); null: no limit. */
  maxTaint: number | null;
  constraints: Readonly<Record<string, unknown>>;
  actions: readonly string[];
}

/** Limits an operator sets per agent through its protections. */
export interface AgentLimits {
  /** Tool calls per clock hour, counted across every gateway process. */
  maxToolCallsPerHour: number | null;
  /** The same tool with the same arguments this many times within `loopWindowSeconds` is a loop. */
  loopThreshold: number;
  loopWindowSeconds: number;
  /** Proxied model calls per UTC day (src/runs), counted in the database across processes. */
  maxCallsPerDay: number | null;
  /** Model cost in USD per UTC day (src/runs); calls stop once it is reached. */
  maxCostUsdPerDay: number | null;
}

export const DEFAULT_LIMITS: AgentLimits = { maxToolCallsPerHour: null, loopThreshold: 5, loopWindowSeconds: 60, maxCallsPerDay: null, maxCostUsdPerDay: null };

export interface AgentFacts {
  /** Approved in the registry; an unregistered name is a shadow agent (subject `agent:None`). */
  registered: boolean;
  /** active, or stopped by the kill switch or quarantine. */
  control: 'active' | 'quarantined' | 'killed';
  declaredTools: readonly string[] | null;
  declaredModels: readonly string[] | null;
  dataClasses: readonly string[];
  /** Grants by tool key; `*` grants every tool. */
  grants: ReadonlyMap<string, Grant>;
  limits: AgentLimits;
  /** Words and topics the operator does not allow in the agent's input and output; null: none. */
  protection: ProtectionSettings | null;
  /** The owning team and the environment from the registry: which scoped policies apply. */
  team: string | null;
  environment: string | null;
}

/** What the tool registry says of a tool (POST /api/tools). */
export interface ToolFacts {
  key: string;
  jsonSchema: Record<string, unknown> | null;
  impact: string | null;
  outputTrust: string;
}

export interface AgentDirectory {
  lookup(slug: string): AgentFacts;
  /** The registered tool with this key, if any. */
  tool?(key: string): ToolFacts | undefined;
  /** Notes that an agent was seen in traffic (and with which tool), for shadow agents and drift. */
  observe?(slug: string, seen: { tool?: string; model?: string }): void;
}

export const UNKNOWN_AGENT: AgentFacts = {
  registered: false,
  control: 'active',
  declaredTools: null,
  declaredModels: null,
  dataClasses: [],
  grants: new Map(),
  limits: DEFAULT_LIMITS,
  protection: null,
  team: null,
  environment: null,
};

export const EMPTY_DIRECTORY: AgentDirectory = { lookup: () => UNKNOWN_AGENT };

const TAINT_NAMES: Record<string, number> = { trusted: 0, none: 0, untrusted: 0.5, hostile: 1 };

/** A grant's or a request's taint level as a number: a name (trusted, untrusted, hostile) or a number 0..1. */
export function taintLevel(value: string | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  const named = TAINT_NAMES[value];
  if (named !== undefined) return named;
  const number = Number(value);
  return Number.isFinite(number) && number >= 0 && number <= 1 ? number : null;
}

export function taintName(level: number): 'trusted' | 'untrusted' | 'hostile' {
  return level >= 1 ? 'hostile' : level > 0 ? 'untrusted' : 'trusted';
}
