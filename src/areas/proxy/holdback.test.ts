// The hold-back window: whatever the chunking, a match no longer than the window never has its
// first character released, masks are never cut in two, and the released text is the whole text.
import { describe, expect, it } from 'vitest';
import type { Decision, Replacement } from '../../engine/pipeline/decide.js';
import { TokenVault, type CheckedPart } from './checks.js';
import { OutputHoldback, type OutputChecker } from './holdback.js';

const SECRET = /SECRET-[0-9]{9}/;
const EMAIL = /bob@example\.org/g;

function decision(verdict: Decision['verdict']): Decision {
  return { verdict, reason: verdict === 'block' ? 'secret' : 'ok' } as Decision;
}

/** Blocks a whole secret, masks an e-mail address, and counts the characters it was given. */
function fakeChecker(): OutputChecker & { read: number } {
  const checker = {
    read: 0,
    tokens: new TokenVault(),
    async output(content: string): Promise<{ part: CheckedPart; replacements: readonly Replacement[] }> {
      checker.read += content.length;
      if (SECRET.test(content)) return { part: { surface: 'output', outcome: 'blocked', decision: decision('block') }, replacements: [] };
      const replacements = [...content.matchAll(EMAIL)].map((m) => ({ start: m.index, end: m.index + m[0].length, replacement: '[PII.EMAIL]' }));
      return { part: { surface: 'output', outcome: replacements.length > 0 ? 'transformed' : 'passed', decision: decision('allow') }, replacements };
    },
  };
  return checker;
}

async function run(text: string, size: number, holdback: number) {
  const checker = fakeChecker();
  const holder = new OutputHoldback(checker, holdback);
  let released = '';
  for (let at = 0; at < text.length; at += size) {
    const step = await holder.push(text.slice(at, at + size));
    if (step.blocked !== null) return { released, blocked: true, read: checker.read };
    released += step.text;
  }
  const last = await holder.finish();
  if (last.blocked !== null) return { released, blocked: true, read: checker.read };
  return { released: released + last.text, blocked: false, read: checker.read };
}

describe('OutputHoldback', () => {
  const filler = 'The quick brown fox jumps over the lazy dog. ';
  const secretText = `${filler.repeat(3)}key SECRET-123456789 then ${filler.repeat(3)}`;
  const secretAt = secretText.indexOf('SECRET-');

  it.each([1, 2, 3, 5, 7, 11, 16, 17, 31, 64, 200])('never releases the first character of a secret split in chunks of %i', async (size) => {
    const result = await run(secretText, size, 16);
    expect(result.blocked).toBe(true);
    expect(result.released.length).toBeLessThanOrEqual(secretAt);
    expect(secretText.startsWith(result.released)).toBe(true);
  });

  it.each([1, 4, 9, 16, 50])('releases all of a clean text unchanged (chunks of %i), checking it in linear work', async (size) => {
    const text = filler.repeat(40);
    const result = await run(text, size, 32);
    expect(result).toMatchObject({ released: text, blocked: false });
    // Each check reads the new text plus at most two windows of context.
    expect(result.read).toBeLessThanOrEqual(text.length * 4);
  });

  it.each([1, 3, 8, 15])('masks an address split across chunks of %i without cutting the mask', async (size) => {
    const text = `${filler}Write to bob@example.org soon. ${filler.repeat(2)}`;
    const result = await run(text, size, 20);
    expect(result.released).toBe(text.replace('bob@example.org', '[PII.EMAIL]'));
  });
});
