// Run state for tool calls: loops and budgets.
// - A loop is the same tool with the same arguments again and again within a short window, per
//   agent and session (or per agent without one). Kept in this process's memory, bounded.
// - A budget is an operator's limit on an agent's tool calls per hour. It must hold across every
//   gateway process, so it is counted in the database with one atomic update, and only for agents
//   that have a limit (everyone else pays nothing).
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../infra/lib/canonical-json.js';
import type { AgentLimits } from './agents.js';

export interface UsageCounter {
  /** Adds one call to the agent's count for the window and returns the new count. */
  increment(agent: string, window: string): Promise<number>;
}

const MAX_KEYS = 20_000;

export class LoopTracker {
  private readonly recent = new Map<string, number[]>();

  /** Notes a call and says whether it makes a loop under the agent's limits. */
  note(agent: string, sessionId: string | undefined, tool: string, args: unknown, limits: AgentLimits, nowMs: number): { loop: boolean; repeats: number } {
    const key = `${agent}\u0000${sessionId ?? ''}\u0000${tool}\u0000${argumentDigest(args)}`;
    const windowMs = limits.loopWindowSeconds * 1000;
    let times = this.recent.get(key);
    if (times === undefined) {
      if (this.recent.size >= MAX_KEYS) this.prune(nowMs, windowMs);
      times = [];
    } else this.recent.delete(key);
    this.recent.set(key, times);
    while (times.length > 0 && nowMs - (times[0] as number) > windowMs) times.shift();
    times.push(nowMs);
    if (times.length > limits.loopThreshold * 2) times.splice(0, times.length - limits.loopThreshold * 2);
    return { loop: times.length >= limits.loopThreshold, repeats: times.length };
  }

  private prune(nowMs: number, windowMs: number): void {
    for (const [key, times] of this.recent) {
      if (this.recent.size < MAX_KEYS * 0.9) return;
      if (times.length === 0 || nowMs - (times.at(-1) as number) > windowMs || this.recent.size >= MAX_KEYS) this.recent.delete(key);
    }
  }
}

/** A digest of canonical arguments (RFC 8785): key order does not make two identical calls different. */
export function argumentDigest(args: unknown): string {
  return createHash('sha256').update(canonicalJson(args)).digest('hex');
}

/** The clock hour a call falls in, the window of per-hour limits. */
export function hourWindow(at: Date): string {
  return at.toISOString().slice(0, 13);
}
