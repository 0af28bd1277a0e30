// Required literals of a regular expression: a set of strings such that every match of the
// expression contains at least one of them. A detector checks for those strings in one
// multi-string pass (automaton.ts) and runs the expression only when one is present, which is
// what keeps forty phrase families affordable on every request. The analysis works on the parsed
// expression (regexpp), so it follows the expression exactly instead of trusting hand-kept lists.
import { parseRegExpLiteral, type AST } from '@eslint-community/regexpp';

/** Product sets larger than this are not worth tracking exactly. */
const MAX_SET = 64;
/** Exact strings longer than this are cut back to a required prefix. */
const MAX_LITERAL = 24;
/** Literals shorter than this occur in nearly every text: no use as a filter. */
const MIN_USEFUL = 2;
/** ...except one symbol such as `=`, `+` or `|`, rare in prose. */
const RARE_SYMBOL = /^[^\p{L}\p{N}\s.,'"’-]$/u;
const useful = (literal: string): boolean => literal.length >= MIN_USEFUL || RARE_SYMBOL.test(literal);
/** A small character class (`[ae]`, `s?`) still yields exact strings; a wider one is "anything". */
const MAX_CLASS = 6;

/**
 * What is known about the strings a node matches: `exact` lists all of them (when few and short),
 * `required` is a set of which every match contains one. Either may be absent.
 */
interface Info {
  exact?: string[];
  required?: string[];
}

const EMPTY: Info = { exact: [''] };
const UNKNOWN: Info = {};
const NEVER: Info = { exact: [] };

/** Higher is a better filter: the shortest member is what the scan can rely on. */
function quality(set: readonly string[] | undefined): number {
  if (set === undefined || set.length === 0) return -1;
  let shortest = Infinity;
  for (const s of set) shortest = Math.min(shortest, s.length);
  return shortest - set.length / 1000;
}

function bestOf(candidates: Array<readonly string[] | undefined>): string[] | undefined {
  let best: readonly string[] | undefined;
  for (const candidate of candidates) if (quality(candidate) > quality(best)) best = candidate;
  // Quality below 1 means an empty string is in the set: no filter at all.
  return best === undefined || quality(best) <= 0 || best.some((s) => s.length === 0) ? undefined : [...best];
}

/** A set every match contains one of: exact strings, else the required set. */
function requiredOf(info: Info): string[] | undefined {
  return bestOf([info.exact, info.required]);
}

function union(sets: Array<readonly string[] | undefined>): string[] | undefined {
  const out = new Set<string>();
  for (const set of sets) {
    if (set === undefined) return undefined;
    for (const s of set) out.add(s);
  }
  return [...out];
}

function product(left: readonly string[], right: readonly string[]): string[] | undefined {
  if (left.length * right.length > MAX_SET) return undefined;
  const out = new Set<string>();
  for (const a of left) for (const b of right) out.add(a + b);
  return [...out];
}

/**
 * A literal character, or undefined when it cannot be one: with `ascii` (a case-insensitive
 * expression) only ASCII characters count, since only their case variants are folded.
 */
function literalChar(code: number, ascii: boolean): string | undefined {
  return ascii && code > 0x7f ? undefined : String.fromCodePoint(code);
}

function characterInfo(node: AST.Character, ascii: boolean): Info {
  const char = literalChar(node.value, ascii);
  return char === undefined ? UNKNOWN : { exact: [char] };
}

function classInfo(node: AST.CharacterClass, ascii: boolean): Info {
  if (node.negate) return UNKNOWN;
  const chars: string[] = [];
  for (const element of node.elements) {
    if (element.type === 'Character') {
      const char = literalChar(element.value, ascii);
      if (char === undefined) return UNKNOWN;
      chars.push(char);
    } else if (element.type === 'CharacterClassRange' && element.max.value - element.min.value < MAX_CLASS) {
      for (let c = element.min.value; c <= element.max.value; c += 1) {
        const char = literalChar(c, ascii);
        if (char === undefined) return UNKNOWN;
        chars.push(char);
      }
    } else return UNKNOWN;
    if (chars.length > MAX_CLASS) return UNKNOWN;
  }
  return chars.length === 0 ? UNKNOWN : { exact: [...new Set(chars)] };
}

function alternativesInfo(alternatives: readonly AST.Alternative[], ascii: boolean): Info {
  // An alternative that can never match (`(?!)`, a placeholder for an empty list) adds nothing.
  const infos = alternatives.map((alternative) => sequenceInfo(alternative, ascii)).filter((info) => info.exact === undefined || info.exact.length > 0);
  if (infos.length === 0) return NEVER;
  const exact = union(infos.map((i) => i.exact));
  if (exact !== undefined && exact.length <= MAX_SET) return { exact };
  return { required: union(infos.map(requiredOf)) };
}

function quantifierInfo(node: AST.Quantifier, ascii: boolean): Info {
  const inner = elementInfo(node.element, ascii);
  if (node.min === 0) {
    // `x?` is "x or nothing"; any wider optional repeat says nothing.
    return node.max === 1 && inner.exact !== undefined ? { exact: [...new Set(['', ...inner.exact])] } : UNKNOWN;
  }
  if (node.min === 1 && node.max === 1) return inner;
  // At least one repeat: what one repeat requires, every match requires.
  return { required: requiredOf(inner) };
}

function elementInfo(node: AST.Element, ascii: boolean): Info {
  switch (node.type) {
    case 'Character':
      return characterInfo(node, ascii);
    case 'CharacterClass':
      return classInfo(node, ascii);
    case 'Group':
    case 'CapturingGroup':
      return alternativesInfo(node.alternatives, ascii);
    case 'Quantifier':
      return quantifierInfo(node, ascii);
    case 'Assertion':
      if (node.kind === 'lookahead' && node.negate && node.alternatives.every((a) => a.elements.length === 0)) return NEVER;
      // Boundaries and look-arounds consume nothing.
      return EMPTY;
    default:
      // Any-character, escapes like \d \s \p{..}, back-references, set operations.
      return UNKNOWN;
  }
}

/**
 * A sequence: consecutive exact parts multiply into longer exact strings; where the chain breaks
 * (an unknown part, a set grown too large, a string grown too long) the chain so far becomes a
 * candidate required set. The best candidate wins.
 */
function sequenceInfo(node: AST.Alternative, ascii: boolean): Info {
  const candidates: Array<string[] | undefined> = [];
  let run: string[] | undefined = [''];
  let allExact = true;
  const flush = (): void => {
    if (run !== undefined) candidates.push(run.map((s) => s.slice(0, MAX_LITERAL)));
    run = undefined;
  };
  for (const element of node.elements) {
    const info = elementInfo(element, ascii);
    candidates.push(info.required);
    if (info.exact === undefined) {
      allExact = false;
      flush();
      run = [''];
      continue;
    }
    const grown: string[] | undefined = run === undefined ? undefined : product(run, info.exact);
    if (grown === undefined || grown.some((s) => s.length > MAX_LITERAL)) {
      allExact = false;
      flush();
      run = info.exact;
      candidates.push(info.exact);
    } else run = grown;
  }
  if (allExact && run !== undefined) return { exact: run };
  flush();
  return { required: bestOf(candidates) };
}

/**
 * Strings of which every match of `regex` contains at least one, or `undefined` when no useful set
 * exists (the expression can match text without any fixed string of two or more characters).
 * For a case-insensitive expression the strings are lower case and must be looked for with ASCII
 * case folding (LiteralAutomaton's `foldCase`), and only ASCII characters count as literal.
 */
export function requiredLiterals(regex: RegExp): string[] | undefined {
  const ast = parseRegExpLiteral(regex);
  const caseInsensitive = regex.flags.includes('i');
  let set = requiredOf(alternativesInfo(ast.pattern.alternatives, caseInsensitive));
  if (set === undefined || !set.every(useful)) return undefined;
  if (caseInsensitive) set = [...new Set(set.map((s) => s.toLowerCase()))];
  // A member that contains a shorter member adds nothing to the filter.
  return set.filter((s) => !set.some((other) => other !== s && other.length < s.length && s.includes(other)));
}

function isDigitCode(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** Whether every character the class element accepts is a digit. */
function digitsOnly(element: AST.CharacterClassElement): boolean {
  if (element.type === 'Character') return isDigitCode(element.value);
  if (element.type === 'CharacterClassRange') return isDigitCode(element.min.value) && isDigitCode(element.max.value);
  return element.type === 'CharacterSet' && element.kind === 'digit' && !element.negate;
}

function minimumDigitsOf(node: AST.Element | AST.Alternative): number {
  switch (node.type) {
    case 'Alternative':
      return node.elements.reduce((sum, element) => sum + minimumDigitsOf(element), 0);
    case 'Group':
    case 'CapturingGroup':
      return Math.min(...node.alternatives.map(minimumDigitsOf));
    case 'Character':
      return isDigitCode(node.value) ? 1 : 0;
    case 'CharacterSet':
      return node.kind === 'digit' && !node.negate ? 1 : 0;
    case 'CharacterClass':
      return !node.negate && node.elements.length > 0 && node.elements.every(digitsOnly) ? 1 : 0;
    case 'Quantifier':
      return node.min * minimumDigitsOf(node.element);
    default:
      return 0; // assertions consume nothing; anything else may match without digits
  }
}

/** The fewest ASCII digits any match of `regex` contains: a text with fewer cannot match. */
export function minimumDigits(regex: RegExp): number {
  const { pattern } = parseRegExpLiteral(regex);
  return Math.min(...pattern.alternatives.map(minimumDigitsOf));
}

/**
 * What a sequence can begin with: `exact` when the whole sequence is a small set of fixed strings,
 * else the fixed strings every match starts with (`undefined` when it can start with anything).
 */
function sequencePrefixes(elements: readonly AST.Element[]): { prefixes?: string[]; exact: boolean } {
  let run: string[] = [''];
  for (const element of elements) {
    const info = elementInfo(element, false);
    if (info.exact !== undefined) {
      const grown = product(run, info.exact);
      if (grown !== undefined && !grown.some((s) => s.length > MAX_LITERAL)) {
        run = grown;
        continue;
      }
      return { prefixes: run, exact: false };
    }
    // The first part that is not a small fixed set: a group may still say how it begins.
    if (run.length === 1 && run[0] === '' && (element.type === 'Group' || element.type === 'CapturingGroup')) {
      const inner = element.alternatives.map((alternative) => sequencePrefixes(alternative.elements).prefixes);
      return { prefixes: union(inner), exact: false };
    }
    return { prefixes: run, exact: false };
  }
  return { prefixes: run, exact: true };
}

/**
 * Strings of which every match of `regex` starts with one (after zero-width assertions such as
 * `\b` and look-behinds), or `undefined` when a match can start otherwise. A scanner can then try
 * the regex only where one of them occurs.
 */
export function prefixLiterals(regex: RegExp): string[] | undefined {
  if (regex.flags.includes('i')) return undefined;
  const { pattern } = parseRegExpLiteral(regex);
  const prefixes = union(pattern.alternatives.map((alternative) => sequencePrefixes(alternative.elements).prefixes));
  if (prefixes === undefined || prefixes.some((s) => s.length < MIN_USEFUL)) return undefined;
  return [...new Set(prefixes)];
}
