// System prompts written into code: string literals assigned to prompt-like names
// (`SYSTEM_PROMPT = """…"""`, `instructions: '…'`, `system: \`…\``, `"system_prompt": "…"`), the
// content of a `{"role": "system", "content": "…"}` message, `SystemMessage(content="…")`,
// `("system", "…")` pairs, and YAML block scalars under a prompt-like key. Literals may span lines
// (triple quotes, back-ticks, Java text blocks) and be concatenated (`+`, Python's adjacent
// literals in parentheses). A prompt built at run time (f-string values, templates filled later,
// files read from disk) is seen only as its literal text.
//
// Linear: each literal is read once, at most MAX_LITERAL_SOURCE characters, and the scan resumes
// after what it read, so nothing inside a literal is looked at twice.

import type { SourceText } from './text.js';

export interface PromptCandidate {
  /** 1-based line of the name (or key) the prompt is given to. */
  line: number;
  text: string;
  shape: 'name' | 'message' | 'pair' | 'yaml';
}

/** Characters of source one literal expression may span. */
const MAX_LITERAL_SOURCE = 40_000;
/** Characters of prompt text kept (and handed to the check). */
export const MAX_PROMPT_CHARS = 20_000;
const MIN_PROMPT_CHARS = 16;
const MAX_PIECES = 64;
const MAX_GAP = 200;
const MAX_ANNOTATION = 40;
const CONTENT_LOOKAHEAD = 3;

const IDENTIFIER = /[A-Za-z_$@][\w$]*/g;
const PAIR = /\(\s*(["'])system\1\s*,\s*/g;
const ROLE_SYSTEM = /(?<![\w$])(["']?)role\1\s*[:=]\s*(["'])system\2/;
const CONTENT_KEY = /(?<![\w$])(["']?)content\1\s*[:=]\s*/;
const YAML_KEY = /^(\s*)(?:-\s+)?([A-Za-z_][\w-]{0,63})\s*:\s*(.*)$/;
const WRAPPERS = ['textwrap.dedent(', 'dedent(', 'inspect.cleandoc(', 'cleandoc(', 'String.raw'];
const CALL_FORMS = ['.from_template(', '.fromTemplate(', '.from(', '('];
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r' };

function isPromptName(identifier: string): boolean {
  const lower = identifier.toLowerCase();
  if (!lower.includes('system') && !lower.includes('instruction') && !lower.includes('preamble')) return false;
  let normalised = '';
  for (const ch of identifier.slice(0, 64)) if (ch !== '_' && ch !== '$' && ch !== '-' && ch !== '@') normalised += ch.toLowerCase();
  return (
    normalised.includes('systemprompt') ||
    normalised.includes('systemmessage') ||
    normalised.includes('sysprompt') ||
    normalised.endsWith('instructions') ||
    normalised.endsWith('instruction') ||
    normalised === 'system' ||
    normalised === 'preamble'
  );
}

function isSpace(ch: string | undefined): boolean {
  return ch === ' ' || ch === '\t';
}

function skipSpaces(line: string, pos: number): number {
  while (isSpace(line[pos])) pos += 1;
  return pos;
}

/**
 * Where a literal would start after a prompt-like name at `end` of `line` (`= `, `: `, `: str = `,
 * `:= `, and for `SystemMessage`-like names a call), or -1.
 */
function valueStart(line: string, start: number, end: number, identifier: string): number {
  let pos = end;
  const before = line[start - 1];
  if ((before === '"' || before === "'") && line[pos] === before) pos += 1;
  pos = skipSpaces(line, pos);
  const ch = line[pos];
  if (ch === '=') {
    if (line[pos + 1] === '=' || line[pos + 1] === '>') return -1;
    pos += 1;
  } else if (ch === ':') {
    // `name: Type = "…"` (Python, TypeScript) and Go's `:=`; otherwise `key: "…"`.
    let q = pos + 1;
    while (q < pos + 1 + MAX_ANNOTATION && q < line.length && /[\w.[\]|, ]/.test(line[q] ?? '')) q += 1;
    pos = line[q] === '=' && line[q + 1] !== '=' && line[q + 1] !== '>' ? q + 1 : pos + 1;
  } else if (identifier.replace(/^@/, '').startsWith('SystemMessage')) {
    const form = CALL_FORMS.find((call) => line.startsWith(call, pos));
    if (form === undefined) return -1;
    pos = skipSpaces(line, pos + form.length);
    if (line.startsWith('content', pos)) {
      const eq = skipSpaces(line, pos + 7);
      if (line[eq] === '=') pos = eq + 1;
    }
  } else return -1;
  pos = skipSpaces(line, pos);
  const wrapper = WRAPPERS.find((w) => line.startsWith(w, pos));
  if (wrapper !== undefined) pos = skipSpaces(line, pos + wrapper.length);
  return pos;
}

interface Literal {
  value: string;
  end: number;
}

/** Reads one string literal at `pos`: returns null when none starts there; `end` is where reading stopped. */
function readLiteral(text: string, pos: number): Literal | null {
  let p = pos;
  let raw = false;
  for (let k = 0; k < 2 && /[rRbBuUfF]/.test(text[p] ?? ''); k += 1) {
    if (text[p] === 'r' || text[p] === 'R') raw = true;
    p += 1;
  }
  const quote = text[p];
  if (quote !== '"' && quote !== "'" && quote !== '`') return null;
  if (p !== pos && quote === '`') return null;
  const triple = quote !== '`' && text[p + 1] === quote && text[p + 2] === quote;
  const close = triple ? quote.repeat(3) : quote;
  const multiline = triple || quote === '`';
  const limit = Math.min(text.length, p + MAX_LITERAL_SOURCE);
  let i = p + close.length;
  let value = '';
  let from = i;
  while (i < limit) {
    const ch = text[i];
    if (ch === '\\' && !raw) {
      value += text.slice(from, i);
      const next = text[i + 1] ?? '';
      value += ESCAPES[next] ?? (next === '\n' ? '' : next);
      i += 2;
      from = i;
      continue;
    }
    if (ch === '\n' && !multiline) return { value: '', end: i };
    if (ch === quote && text.startsWith(close, i)) {
      value += text.slice(from, i);
      return { value, end: i + close.length };
    }
    i += 1;
  }
  // Unclosed within the bound: what was read is the prompt's start; the scan resumes after it.
  return { value: value + text.slice(from, limit), end: limit };
}

function literalStarts(text: string, pos: number): boolean {
  const ch = text[pos];
  if (ch === '"' || ch === "'" || ch === '`') return true;
  const next = text[pos + 1];
  return /[rRbBuUfF]/.test(ch ?? '') && (next === '"' || next === "'" || (/[rRbBuUfF]/.test(next ?? '') && /["']/.test(text[pos + 2] ?? '')));
}

/** Skips blanks, line breaks and `\` continuations, at most MAX_GAP characters; reports whether a line break was crossed. */
function skipGap(text: string, pos: number): { pos: number; newline: boolean } {
  const limit = Math.min(text.length, pos + MAX_GAP);
  let newline = false;
  while (pos < limit) {
    const ch = text[pos];
    if (ch === '\n') newline = true;
    else if (ch === '\\' && (text[pos + 1] === '\n' || text[pos + 1] === '\r')) pos += 1;
    else if (ch !== ' ' && ch !== '\t' && ch !== '\r') break;
    pos += 1;
  }
  return { pos, newline };
}

/** A literal, or literals joined by `+` or written side by side (inside parentheses), starting at `pos`. */
function readExpression(text: string, pos: number): Literal | null {
  let p = pos;
  let inParens = false;
  if (text[p] === '(') {
    inParens = true;
    p = skipGap(text, p + 1).pos;
  }
  let value = '';
  let end = pos;
  for (let pieces = 0; pieces < MAX_PIECES && value.length < MAX_PROMPT_CHARS; pieces += 1) {
    const literal = readLiteral(text, p);
    if (literal === null) break;
    value += literal.value;
    end = literal.end;
    let gap = skipGap(text, end);
    if (text[gap.pos] === '+') gap = { pos: skipGap(text, gap.pos + 1).pos, newline: false };
    else if (gap.newline && !inParens) break;
    if (!literalStarts(text, gap.pos)) break;
    p = gap.pos;
  }
  return end === pos ? null : { value: value.slice(0, MAX_PROMPT_CHARS), end };
}

function looksLikePrompt(value: string): boolean {
  const trimmed = value.trim();
  return trimmed.length >= MIN_PROMPT_CHARS && trimmed.includes(' ');
}

/** System prompts of a code or JSON file, at most `limit`. */
export function scanPrompts(source: SourceText, limit: number): PromptCandidate[] {
  const out: PromptCandidate[] = [];
  const text = source.text;
  let resumeAt = 0;
  const take = (line: number, offset: number, shape: PromptCandidate['shape']): void => {
    if (offset < resumeAt || out.length >= limit) return;
    const read = readExpression(text, offset);
    if (read === null) return;
    resumeAt = Math.max(resumeAt, read.end);
    if (looksLikePrompt(read.value)) out.push({ line, text: read.value, shape });
  };
  for (let i = 0; i < source.lines.length && out.length < limit; i += 1) {
    const line = source.lines[i] ?? '';
    const lineStart = source.starts[i] ?? 0;
    if (lineStart + line.length <= resumeAt) continue;
    const lower = line.toLowerCase();
    if (!lower.includes('system') && !lower.includes('instruction') && !lower.includes('preamble')) continue;
    IDENTIFIER.lastIndex = 0;
    for (let match = IDENTIFIER.exec(line); match !== null; match = IDENTIFIER.exec(line)) {
      if (!isPromptName(match[0])) continue;
      const at = valueStart(line, match.index, match.index + match[0].length, match[0]);
      if (at !== -1) take(i + 1, lineStart + at, 'name');
    }
    PAIR.lastIndex = 0;
    for (let match = PAIR.exec(line); match !== null; match = PAIR.exec(line)) take(i + 1, lineStart + match.index + match[0].length, 'pair');
    const role = ROLE_SYSTEM.exec(line);
    if (role !== null) {
      for (let j = i; j <= Math.min(source.lines.length - 1, i + CONTENT_LOOKAHEAD); j += 1) {
        const from = j === i ? role.index + role[0].length : 0;
        const content = CONTENT_KEY.exec((source.lines[j] ?? '').slice(from));
        if (content === null) continue;
        take(j + 1, (source.starts[j] ?? 0) + from + content.index + content[0].length, 'message');
        break;
      }
    }
  }
  return out;
}

function indentOf(line: string): number {
  let n = 0;
  while (isSpace(line[n])) n += 1;
  return n;
}

/** A YAML value at `index`: a block scalar (`|`, `>`) on the following lines, a quoted string, or a plain one. */
function yamlValue(source: SourceText, index: number, indent: number, rest: string): { text: string; last: number } {
  const head = rest.trim();
  if (head.startsWith('|') || head.startsWith('>')) {
    const parts: string[] = [];
    let blockIndent = -1;
    let size = 0;
    let j = index + 1;
    for (; j < source.lines.length && size < MAX_PROMPT_CHARS; j += 1) {
      const line = source.lines[j] ?? '';
      if (line.trim() === '') {
        parts.push('');
        continue;
      }
      const lineIndent = indentOf(line);
      if (lineIndent <= indent) break;
      if (blockIndent === -1) blockIndent = lineIndent;
      parts.push(line.slice(Math.min(blockIndent, lineIndent)));
      size += line.length;
    }
    return { text: parts.join(head.startsWith('>') ? ' ' : '\n').slice(0, MAX_PROMPT_CHARS), last: j - 1 };
  }
  if (head.startsWith('"') || head.startsWith("'")) {
    const offset = (source.starts[index] ?? 0) + (source.lines[index] ?? '').indexOf(head);
    const read = readExpression(source.text, offset);
    return { text: read?.value ?? '', last: read === null ? index : source.lineAt(read.end) - 1 };
  }
  return { text: head, last: index };
}

/** System prompts of a YAML file: prompt-like keys, and `content` after `role: system`. */
export function scanYamlPrompts(source: SourceText, limit: number): PromptCandidate[] {
  const out: PromptCandidate[] = [];
  let systemRoleUntil = -1;
  for (let i = 0; i < source.lines.length && out.length < limit; i += 1) {
    const key = YAML_KEY.exec(source.lines[i] ?? '');
    if (key === null) continue;
    const name = key[2] ?? '';
    const rest = key[3] ?? '';
    const indent = (key[1] ?? '').length;
    if (name === 'role' && rest.trim().replace(/["']/g, '') === 'system') {
      systemRoleUntil = i + CONTENT_LOOKAHEAD;
      continue;
    }
    const isContent = name === 'content' && i <= systemRoleUntil;
    if (!isContent && !isPromptName(name)) continue;
    const value = yamlValue(source, i, indent, rest);
    if (looksLikePrompt(value.text)) out.push({ line: i + 1, text: value.text, shape: isContent ? 'message' : 'yaml' });
    i = Math.max(i, value.last);
  }
  return out;
}
