// Delegation chains through one agent, walked over sender → recipient edges of agent messages.
// Pure: the edges are loaded by the service (bounded), the walk is bounded by depth and steps.

/**
 * Delegation deeper than this many hops (agent to agent) raises `delegation_depth`: every hop is
 * one more agent acting on another's say-so, and past four the person who started the work can no
 * longer tell which agent decided what.
 */
export const MAX_DELEGATION_DEPTH = 4;
/** Chains listed per direction; the walk still measures depth and cycles past them. */
export const MAX_CHAINS = 200;
/** Path extensions per walk: simple paths can be exponential in number on a dense graph. */
const MAX_STEPS = 20_000;

export interface DelegationEdge {
  from: string;
  to: string;
  messages: number;
  last_at: string;
}

export interface Lineage {
  /** Chains that end at the agent, in delegation order: [a, b, agent] means a → b → agent. */
  upstream: string[][];
  /** Chains that start at the agent: [agent, c, d]. */
  downstream: string[][];
  /** Hops of the deepest chain through the agent: its deepest upstream plus its deepest downstream chain. */
  max_depth: number;
  /** That chain, agent included once. */
  deepest: string[];
  /** Each loop once, closed and starting at its smallest slug: [a, b, a] means a → b → a. */
  cycles: string[][];
  /** True when a bound (chains listed or steps walked) cut the walk short. */
  truncated: boolean;
}

interface Walk {
  chains: string[][];
  deepest: string[];
  cycles: string[][];
  truncated: boolean;
}

/**
 * Walks up to `depth` hops each way from `agent`. A chain is a simple path that cannot be
 * extended (no further agent, or the depth reached); a successor already on the path is a cycle.
 */
export function walkLineage(agent: string, edges: readonly DelegationEdge[], depth: number): Lineage {
  const forward = adjacency(edges, (edge) => [edge.from, edge.to]);
  const backward = adjacency(edges, (edge) => [edge.to, edge.from]);
  const down = walk(agent, forward, depth);
  const up = walk(agent, backward, depth);
  const cycles = new Map<string, string[]>();
  for (const cycle of down.cycles) addCycle(cycles, cycle);
  // Walked against the edges: reverse to read in delegation order.
  for (const cycle of up.cycles) addCycle(cycles, [...cycle].reverse());
  const upDeepest = [...up.deepest].reverse();
  return {
    upstream: up.chains.map((chain) => [...chain].reverse()),
    downstream: down.chains,
    max_depth: up.deepest.length - 1 + (down.deepest.length - 1),
    deepest: [...upDeepest, ...down.deepest.slice(1)],
    cycles: [...cycles.values()].sort((a, b) => a.join('\u0000').localeCompare(b.join('\u0000'))),
    truncated: down.truncated || up.truncated,
  };
}

function adjacency(edges: readonly DelegationEdge[], ends: (edge: DelegationEdge) => [string, string]): Map<string, string[]> {
  const next = new Map<string, string[]>();
  for (const edge of edges) {
    const [from, to] = ends(edge);
    const list = next.get(from);
    if (list === undefined) next.set(from, [to]);
    else if (!list.includes(to)) list.push(to);
  }
  for (const list of next.values()) list.sort();
  return next;
}

function walk(start: string, next: Map<string, string[]>, depth: number): Walk {
  const result: Walk = { chains: [], deepest: [start], cycles: [], truncated: false };
  const path = [start];
  const onPath = new Set(path);
  let steps = 0;
  const visit = (node: string): void => {
    if (path.length > result.deepest.length) result.deepest = [...path];
    let extended = false;
    for (const successor of next.get(node) ?? []) {
      if (onPath.has(successor)) {
        result.cycles.push([...path.slice(path.indexOf(successor)), successor]);
        continue;
      }
      if (path.length - 1 >= depth) continue;
      if (++steps > MAX_STEPS) {
        result.truncated = true;
        return;
      }
      extended = true;
      path.push(successor);
      onPath.add(successor);
      visit(successor);
      path.pop();
      onPath.delete(successor);
      if (result.truncated) return;
    }
    if (!extended && path.length > 1) {
      if (result.chains.length < MAX_CHAINS) result.chains.push([...path]);
      else result.truncated = true;
    }
  };
  visit(start);
  return result;
}

/** Keys a closed cycle by its rotation that starts at the smallest slug. */
function addCycle(cycles: Map<string, string[]>, closed: string[]): void {
  const open = closed.slice(0, -1);
  let first = 0;
  for (let index = 1; index < open.length; index++) if ((open[index] as string) < (open[first] as string)) first = index;
  const rotated = [...open.slice(first), ...open.slice(0, first)];
  const normal = [...rotated, rotated[0] as string];
  const key = normal.join('\u0000');
  if (!cycles.has(key)) cycles.set(key, normal);
}
