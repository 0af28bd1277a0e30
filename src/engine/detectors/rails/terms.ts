// Hot path: no I/O here. rails.catalog.banned_terms: the words and phrases of the setting
// `rails_banned_terms`, found in one pass by the project's literal automaton (Aho-Corasick, linear
// in the text), as whole words: "ass" is not found in "class". ASCII letters match in any case;
// other letters match as written, upper-cased or lower-cased (a term whose case forms differ in
// length matches as written only). Unavailable while the list is empty.
import { LiteralAutomaton, type LiteralEntry } from '../literals/automaton.js';
import type { Detection } from '../types.js';
import { atWordEdges, MAX_DETECTIONS, type CatalogValidator, type RailsSettings } from './catalog.js';

/** Longer terms are cut: the automaton keeps literal lengths below 65536, and a term is a phrase. */
export const MAX_TERM_CHARS = 200;

interface CompiledTerms {
  terms: string[];
  automaton: LiteralAutomaton;
}

const compiled = new WeakMap<readonly string[], CompiledTerms | null>();

/** The terms, trimmed, without empties and case-insensitive duplicates, compiled once per list. */
export function compileTerms(list: readonly string[]): CompiledTerms | null {
  const cached = compiled.get(list);
  if (cached !== undefined) return cached;
  const terms: string[] = [];
  const seen = new Set<string>();
  for (const raw of list) {
    const term = raw.trim().replace(/\s+/g, ' ').slice(0, MAX_TERM_CHARS);
    const key = term.toLowerCase();
    if (term === '' || seen.has(key)) continue;
    seen.add(key);
    terms.push(term);
  }
  const entries: LiteralEntry[] = [];
  terms.forEach((term, owner) => {
    const forms = new Set([term, term.toLowerCase(), term.toUpperCase()].filter((form) => form.length === term.length));
    for (const literal of forms) entries.push({ literal, owner });
  });
  const result = terms.length === 0 ? null : { terms, automaton: new LiteralAutomaton(entries, { foldCase: true }) };
  compiled.set(list, result);
  return result;
}

export function checkBannedTerms(text: string, settings: RailsSettings): Detection[] {
  const compiledTerms = compileTerms(settings.banned_terms);
  if (compiledTerms === null) return [];
  const found: Detection[] = [];
  const starts = compiledTerms.automaton.starts(text);
  for (let owner = 0; owner < starts.length && found.length < MAX_DETECTIONS; owner += 1) {
    const at = starts[owner];
    if (at === undefined) continue;
    const term = compiledTerms.terms[owner]!;
    // Edges first: a term inside longer words can occur at every position, whole-word hits rarely.
    const whole: number[] = [];
    for (const start of at) if (atWordEdges(text, start, start + term.length)) whole.push(start);
    const sorted = Int32Array.from(whole).sort();
    for (let k = 0; k < sorted.length; k += 1) {
      const start = sorted[k]!;
      if (k > 0 && sorted[k - 1] === start) continue; // two case forms of one term
      const end = start + term.length;
      found.push({
        entity: 'SAFETY.BANNED_TERM',
        score: 0.9,
        start,
        end,
        pattern: `banned term ${owner + 1}`,
        explanation: `a term listed in rails_banned_terms (entry ${owner + 1})`,
      });
      if (found.length >= MAX_DETECTIONS) break;
    }
  }
  return found.sort((a, b) => a.start - b.start);
}

export const bannedTerms: CatalogValidator = {
  name: 'banned_terms',
  entity: 'SAFETY.BANNED_TERM',
  surfaces: ['input', 'output', 'retrieved', 'tool_result', 'completion', 'agent_message', 'memory_write', 'tool_args', 'reasoning'],
  costRank: 5,
  available: (settings) =>
    compileTerms(settings.banned_terms) === null
      ? { available: false, reason: 'needs words or phrases in the setting rails_banned_terms; the list is empty' }
      : { available: true },
  warmUp: (settings) => {
    compileTerms(settings.banned_terms);
  },
  check: (text, _context, settings) => checkBannedTerms(text, settings),
};
