// Model prices (setting `model_prices`): what a proxied call cost, from its token counts. Pure.

export interface ModelPrice {
  input_per_mtok: number;
  output_per_mtok: number;
}

/** Token counts of one answer, in the chat-completions names (the other formats map onto them). */
export interface TokenCounts {
  prompt_tokens: number;
  completion_tokens: number;
}

export class PriceTable {
  /** Keys longest first, so that `gpt-4o-mini` wins over `gpt-4o` for `gpt-4o-mini-2024-07-18`. */
  private readonly prefixes: Array<[string, ModelPrice]>;

  constructor(private readonly prices: Readonly<Record<string, ModelPrice>>) {
    this.prefixes = Object.entries(prices).sort(([a], [b]) => b.length - a.length);
  }

  /** The price of a model: its exact name, else the longest key it starts with; null when unknown. */
  priceOf(model: string): ModelPrice | null {
    const exact = this.prices[model];
    if (exact !== undefined) return exact;
    for (const [prefix, price] of this.prefixes) if (model.startsWith(prefix)) return price;
    return null;
  }

  /** USD for the tokens; null when the model has no price (counted as `unpriced`, cost 0). */
  costOf(model: string, tokens: TokenCounts): number | null {
    const price = this.priceOf(model);
    if (price === null) return null;
    return (tokens.prompt_tokens * price.input_per_mtok + tokens.completion_tokens * price.output_per_mtok) / 1_000_000;
  }
}

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0);

/**
 * Token counts from any of the proxied formats' `usage`: chat completions (`prompt_tokens`,
 * `completion_tokens`), responses and messages (`input_tokens`, `output_tokens`; the messages
 * format's cache writes and reads are input too, priced as input: a budget errs on the high side).
 * @example tokenCountsOf({ input_tokens: 10, output_tokens: 3 }) // { prompt_tokens: 10, completion_tokens: 3 }
 */
export function tokenCountsOf(usage: unknown): TokenCounts | null {
  if (usage === null || typeof usage !== 'object') return null;
  const u = usage as Record<string, unknown>;
  if ('prompt_tokens' in u || 'completion_tokens' in u) return { prompt_tokens: count(u.prompt_tokens), completion_tokens: count(u.completion_tokens) };
  if ('input_tokens' in u || 'output_tokens' in u) {
    return {
      prompt_tokens: count(u.input_tokens) + count(u.cache_creation_input_tokens) + count(u.cache_read_input_tokens),
      completion_tokens: count(u.output_tokens),
    };
  }
  return null;
}
