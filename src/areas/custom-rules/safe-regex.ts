// Operator-supplied regular expressions, compiled only with a linear-time engine (re2js, a port of
// RE2): matching costs time proportional to the text whatever the pattern. Patterns RE2 cannot run
// in linear time (backreferences, lookaround) are refused with the reason, never handed to the
// backtracking RegExp engine. Pure: no I/O.
import { RE2JS } from 're2js';

/** Longer patterns are refused: they are mistakes or attempts to make the compiled program huge. */
export const MAX_PATTERN_LENGTH = 1000;
/**
 * Largest compiled program accepted. Matching is linear in the text, but locating a match costs the
 * text length times the program size: a counted repeat such as `[a-z]{1000}` compiles to a thousand
 * instructions and took seconds over 50 KB. Ordinary patterns (account numbers, IBANs, e-mail
 * addresses) stay under 60.
 */
export const MAX_PROGRAM_SIZE = 200;

export class UnsafePattern extends Error {
  override name = 'UnsafePattern';
  constructor(
    readonly pattern: string,
    readonly reason: string,
  ) {
    super(`pattern ${JSON.stringify(pattern.length > 80 ? `${pattern.slice(0, 80)}…` : pattern)} is refused: ${reason}`);
  }
}

/**
 * Why RE2 would refuse the pattern, in words an operator can act on; null when nothing is found
 * here (re2js still has the last word). One pass, skipping escaped characters.
 */
function unsupportedConstruct(pattern: string): string | null {
  for (let i = 0; i < pattern.length; i += 1) {
    const char = pattern[i];
    if (char === '\\') {
      const next = pattern[i + 1] ?? '';
      if (/[1-9]/.test(next) || next === 'k') return 'backreferences need a backtracking engine and are not supported';
      i += 1;
      continue;
    }
    if (char === '(' && pattern[i + 1] === '?') {
      const rest = pattern.slice(i + 2, i + 5);
      if (rest.startsWith('=') || rest.startsWith('!')) return 'lookahead ((?= or (?!) is not supported by the linear-time engine';
      if (rest.startsWith('<=') || rest.startsWith('<!')) return 'lookbehind ((?<= or (?<!) is not supported by the linear-time engine';
      if (rest.startsWith('P=')) return 'backreferences need a backtracking engine and are not supported';
      if (rest.startsWith('>')) return 'atomic groups are not supported by the linear-time engine';
    }
  }
  return null;
}

/**
 * Compiles an operator's pattern with re2js, or throws UnsafePattern naming the reason. A pattern
 * that matches the empty text is refused too: it would match at every position of every text.
 * @example compileSafeRegex('acct[_-]?\\d{6,}', { caseSensitive: false }).test('ACCT-123456') // true
 */
export function compileSafeRegex(pattern: string, options: { caseSensitive: boolean }): RE2JS {
  if (pattern.length === 0) throw new UnsafePattern(pattern, 'the pattern is empty');
  if (pattern.length > MAX_PATTERN_LENGTH) throw new UnsafePattern(pattern, `the pattern is longer than ${MAX_PATTERN_LENGTH} characters`);
  const construct = unsupportedConstruct(pattern);
  if (construct !== null) throw new UnsafePattern(pattern, construct);
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern, options.caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
  } catch (error) {
    const message = error instanceof Error ? error.message.replace(/^error parsing regexp: /, '') : 'it does not compile';
    throw new UnsafePattern(pattern, `the linear-time engine refuses it: ${message}`);
  }
  if (compiled.programSize() > MAX_PROGRAM_SIZE) {
    throw new UnsafePattern(pattern, `it is too complex: ${compiled.programSize()} instructions, at most ${MAX_PROGRAM_SIZE} (large counted repeats such as {500} multiply the size)`);
  }
  if (compiled.matches('')) throw new UnsafePattern(pattern, 'it matches the empty text, so it would match everywhere');
  return compiled;
}
