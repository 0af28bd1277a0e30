// The capability check of a tool call against the agent's grant: is there one, does the call stay
// within its actions and constraints, is its taint within the grant's limit, does it need a
// person. Pure: the grant comes from the in-memory registry view.
import type { AgentFacts, Grant } from './agents.js';

export type CapabilityOutcome =
  | 'granted'
  | 'denied'
  | 'not_declared'
  | 'approval_required'
  | 'taint_exceeded'
  | 'constraint_violated'
  | 'action_denied';

export interface CapabilityCheck {
  outcomes: Set<CapabilityOutcome>;
  grant: Grant | null;
  /** Why a constraint or an action failed, for the reason text and the finding. */
  problems: string[];
}

/** What an analysed action does, in the words grants use. */
const ACTION_OF_KIND: Record<string, string> = {
  'sql.select': 'read',
  'sql.insert': 'write',
  'sql.update': 'write',
  'sql.delete': 'delete',
  'sql.ddl': 'delete',
  'sql.grant': 'admin',
  'shell.exec': 'execute',
  'shell.delete': 'delete',
  'shell.network': 'execute',
  'shell.privilege': 'admin',
  'http.read': 'read',
  'http.write': 'write',
};

export function actionsOf(kinds: readonly string[]): string[] {
  return [...new Set(kinds.map((kind) => ACTION_OF_KIND[kind]).filter((action): action is string => action !== undefined))];
}

/**
 * The grant that covers a tool: its own, else for an MCP tool (`mcp:<server>/<tool>`) the server's
 * wildcard `mcp:<server>/*`, else `*`.
 */
export function grantFor(agent: AgentFacts, tool: string): Grant | null {
  const exact = agent.grants.get(tool);
  if (exact !== undefined) return exact;
  const server = mcpServerWildcard(tool);
  return (server === null ? undefined : agent.grants.get(server)) ?? agent.grants.get('*') ?? null;
}

/** `mcp:<server>/*` for an MCP tool key, null for other tools. */
function mcpServerWildcard(tool: string): string | null {
  if (!tool.startsWith('mcp:')) return null;
  const slash = tool.indexOf('/');
  return slash < 0 ? null : `${tool.slice(0, slash)}/*`;
}

export function checkCapability(input: {
  agent: AgentFacts;
  tool: string;
  args: Record<string, unknown>;
  /** The action the caller names (identity check), or those inferred from the arguments. */
  actions: readonly string[];
  taint: number;
}): CapabilityCheck {
  const { agent, tool } = input;
  const outcomes = new Set<CapabilityOutcome>();
  const problems: string[] = [];
  const grant = grantFor(agent, tool);
  // Only a registered agent has a declaration to compare with (CONTRACT.md: `tool.not_declared`).
  const declared = agent.declaredTools ?? [];
  const server = mcpServerWildcard(tool);
  if (agent.registered && !declared.includes(tool) && (server === null || !declared.includes(server))) outcomes.add('not_declared');
  if (grant === null) {
    outcomes.add('denied');
    return { outcomes, grant, problems };
  }
  outcomes.add('granted');
  if (grant.actions.length > 0) {
    const outside = input.actions.filter((action) => !grant.actions.includes(action));
    if (outside.length > 0) {
      outcomes.add('action_denied');
      problems.push(`the grant allows ${grant.actions.join(', ')}, not ${outside.join(', ')}`);
    }
  }
  const violated = constraintProblems(grant.constraints, input.args);
  if (violated.length > 0) {
    outcomes.add('constraint_violated');
    problems.push(...violated);
  }
  if (grant.maxTaint !== null && input.taint > grant.maxTaint) outcomes.add('taint_exceeded');
  if (grant.requiresApproval) outcomes.add('approval_required');
  return { outcomes, grant, problems };
}

/**
 * Constraints, per argument: a value it must equal, a list it must be one of, or an object with
 * `one_of`, `min`, `max`, `prefix`. The key `hosts` lists the hosts URL arguments may name.
 */
export function constraintProblems(constraints: Readonly<Record<string, unknown>>, args: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const [name, rule] of Object.entries(constraints)) {
    if (name === 'hosts') {
      problems.push(...hostProblems(rule, args));
      continue;
    }
    const value = args[name];
    if (Array.isArray(rule)) {
      if (!rule.some((allowed) => sameValue(allowed, value))) problems.push(`${name} must be one of ${JSON.stringify(rule)}`);
    } else if (rule !== null && typeof rule === 'object') {
      const spec = rule as { one_of?: unknown; min?: unknown; max?: unknown; prefix?: unknown };
      if (Array.isArray(spec.one_of) && !spec.one_of.some((allowed) => sameValue(allowed, value))) {
        problems.push(`${name} must be one of ${JSON.stringify(spec.one_of)}`);
      }
      if (typeof spec.min === 'number' && !(typeof value === 'number' && value >= spec.min)) problems.push(`${name} must be at least ${spec.min}`);
      if (typeof spec.max === 'number' && !(typeof value === 'number' && value <= spec.max)) problems.push(`${name} must be at most ${spec.max}`);
      if (typeof spec.prefix === 'string' && !(typeof value === 'string' && value.startsWith(spec.prefix))) {
        problems.push(`${name} must start with ${JSON.stringify(spec.prefix)}`);
      }
    } else if (!sameValue(rule, value)) problems.push(`${name} must be ${JSON.stringify(rule)}`);
  }
  return problems;
}

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || (typeof a === 'number' && typeof b === 'string' && String(a) === b);
}

/** Hosts a grant allows: exact names, or `*.example.com` for its subdomains. */
export function hostAllowed(host: string, allowed: readonly string[]): boolean {
  const name = host.toLowerCase();
  return allowed.some((entry) => {
    const pattern = entry.toLowerCase();
    return pattern.startsWith('*.') ? name.endsWith(pattern.slice(1)) && name.length > pattern.length - 1 : name === pattern;
  });
}

export function allowedHosts(grant: Grant | null): string[] {
  const hosts = grant?.constraints.hosts;
  return Array.isArray(hosts) ? hosts.filter((host): host is string => typeof host === 'string') : [];
}

function hostProblems(rule: unknown, args: Record<string, unknown>): string[] {
  if (!Array.isArray(rule)) return [];
  const allowed = rule.filter((host): host is string => typeof host === 'string');
  const problems: string[] = [];
  for (const [name, value] of Object.entries(args)) {
    if (typeof value !== 'string' || !/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) continue;
    let host: string;
    try {
      host = new URL(value).hostname;
    } catch {
      problems.push(`${name} is not a valid URL`);
      continue;
    }
    if (!hostAllowed(host, allowed)) problems.push(`${name} names host ${host}, which the grant does not allow`);
  }
  return problems;
}
