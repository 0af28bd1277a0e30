// Lexical support of an answer by retrieved chunks: sentence splitting, content words and the
// containment score. Pure and linear in the answer's length (chunks are indexed once; a sentence
// only visits the chunks that share a word with it).

export const SUPPORT_METHOD = {
  name: 'lexical_overlap' as const,
  threshold: 0.5,
  description:
    'Each sentence of the answer is reduced to content words (lower-cased, stop words dropped, simple suffix stemming). ' +
    'Against every chunk: score = 0.6 × word containment (|sentence words ∩ chunk words| / |sentence words|) + ' +
    '0.4 × bigram containment (consecutive content-word pairs; word containment alone when the sentence has no pair). ' +
    'A sentence is supported when its best chunk scores at least the threshold and that chunk contains every number ' +
    'and every named entity (a capitalised word after the first, or an acronym) of the sentence. ' +
    'Sentences without content words are not assessed (score null) and do not count in supported_ratio.',
};

const WORD_WEIGHT = 0.6;
const BIGRAM_WEIGHT = 0.4;

const STOP_WORDS = new Set(
  (
    'a an the and or but nor so yet if then else than that this these those there here is are was were be been being am ' +
    'do does did doing done have has had having of in on at by for with from to into onto upon over under about above below ' +
    'after before between through during without within along across against among around as it its it\'s they them their theirs ' +
    'he him his she her hers we us our ours you your yours i me my mine who whom whose which what when where why how ' +
    'all any both each few more most other some such no not only own same too very can will just should would could may might ' +
    'must shall also again further once out up down off per via while until because whether however therefore thus yes ok okay'
  ).split(' '),
);

/** Abbreviations whose trailing period does not end a sentence (lower-case, without the period). */
const ABBREVIATIONS = new Set(
  (
    'mr mrs ms dr prof sr jr st mt vs etc e.g i.e cf al approx dept est fig inc ltd co corp no nos vol pp ' +
    'jan feb mar apr jun jul aug sep sept oct nov dec u.s u.k a.m p.m ph.d'
  ).split(' '),
);

export interface Span {
  text: string;
  start: number;
  end: number;
}

const isSpace = (code: number): boolean => code === 32 || code === 9 || code === 10 || code === 13 || code === 12 || code === 11 || code === 0xa0;

/** Sentences with their offsets (end exclusive), trimmed; one pass over the text. */
export function splitSentences(text: string): Span[] {
  const spans: Span[] = [];
  let start = 0;
  const push = (end: number) => {
    let s = start;
    let e = end;
    while (s < e && isSpace(text.charCodeAt(s))) s++;
    while (e > s && isSpace(text.charCodeAt(e - 1))) e--;
    if (e > s) spans.push({ text: text.slice(s, e), start: s, end: e });
    start = end;
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === '\n') {
      // A line break ends a sentence: answers list facts as bullet points without full stops.
      push(i + 1);
      continue;
    }
    if (ch !== '.' && ch !== '!' && ch !== '?' && ch !== '…') continue;
    // Runs of terminators and closing quotes or brackets belong to the sentence they end.
    let j = i + 1;
    while (j < text.length && '.!?…"\'”’)]'.includes(text[j] as string)) j++;
    if (j < text.length && !isSpace(text.charCodeAt(j))) {
      i = j - 1;
      continue; // 3.5, example.com, e.g.x: not a boundary
    }
    if (ch === '.' && isAbbreviation(text, i)) {
      i = j - 1;
      continue;
    }
    push(j);
    i = j - 1;
  }
  push(text.length);
  return spans;
}

/** The word before the period at `dot` is an abbreviation or an initial (J. Smith). */
function isAbbreviation(text: string, dot: number): boolean {
  let k = dot;
  // At most a short look-back: abbreviations are short, and this keeps the split linear.
  while (k > 0 && dot - k < 8 && !isSpace(text.charCodeAt(k - 1)) && text[k - 1] !== '(') k--;
  const word = text.slice(k, dot).toLowerCase();
  if (word.length === 1 && /\p{L}/u.test(word)) return true;
  return ABBREVIATIONS.has(word);
}

const TOKEN = /\p{N}+(?:[.,]\p{N}+)*|[\p{L}\p{M}][\p{L}\p{M}\p{N}]*(?:['’][\p{L}]+)?/gu;

export interface Token {
  /** The stemmed, lower-cased form compared across texts. */
  term: string;
  /** A number or a named entity: the supporting chunk must contain it. */
  critical: boolean;
}

/** Content words of a text in order, stop words dropped. */
export function contentWords(text: string): Token[] {
  const tokens: Token[] = [];
  let position = 0;
  for (const match of text.matchAll(TOKEN)) {
    const raw = match[0];
    const first = position === 0;
    position++;
    const lower = raw.toLowerCase();
    // An acronym is kept even when it spells a stop word: IT, US.
    const acronym = raw.length >= 2 && raw === raw.toUpperCase() && raw !== lower;
    if (!acronym && STOP_WORDS.has(lower)) continue;
    const numeric = /^\p{N}/u.test(raw);
    if (numeric) {
      tokens.push({ term: raw.replaceAll(',', ''), critical: true });
      continue;
    }
    if (lower.length === 1) continue;
    const capitalised = raw[0] !== lower[0];
    tokens.push({ term: stem(lower), critical: acronym || (capitalised && !first) });
  }
  return tokens;
}

/** A light suffix stemmer: the same reduction on both sides is what matters, not linguistics. */
export function stem(word: string): string {
  let w = word.replace(/['’]s$/, '').replace(/['’]/g, '');
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  else if (w.length > 4 && w.endsWith('ly')) w = w.slice(0, -2);
  return w;
}

interface IndexedChunk {
  terms: Set<string>;
}

export interface SentenceSupport extends Span {
  supported: boolean;
  /** Index of the best chunk in the request, null when no chunk shares a word or nothing was assessed. */
  best_chunk: number | null;
  /** The best chunk's score (0..1, 3 decimals); null for a sentence without content words. */
  score: number | null;
}

export interface SupportResult {
  supported_ratio: number;
  sentences: SentenceSupport[];
}

const round = (value: number): number => Math.round(value * 1000) / 1000;

/** How far each sentence of `answer` is supported by `chunks` (texts, in request order). */
export function assessSupport(answer: string, chunks: readonly string[]): SupportResult {
  const indexed: IndexedChunk[] = [];
  const wordPostings = new Map<string, number[]>();
  const bigramPostings = new Map<string, number[]>();
  chunks.forEach((text, index) => {
    const words = contentWords(text);
    const terms = new Set<string>();
    const bigrams = new Set<string>();
    for (let i = 0; i < words.length; i++) {
      const term = (words[i] as Token).term;
      if (!terms.has(term)) {
        terms.add(term);
        post(wordPostings, term, index);
      }
      if (i > 0) {
        const bigram = `${(words[i - 1] as Token).term} ${term}`;
        if (!bigrams.has(bigram)) {
          bigrams.add(bigram);
          post(bigramPostings, bigram, index);
        }
      }
    }
    indexed.push({ terms });
  });

  const wordHits = new Int32Array(chunks.length);
  const bigramHits = new Int32Array(chunks.length);
  const sentences: SentenceSupport[] = [];
  let assessed = 0;
  let supportedCount = 0;
  for (const span of splitSentences(answer)) {
    const words = contentWords(span.text);
    if (words.length === 0) {
      sentences.push({ ...span, supported: true, best_chunk: null, score: null });
      continue;
    }
    assessed++;
    const terms = new Set(words.map((word) => word.term));
    const critical = new Set(words.filter((word) => word.critical).map((word) => word.term));
    const bigrams = new Set<string>();
    for (let i = 1; i < words.length; i++) bigrams.add(`${(words[i - 1] as Token).term} ${(words[i] as Token).term}`);

    // Counters per chunk reused across sentences: only the chunks touched are visited and reset.
    const touched: number[] = [];
    for (const term of terms) {
      for (const chunk of wordPostings.get(term) ?? []) {
        if (wordHits[chunk] === 0) touched.push(chunk);
        wordHits[chunk] = (wordHits[chunk] as number) + 1;
      }
    }
    for (const bigram of bigrams) for (const chunk of bigramPostings.get(bigram) ?? []) bigramHits[chunk] = (bigramHits[chunk] as number) + 1;
    let best: { chunk: number; score: number; complete: boolean } | null = null;
    for (const chunk of touched) {
      const wordShare = (wordHits[chunk] as number) / terms.size;
      const score = bigrams.size === 0 ? wordShare : WORD_WEIGHT * wordShare + BIGRAM_WEIGHT * ((bigramHits[chunk] as number) / bigrams.size);
      wordHits[chunk] = 0;
      bigramHits[chunk] = 0;
      const chunkTerms = (indexed[chunk] as IndexedChunk).terms;
      let complete = true;
      for (const term of critical) {
        if (!chunkTerms.has(term)) {
          complete = false;
          break;
        }
      }
      // A chunk holding every number and name beats a higher-scoring one missing any; then score, then order.
      if (best === null || (complete && !best.complete) || (complete === best.complete && (score > best.score || (score === best.score && chunk < best.chunk)))) best = { chunk, score, complete };
    }
    const supported = best !== null && best.complete && best.score >= SUPPORT_METHOD.threshold;
    if (supported) supportedCount++;
    sentences.push({ ...span, supported, best_chunk: best?.chunk ?? null, score: round(best?.score ?? 0) });
  }
  return { supported_ratio: assessed === 0 ? 1 : round(supportedCount / assessed), sentences };
}

function post(postings: Map<string, number[]>, key: string, index: number): void {
  const list = postings.get(key);
  if (list === undefined) postings.set(key, [index]);
  else list.push(index);
}
