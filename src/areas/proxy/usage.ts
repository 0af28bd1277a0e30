// Model usage per agent and model, counted in this process's memory since it started (shown by
// GET /api/reliability). Token counts come from the upstream's `usage`.

export interface ModelUsage {
  agent: string;
  model: string;
  calls: number;
  /** Calls answered without the upstream (blocked or held before forwarding). */
  blocked_calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface TokenUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
}

const MAX_ROWS = 10_000;

export class UsageLedger {
  private readonly rows = new Map<string, ModelUsage>();

  note(agent: string, model: string, usage: TokenUsage | null, forwarded: boolean): void {
    const key = `${agent}\u0000${model}`;
    let row = this.rows.get(key);
    if (row === undefined) {
      // Bounded: model names come from callers.
      if (this.rows.size >= MAX_ROWS) return;
      row = { agent, model, calls: 0, blocked_calls: 0, prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
      this.rows.set(key, row);
    }
    row.calls += 1;
    if (!forwarded) row.blocked_calls += 1;
    if (usage !== null) {
      row.prompt_tokens += count(usage.prompt_tokens);
      row.completion_tokens += count(usage.completion_tokens);
      row.total_tokens += count(usage.total_tokens);
    }
  }

  list(): ModelUsage[] {
    return [...this.rows.values()].map((row) => ({ ...row })).sort((a, b) => a.agent.localeCompare(b.agent) || a.model.localeCompare(b.model));
  }
}

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0);
