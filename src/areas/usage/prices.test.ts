// Model prices: exact names, longest prefixes, unknown models, and token counts from every proxied format.
import { describe, expect, it } from 'vitest';
import { DEFAULT_MODEL_PRICES } from '../../infra/config/schema.js';
import { DEFAULT_OUTPUT_TOKEN_CAP, PriceTable, tokenCountsOf, worstCaseTokens } from './prices.js';

describe('model prices', () => {
  const table = new PriceTable({
    'gpt-4o': { input_per_mtok: 2.5, output_per_mtok: 10 },
    'gpt-4o-mini': { input_per_mtok: 0.15, output_per_mtok: 0.6 },
    'exact-model': { input_per_mtok: 1, output_per_mtok: 1 },
  });

  it.each([
    ['gpt-4o', 2.5],
    ['gpt-4o-2024-08-06', 2.5],
    ['gpt-4o-mini', 0.15],
    ['gpt-4o-mini-2024-07-18', 0.15],
    ['exact-model', 1],
  ])('prices %s by its name or longest prefix', (model, input) => {
    expect(table.priceOf(model)?.input_per_mtok).toBe(input);
  });

  it('answers null for a model it does not know, and costs tokens per million', () => {
    expect(table.priceOf('gpt-4')).toBeNull();
    expect(table.costOf('mystery', { prompt_tokens: 10, completion_tokens: 10 })).toBeNull();
    expect(table.costOf('gpt-4o', { prompt_tokens: 1_000_000, completion_tokens: 500_000 })).toBeCloseTo(7.5, 9);
  });

  it('reads usage in the chat-completions, responses and messages names', () => {
    expect(tokenCountsOf({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 })).toEqual({ prompt_tokens: 11, completion_tokens: 7 });
    expect(tokenCountsOf({ input_tokens: 5, output_tokens: 2, total_tokens: 7 })).toEqual({ prompt_tokens: 5, completion_tokens: 2 });
    expect(tokenCountsOf({ input_tokens: 5, cache_creation_input_tokens: 3, cache_read_input_tokens: 100, output_tokens: 2 })).toEqual({ prompt_tokens: 108, completion_tokens: 2 });
    expect(tokenCountsOf({ prompt_tokens: -4, completion_tokens: 'x' })).toEqual({ prompt_tokens: 0, completion_tokens: 0 });
    expect(tokenCountsOf(null)).toBeNull();
    expect(tokenCountsOf({})).toBeNull();
  });

  it('ships default prices that tell the mini models from their larger siblings', () => {
    const defaults = new PriceTable(DEFAULT_MODEL_PRICES);
    expect(defaults.priceOf('gpt-4o-mini-2024-07-18')).toEqual(DEFAULT_MODEL_PRICES['gpt-4o-mini']);
    expect(defaults.priceOf('claude-sonnet-4-5-20250929')).toEqual(DEFAULT_MODEL_PRICES['claude-sonnet-4']);
    expect(defaults.priceOf('claude-opus-4-5-20251101')).toEqual(DEFAULT_MODEL_PRICES['claude-opus-4-5']);
  });
});

describe('worst-case tokens of a request', () => {
  it('counts the body in bytes as input and the named output cap, times n', () => {
    const body = { model: 'm', messages: [{ role: 'user', content: 'héllo' }], max_tokens: 10 };
    expect(worstCaseTokens(body)).toEqual({ prompt_tokens: Buffer.byteLength(JSON.stringify(body)), completion_tokens: 10 });
    expect(worstCaseTokens({ max_completion_tokens: 7, max_tokens: 100, n: 3 }).completion_tokens).toBe(21);
    expect(worstCaseTokens({ max_output_tokens: 5 }).completion_tokens).toBe(5);
  });

  it('reserves the default cap when the request names none, and prices the worst case', () => {
    expect(worstCaseTokens({ messages: [] }).completion_tokens).toBe(DEFAULT_OUTPUT_TOKEN_CAP);
    expect(worstCaseTokens({ max_tokens: -1, n: 0 }).completion_tokens).toBe(DEFAULT_OUTPUT_TOKEN_CAP);
    const table = new PriceTable({ priced: { input_per_mtok: 1_000_000, output_per_mtok: 2_000_000 } });
    expect(table.worstCaseCostOf('priced', { max_tokens: 4 })).toBe(Buffer.byteLength('{"max_tokens":4}') + 8);
    expect(table.worstCaseCostOf('unpriced', { max_tokens: 4 })).toBe(0);
  });
});
