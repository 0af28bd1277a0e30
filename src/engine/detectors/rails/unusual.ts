// Hot path: no I/O here. rails.catalog.prompt_injection (INJECTION.UNUSUAL): text that is unusual
// for a prompt in ways attacks rely on, read from character counts, not from what it says (what
// it says is injection.heuristic's part):
// - chat-template tokens of model families (`<|im_start|>`, `[INST]`, `<<SYS>>`, `<|eot_id|>`…):
//   0.85; they have no business in user or retrieved text;
// - Unicode tag characters (U+E0000-E007F, "ASCII smuggling"): 4 or more, 0.9;
// - invisible characters that carry no meaning in prose (zero-width space, word joiner, invisible
//   operators, a byte-order mark past the start): 8 or more, 0.7. Zero-width joiner and non-joiner
//   are left out: emoji sequences and Persian or Indic text need them;
// - bidirectional overrides and isolates (U+202A-202E, U+2066-2069): 4 or more, 0.6;
// - control characters other than tab, new line, carriage return and escape (terminal colours):
//   8 or more, 0.7;
// - one word repeated 40 times in a row (numbers and one-letter words aside), as in "repeat the
//   word forever" divergence attacks and context flooding: 0.6.
// One pass over the code units plus one automaton pass; every signal reports one detection
// spanning its first to its last occurrence.
import { LiteralAutomaton } from '../literals/automaton.js';
import type { Detection } from '../types.js';
import type { CatalogValidator } from './catalog.js';

const TEMPLATE_TOKENS = [
  '<|im_start|>',
  '<|im_end|>',
  '<|im_sep|>',
  '<|system|>',
  '<|user|>',
  '<|assistant|>',
  '<|endoftext|>',
  '<|begin_of_text|>',
  '<|start_header_id|>',
  '<|end_header_id|>',
  '<|eot_id|>',
  '<|end|>',
  '[INST]',
  '[/INST]',
  '<<SYS>>',
  '<</SYS>>',
  '<start_of_turn>',
  '<end_of_turn>',
];

let templates: LiteralAutomaton | null = null;
const templateAutomaton = (): LiteralAutomaton =>
  (templates ??= new LiteralAutomaton(
    TEMPLATE_TOKENS.map((literal, owner) => ({ literal, owner })),
    { foldCase: true },
  ));

interface Span {
  count: number;
  start: number;
  end: number;
}
const span = (): Span => ({ count: 0, start: -1, end: -1 });
function note(s: Span, start: number, end: number): void {
  if (s.count === 0) s.start = start;
  s.count += 1;
  s.end = end;
}

const WORD = /[\p{L}\p{N}]+/gu;
const REPEAT_RUN = 40;

function repetition(text: string): Span | null {
  let previous = '';
  let runStart = 0;
  let run = 0;
  WORD.lastIndex = 0;
  for (let match = WORD.exec(text); match !== null; match = WORD.exec(text)) {
    const word = match[0].toLowerCase();
    if (word === previous) run += 1;
    else {
      previous = word;
      run = 1;
      runStart = match.index;
    }
    if (run >= REPEAT_RUN && word.length > 1 && !/^\d+$/.test(word)) {
      // Extend to the end of the run and report it once.
      let end = match.index + match[0].length;
      for (let next = WORD.exec(text); next !== null && next[0].toLowerCase() === word; next = WORD.exec(text)) {
        end = next.index + next[0].length;
        run += 1;
      }
      return { count: run, start: runStart, end };
    }
  }
  return null;
}

export function checkUnusual(text: string): Detection[] {
  const tags = span();
  const invisible = span();
  const bidi = span();
  const control = span();
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x20) {
      if (code !== 0x09 && code !== 0x0a && code !== 0x0d && code !== 0x1b) note(control, i, i + 1);
    } else if (code < 0x7f) continue;
    else if (code <= 0x9f) note(control, i, i + 1);
    else if (code === 0x200b || (code >= 0x2060 && code <= 0x2064) || code === 0x180e || (code === 0xfeff && i > 0)) note(invisible, i, i + 1);
    else if ((code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069)) note(bidi, i, i + 1);
    else if (code === 0xdb40) {
      // U+E0000-E007F is the surrogate pair DB40 DC00-DC7F.
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdc7f) note(tags, i, i + 2);
    }
  }
  const found: Detection[] = [];
  const push = (s: Span, min: number, score: number, what: string): void => {
    if (s.count >= min) {
      found.push({ entity: 'INJECTION.UNUSUAL', score, start: s.start, end: s.end, pattern: what, explanation: `unusual for a prompt: ${s.count} ${what}` });
    }
  };
  const starts = templateAutomaton().starts(text);
  const template = span();
  let first = '';
  starts.forEach((at, owner) => {
    if (at === undefined) return;
    const literal = TEMPLATE_TOKENS[owner]!;
    for (const start of at) {
      if (template.count === 0) first = literal;
      template.count += 1;
      template.start = template.start < 0 ? start : Math.min(template.start, start);
      template.end = Math.max(template.end, start + literal.length);
    }
  });
  push(template, 1, 0.85, `chat-template token(s), e.g. ${first}`);
  push(tags, 4, 0.9, 'Unicode tag characters (hidden ASCII)');
  push(invisible, 8, 0.7, 'invisible characters (zero-width spaces, word joiners, invisible operators)');
  push(bidi, 4, 0.6, 'bidirectional override or isolate characters');
  push(control, 8, 0.7, 'control characters');
  const repeated = repetition(text);
  if (repeated !== null) push(repeated, REPEAT_RUN, 0.6, 'repetitions of one word in a row');
  return found;
}

export const promptInjection: CatalogValidator = {
  name: 'prompt_injection',
  entity: 'INJECTION.UNUSUAL',
  surfaces: ['input', 'output', 'retrieved', 'tool_result', 'agent_message', 'memory_write', 'tool_args', 'reasoning'],
  costRank: 5,
  available: () => ({ available: true }),
  warmUp: () => {
    templateAutomaton();
  },
  check: (text) => checkUnusual(text),
};
