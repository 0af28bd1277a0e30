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

  /**
   * The most a call can cost before it is sent (the daily cost budget reserves it): its worst-case
   * tokens (`worstCaseTokens`) at the model's price; 0 for a model without a price.
   */
  worstCaseCostOf(model: string, request: unknown): number {
    return this.costOf(model, worstCaseTokens(request)) ?? 0;
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

/** Output tokens reserved for a call that names no cap (no max_tokens, max_completion_tokens or max_output_tokens). */
export const DEFAULT_OUTPUT_TOKEN_CAP = 16_384;

/** Choices (`n`) of one chat-completions call reserved at most: more is the caller's own outlier. */
const MAX_CHOICES = 128;

const positiveInteger = (value: unknown): number | null => (typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null);

/**
 * The worst-case tokens of a request in any proxied format, from the request alone:
 * - input: the UTF-8 size of the whole request body in bytes. A tokenizer's token covers at least
 *   one byte of text and the JSON around the messages outweighs the chat template's own tokens, so
 *   this is above the real count (context the upstream adds itself, as a stored conversation of
 *   the responses format or an image given by URL, is not seen);
 * - output: `max_completion_tokens`, `max_output_tokens` or `max_tokens` (the first present), else
 *   DEFAULT_OUTPUT_TOKEN_CAP, times the chat-completions `n` choices.
 * @example worstCaseTokens({ model: 'm', max_tokens: 10, messages: [] }) // { prompt_tokens: 43, completion_tokens: 10 }
 */
export function worstCaseTokens(request: unknown): TokenCounts {
  const body = request !== null && typeof request === 'object' ? (request as Record<string, unknown>) : {};
  const cap = positiveInteger(body.max_completion_tokens) ?? positiveInteger(body.max_output_tokens) ?? positiveInteger(body.max_tokens) ?? DEFAULT_OUTPUT_TOKEN_CAP;
  const choices = Math.min(positiveInteger(body.n) ?? 1, MAX_CHOICES);
  return { prompt_tokens: Buffer.byteLength(JSON.stringify(body) ?? '', 'utf8'), completion_tokens: cap * choices };
}
