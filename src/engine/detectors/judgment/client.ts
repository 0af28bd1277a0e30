// Asks one judgment tier (an OpenAI-compatible chat-completions endpoint) and reads its answer.
// The answer is read leniently: a JSON object, possibly inside a code fence or surrounded by prose;
// anything else counts as the tier failing, never as a verdict.
import { request } from 'undici';
import type { JudgmentTier } from './tiers.js';

/** More than a classification answer ever needs: a tier that sends more is cut off. */
const MAX_ANSWER_BYTES = 65_536;

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

/** The assistant's text, or a thrown Error saying why the tier did not answer. */
export async function askTier(
  tier: JudgmentTier,
  messages: readonly ChatMessage[],
  options: { timeoutMs: number; apiKey?: string | undefined },
): Promise<string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (options.apiKey !== undefined && options.apiKey !== '') headers.authorization = `Bearer ${options.apiKey}`;
  const body = JSON.stringify({ model: tier.model, messages, temperature: 0, max_tokens: 200, stream: false });
  let response: Awaited<ReturnType<typeof request>>;
  try {
    response = await request(tier.endpoint, { method: 'POST', headers, body, signal: AbortSignal.timeout(Math.max(1, options.timeoutMs)) });
  } catch (error) {
    const name = (error as Error).name;
    throw new Error(name === 'TimeoutError' || name === 'AbortError' ? `no answer within ${Math.round(options.timeoutMs)} ms` : `request failed: ${(error as Error).message}`);
  }
  const text = await readCapped(response.body, options.timeoutMs);
  if (response.statusCode < 200 || response.statusCode >= 300) throw new Error(`answered HTTP ${response.statusCode}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('answered something that is not JSON');
  }
  const content = (parsed as { choices?: Array<{ message?: { content?: unknown } }> })?.choices?.[0]?.message?.content;
  if (typeof content !== 'string') throw new Error('answered without choices[0].message.content');
  return content;
}

async function readCapped(body: AsyncIterable<Buffer> & { destroy(): unknown }, timeoutMs: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  const timer = setTimeout(() => body.destroy(), Math.max(1, timeoutMs));
  try {
    for await (const chunk of body) {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) {
        body.destroy();
        throw new Error(`answered more than ${MAX_ANSWER_BYTES} bytes`);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if ((error as Error).message.startsWith('answered')) throw error;
    throw new Error(`reading the answer failed: ${(error as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The first JSON object in a model's answer: the whole text, a fenced block, or the span from the
 * first `{` to its matching `}` (strings and escapes respected). Null when there is none.
 */
export function extractJsonObject(answer: string): Record<string, unknown> | null {
  const candidates = [answer.trim()];
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(answer);
  if (fenced !== null) candidates.push((fenced[1] as string).trim());
  // A few opening braces at most: each try is linear, and an answer of many braces must stay cheap.
  let tries = 0;
  for (let start = answer.indexOf('{'); start !== -1 && tries < 8; start = answer.indexOf('{', start + 1), tries += 1) {
    const end = matchingBrace(answer, start);
    if (end !== -1) candidates.push(answer.slice(start, end + 1));
  }
  for (const candidate of candidates) {
    try {
      const value: unknown = JSON.parse(candidate);
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // the next candidate
    }
  }
  return null;
}

function matchingBrace(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{') depth += 1;
    else if (char === '}') {
      depth -= 1;
      if (depth === 0) return index;
    }
  }
  return -1;
}

/** A boolean a model may write as true, "true", "yes" or 1. Undefined when it is none of these. */
export function looseBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value === 1 ? true : value === 0 ? false : undefined;
  if (typeof value === 'string') {
    const word = value.trim().toLowerCase();
    if (['true', 'yes', '1'].includes(word)) return true;
    if (['false', 'no', '0'].includes(word)) return false;
  }
  return undefined;
}

/** A score in [0, 1] (a percentage is scaled down), or undefined. */
export function looseScore(value: unknown): number | undefined {
  const number = typeof value === 'string' ? Number(value.trim()) : value;
  if (typeof number !== 'number' || !Number.isFinite(number) || number < 0) return undefined;
  if (number <= 1) return number;
  return number <= 100 ? number / 100 : undefined;
}
