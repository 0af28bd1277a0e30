// De-obfuscated views of a text for injection.heuristic: hidden characters stripped, letter spacing
// joined, confusables and leetspeak folded, markup-hidden text extracted, encoded runs decoded.
// Hot path: no I/O here. Every builder is linear, bounded in output, and runs only when a cheap
// pre-check finds its marker characters.

/**
 * A text to scan plus the way back to the original. `map` (view index -> original index) is used for
 * views that drop or join characters; `offset` for 1:1 slices; `region` for decoded payloads, where
 * no character correspondence exists and every finding points at the whole encoded run.
 */
export interface View {
  name: string;
  text: string;
  map?: Int32Array;
  offset?: number;
  region?: { start: number; end: number };
}

export function toOriginal(view: View, start: number, end: number): { start: number; end: number } {
  if (view.region) return { start: view.region.start, end: view.region.end };
  if (view.map) {
    const last = Math.max(start, end - 1);
    const a = view.map[Math.min(start, view.map.length - 1)] ?? 0;
    const b = view.map[Math.min(last, view.map.length - 1)] ?? a;
    return { start: a, end: b + 1 };
  }
  const offset = view.offset ?? 0;
  return { start: start + offset, end: end + offset };
}

/**
 * Lower-cases without changing length: String#toLowerCase can grow a string (U+0130 -> "i̇"), which
 * would shift every offset, so such characters fall back to a per-character mapping.
 */
export function lowerSameLength(text: string): string {
  const lowered = text.toLowerCase();
  if (lowered.length === text.length) return lowered;
  let out = '';
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i] ?? '';
    const low = ch.toLowerCase();
    out += low.length === 1 ? low : ch;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Hidden characters
// ---------------------------------------------------------------------------------------------

/** Zero-width and bidi controls (BMP) and the Unicode tag block (as UTF-16 surrogate pairs). */
export const HIDDEN_CHAR_RE = /[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u00ad\u180e]|\udb40[\udc00-\udc7f]/g;

export interface HiddenCharStats {
  zeroWidth: number;
  bidi: number;
  tags: number;
  /** Zero-width characters sitting between two letters (word smuggling, not emoji joiners). */
  insideWords: number;
  first: number;
  last: number;
  /** ASCII carried by tag characters, e.g. an instruction smuggled as U+E0049 U+E0067 ... */
  tagText: string;
  tagStart: number;
  tagEnd: number;
}

export function hiddenCharStats(text: string): HiddenCharStats | null {
  HIDDEN_CHAR_RE.lastIndex = 0;
  if (!HIDDEN_CHAR_RE.test(text)) return null;
  HIDDEN_CHAR_RE.lastIndex = 0;
  const stats: HiddenCharStats = { zeroWidth: 0, bidi: 0, tags: 0, insideWords: 0, first: -1, last: -1, tagText: '', tagStart: -1, tagEnd: -1 };
  const isLetter = (c: string | undefined): boolean => c !== undefined && c.toLowerCase() !== c.toUpperCase();
  for (const m of text.matchAll(HIDDEN_CHAR_RE)) {
    // Past a few thousand the verdict cannot change; stop counting to stay cheap on floods.
    if (stats.zeroWidth + stats.bidi + stats.tags > 4096) break;
    const ch = m[0];
    const at = m.index;
    if (stats.first < 0) stats.first = at;
    stats.last = at + ch.length;
    if (ch.length === 2) {
      stats.tags += 1;
      const code = ch.charCodeAt(1) - 0xdc00;
      if (code >= 0x20 && code < 0x7f && stats.tagText.length < 4096) stats.tagText += String.fromCharCode(code);
      if (stats.tagStart < 0) stats.tagStart = at;
      stats.tagEnd = at + 2;
    } else if ((ch >= '\u202a' && ch <= '\u202e') || (ch >= '\u2066' && ch <= '\u2069')) {
      stats.bidi += 1;
    } else {
      stats.zeroWidth += 1;
      // Joiners (U+200C/D) belong inside Persian, Indic and emoji sequences and the soft hyphen
      // inside long Latin words; only count them where they have no business: between ASCII letters.
      const legitimateJoiner = ch === '\u200c' || ch === '\u200d' || ch === '\u00ad';
      const between = legitimateJoiner
        ? /[a-z]/i.test(text[at - 1] ?? '') && /[a-z]/i.test(text[at + 1] ?? '') && ch !== '\u00ad'
        : isLetter(text[at - 1]) && isLetter(text[at + 1]);
      if (between) stats.insideWords += 1;
    }
  }
  return stats;
}

/** The text with hidden characters removed, mapped back character by character. */
export function stripHidden(text: string): View {
  const map = new Int32Array(text.length);
  let out = '';
  let n = 0;
  HIDDEN_CHAR_RE.lastIndex = 0;
  let from = 0;
  for (const m of text.matchAll(HIDDEN_CHAR_RE)) {
    for (let i = from; i < m.index; i += 1) map[n++] = i;
    out += text.slice(from, m.index);
    from = m.index + m[0].length;
  }
  for (let i = from; i < text.length; i += 1) map[n++] = i;
  out += text.slice(from);
  return { name: 'hidden characters removed', text: out, map: map.subarray(0, n) };
}

// ---------------------------------------------------------------------------------------------
// Letter spacing: "i g n o r e  a l l" -> "ignore all"
// ---------------------------------------------------------------------------------------------

/** Four or more single letters separated by one separator; bounded so a 1 MB run stays linear. */
 /** The separators SPACED_RUN_RE allows between letters; everything else in a run is a letter. */
const SPACING_SEPARATORS = ' .-_*|/';
const SPACED_RUN_RE = /(?<![\p{L}\p{N}])\p{L}(?:[ .\-_*|/]{1,3}\p{L}(?![\p{L}\p{N}])){3,400}/gu;

/**
 * Cheap necessary condition of SPACED_RUN_RE: two single letters in a row, each with separators
 * on both sides (the inner letters of any run of four). The full
 * pattern tests a look-behind at every letter, which is slow on scripts with combining marks
 * (Devanagari, Bengali, Thai), where almost every character is a letter or a mark.
 */
const SPACED_GATE_RE = /[ .\-_*|/]\p{L}[ .\-_*|/]{1,3}\p{L}[ .\-_*|/]/u;

export function joinLetterSpacing(lowered: string): View | null {
  if (!SPACED_GATE_RE.test(lowered)) return null;
  SPACED_RUN_RE.lastIndex = 0;
  if (!SPACED_RUN_RE.test(lowered)) return null;
  SPACED_RUN_RE.lastIndex = 0;
  const map = new Int32Array(lowered.length);
  let out = '';
  let n = 0;
  let from = 0;
  const copy = (a: number, b: number): void => {
    for (let i = a; i < b; i += 1) {
      out += lowered[i];
      map[n++] = i;
    }
  };
  for (const m of lowered.matchAll(SPACED_RUN_RE)) {
    copy(from, m.index);
    const run = m[0];
    // Separator runs of 2+ characters mark word gaps ("i g n o r e   a l l"); single ones vanish.
    let i = 0;
    while (i < run.length) {
      const ch = run[i] ?? '';
      if (!SPACING_SEPARATORS.includes(ch)) {
        out += ch;
        map[n++] = m.index + i;
        i += 1;
      } else {
        let j = i;
        while (j < run.length && SPACING_SEPARATORS.includes(run[j] ?? '')) j += 1;
        if (j - i >= 2) {
          out += ' ';
          map[n++] = m.index + i;
        }
        i = j;
      }
    }
    from = m.index + run.length;
  }
  copy(from, lowered.length);
  return { name: 'letter spacing joined', text: out, map: map.subarray(0, n) };
}

// ---------------------------------------------------------------------------------------------
// Confusables and leetspeak: 1:1 character folding, so offsets stay valid.
// ---------------------------------------------------------------------------------------------

const CONFUSABLES: Record<string, string> = {
  // Cyrillic
  а: 'a', в: 'b', е: 'e', ё: 'e', к: 'k', м: 'm', н: 'h', о: 'o', р: 'p', с: 'c', т: 't', у: 'y', х: 'x', ѕ: 's', і: 'i', ї: 'i', ј: 'j', ԁ: 'd', ɡ: 'g', һ: 'h', ԛ: 'q', ԝ: 'w',
  // Greek
  α: 'a', β: 'b', ε: 'e', η: 'n', ι: 'i', κ: 'k', ν: 'v', ο: 'o', ρ: 'p', τ: 't', υ: 'u', χ: 'x', γ: 'y',
  // Latin look-alikes
  ı: 'i', ℓ: 'l', ｌ: 'l', ⅰ: 'i',
};
const LEET: Record<string, string> = { '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', $: 's', '!': 'i', '|': 'l' };

/** A Latin letter next to a Cyrillic or Greek one, or any fullwidth form: mixed-script smuggling. */
const MIXED_SCRIPT_RE = /[a-z][\u0370-\u03ff\u0400-\u04ff]|[\u0370-\u03ff\u0400-\u04ff][a-z]|[\uff01-\uff5e]|[\u2170-\u217f\u0131\u2113]/;
/** A letter-digit-letter word: "1gn0r3", "pr3v10us". */
const LEET_RE = /[a-z][013457@$|][a-z]|(?<![a-z0-9])[013457@$][a-z]{2}/;
/** What follows the '@' of an e-mail address: a domain with a dot and a top-level label. */
const EMAIL_DOMAIN_RE = /^[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63}){0,5}\.[a-z]{2,24}\b/;

export function foldConfusables(lowered: string): View | null {
  if (!MIXED_SCRIPT_RE.test(lowered)) return null;
  let out = '';
  for (let i = 0; i < lowered.length; i += 1) {
    const ch = lowered[i] ?? '';
    const code = ch.charCodeAt(0);
    if (code >= 0xff01 && code <= 0xff5e) out += String.fromCharCode(code - 0xfee0).toLowerCase();
    else out += CONFUSABLES[ch] ?? ch;
  }
  return { name: 'confusables folded', text: out, offset: 0 };
}

const isAsciiLower = (code: number): boolean => code >= 97 && code <= 122;
const IS_LEET = new Uint8Array(128);
for (const ch of Object.keys(LEET)) IS_LEET[ch.charCodeAt(0)] = 1;

/** Whether the word around position `at` (letters and leet characters, up to 30 each way) has another leet character. */
function otherLeetInWord(lowered: string, at: number): boolean {
  const inWord = (code: number): boolean => isAsciiLower(code) || (code < 128 && IS_LEET[code] === 1);
  for (let i = at - 1; i >= 0 && at - i <= 30 && inWord(lowered.charCodeAt(i)); i -= 1) if (IS_LEET[lowered.charCodeAt(i)] === 1) return true;
  for (let i = at + 1; i < lowered.length && i - at <= 30 && inWord(lowered.charCodeAt(i)); i += 1) if (IS_LEET[lowered.charCodeAt(i)] === 1) return true;
  return false;
}

export function foldLeet(lowered: string): View | null {
  if (!LEET_RE.test(lowered)) return null;
  // Where to substitute, found by character codes first: most texts (an e-mail address, a room
  // number) have fewer than two and need no new string at all.
  const at: number[] = [];
  for (let i = 0; i < lowered.length; i += 1) {
    const code = lowered.charCodeAt(i);
    if (code >= 128 || IS_LEET[code] !== 1) continue;
    const ch = lowered[i]!;
    // Only inside words: a digit between letters, or leading a word that continues in letters.
    // The '@' of an e-mail address is not leetspeak.
    const letterBefore = isAsciiLower(lowered.charCodeAt(i - 1));
    const letterAfter = isAsciiLower(lowered.charCodeAt(i + 1));
    if (!letterBefore && !letterAfter) continue;
    if (ch === '@' && EMAIL_DOMAIN_RE.test(lowered.slice(i + 1, i + 80))) continue;
    // One digit at the edge of a word ("room 4b", "mp3", "1st") is a name or a number, not
    // leetspeak, unless its word has another substitution ("pr3v10u5") or it leads a word ("4ll").
    if (!(letterBefore && letterAfter) && !(letterAfter && isAsciiLower(lowered.charCodeAt(i + 2)) && !letterBefore) && !otherLeetInWord(lowered, i)) continue;
    at.push(i);
  }
  if (at.length < 2) return null;
  let out = '';
  let from = 0;
  for (const i of at) {
    out += lowered.slice(from, i) + LEET[lowered[i]!];
    from = i + 1;
  }
  return { name: 'leetspeak folded', text: out + lowered.slice(from), offset: 0 };
}

// ---------------------------------------------------------------------------------------------
// Markup-hidden text: HTML comments, hidden elements, alt/title attributes, markdown link titles.
// ---------------------------------------------------------------------------------------------

export interface HiddenSegment extends View {
  kind: 'comment' | 'hidden element' | 'attribute' | 'link title';
}

/** Enough hidden segments to find an instruction; floods of markup get no further views. */
const MAX_SEGMENTS = 64;
const HIDDEN_ELEMENT_RE =
  /<([a-z][a-z0-9]{0,15})\b[^>]{0,300}?(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0|opacity\s*:\s*0(?![.\d]*[1-9])|color\s*:\s*(?:#fff(?:fff)?|white|transparent)\b|\bhidden\b|aria-hidden="true")[^>]{0,300}>([^<]{1,4000})/gi;
const ATTRIBUTE_RE = /\b(?:alt|title|aria-label|data-[a-z-]{1,30})\s*=\s*(?:"([^"]{8,2000})"|'([^']{8,2000})')/gi;
// The URL class excludes brackets so an unclosed link stops at the next one instead of scanning on.
const LINK_TITLE_RE = /\]\([^)\s([\]]{1,500}\s{1,3}"([^"]{4,500})"\)/g;

export function markupSegments(text: string): HiddenSegment[] {
  const segments: HiddenSegment[] = [];
  // Comments by indexOf, not by regex: a lazy `<!--[\s\S]*?-->` rescans the rest of the text
  // for every unclosed opener, which is quadratic on `<!--<!--<!--...`.
  let from = text.indexOf('<!--');
  while (from >= 0 && segments.length < MAX_SEGMENTS) {
    const close = text.indexOf('-->', from + 4);
    if (close < 0) break;
    const body = text.slice(from + 4, Math.min(close, from + 4 + 4000));
    segments.push({ kind: 'comment', name: 'markup comment', text: lowerSameLength(body), offset: from + 4 });
    from = text.indexOf('<!--', close + 3);
  }
  if (text.includes('<')) {
    for (const m of text.matchAll(HIDDEN_ELEMENT_RE)) {
      if (segments.length >= MAX_SEGMENTS) break;
      const body = m[2] ?? '';
      segments.push({ kind: 'hidden element', name: 'hidden element', text: lowerSameLength(body), offset: m.index + m[0].length - body.length });
    }
  }
  if (text.includes('=')) {
    for (const m of text.matchAll(ATTRIBUTE_RE)) {
      if (segments.length >= MAX_SEGMENTS) break;
      const body = m[1] ?? m[2] ?? '';
      const at = m.index + m[0].length - body.length - 1;
      segments.push({ kind: 'attribute', name: 'alt/title attribute', text: lowerSameLength(body), offset: at });
    }
  }
  if (text.includes('](')) {
    for (const m of text.matchAll(LINK_TITLE_RE)) {
      if (segments.length >= MAX_SEGMENTS) break;
      const body = m[1] ?? '';
      segments.push({ kind: 'link title', name: 'link title', text: lowerSameLength(body), offset: m.index + m[0].length - body.length - 2 });
    }
  }
  return segments;
}

// ---------------------------------------------------------------------------------------------
// Encoded payloads: base64, hex, binary, URL encoding, rot13.
// ---------------------------------------------------------------------------------------------

export interface DecodedPayload {
  encoding: 'base64' | 'hex' | 'binary' | 'url-encoded' | 'rot13' | 'tag characters' | 'morse' | 'caesar' | 'reversed' | 'pig latin';
  text: string;
  start: number;
  end: number;
}

const BASE64_RE = /(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{20,4096}={0,2}/g;
const HEX_RE = /(?<![0-9a-fA-F])(?:[0-9a-fA-F]{2}[ :,]?){10,2048}/g;
const ESCAPED_HEX_RE = /(?:\\x[0-9a-fA-F]{2}){8,2048}/g;
const BINARY_RE = /(?<![01])(?:[01]{8} ?){6,1024}/g;
/**
 * Space-separated binary groups where copying or translation broke some octets ("011011",
 * "01110100000"): every group is one token (digits and the single space are disjoint, so the run
 * splits one way only), and only the intact octets are decoded.
 */
const LOOSE_BINARY_RE = /(?<![01])[01]{4,16}(?: [01]{4,16}){5,1023}/g;
/**
 * Morse code: letters of dots and dashes separated by one space, words by " / " or several
 * spaces. The Devanagari danda stands in for the dot in machine-translated text.
 */
const MORSE_RE = /(?<![.\-\u0964\p{L}\p{N}])[.\-\u0964]{1,7}(?:(?: {1,3}| ?\/ ?)[.\-\u0964]{1,7}){7,2048}/gu;
const URL_ENCODED_RE = /[^\s%]{0,40}(?:%[0-9a-fA-F]{2}[^\s%<>"]{0,40}){4,512}/g;

/** Most decoded payloads that matter are natural-language text: mostly printable, with spaces. */
/** A decoded payload that is itself one base64 run. */
const NESTED_BASE64_RE = /^\s{0,2}[A-Za-z0-9+/]{24,}={0,2}\s{0,2}$/;

function looksLikeText(decoded: string): boolean {
  if (decoded.length < 6) return false;
  let printable = 0;
  let spaces = 0;
  for (let i = 0; i < decoded.length; i += 1) {
    const c = decoded.charCodeAt(i);
    if (c === 32) spaces += 1;
    if ((c >= 32 && c < 127) || c === 10 || c === 9 || c >= 0xa0) printable += 1;
  }
  return printable / decoded.length > 0.92 && spaces >= 1 && !decoded.includes('\ufffd');
}

export function rot13(text: string): string {
  return text.replace(/[a-z]/gi, (c) => {
    const base = c <= 'Z' ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
}

const MORSE_CODE: Record<string, string> = {
  '.-': 'a', '-...': 'b', '-.-.': 'c', '-..': 'd', '.': 'e', '..-.': 'f', '--.': 'g', '....': 'h', '..': 'i', '.---': 'j', '-.-': 'k', '.-..': 'l', '--': 'm',
  '-.': 'n', '---': 'o', '.--.': 'p', '--.-': 'q', '.-.': 'r', '...': 's', '-': 't', '..-': 'u', '...-': 'v', '.--': 'w', '-..-': 'x', '-.--': 'y', '--..': 'z',
  '-----': '0', '.----': '1', '..---': '2', '...--': '3', '....-': '4', '.....': '5', '-....': '6', '--...': '7', '---..': '8', '----.': '9',
  '..--..': '?', '.-.-.-': '.', '--..--': ',', '-.-.--': '!', '.----.': "'", '-..-.': '/', '---...': ':',
};

/** A Morse run as text; null when too many letters are not Morse code (dashes and ellipses in prose). */
export function decodeMorse(run: string): string | null {
  let out = '';
  let letters = 0;
  let unknown = 0;
  for (const word of run.replace(/\u0964/g, '.').split(/ ?\/ ?| {2,}/)) {
    if (out.length > 0) out += ' ';
    for (const code of word.split(' ')) {
      if (code === '') continue;
      letters += 1;
      const ch = MORSE_CODE[code];
      if (ch === undefined) unknown += 1;
      out += ch ?? '';
    }
  }
  return letters >= 8 && unknown <= letters / 5 ? out : null;
}

/** Octets of a space-separated binary run; broken groups are skipped. Null when most are broken. */
export function decodeLooseBinary(run: string): string | null {
  const groups = run.split(' ');
  const octets = groups.filter((g) => g.length === 8);
  if (octets.length < 6 || octets.length < groups.length * 0.6) return null;
  return Buffer.from(octets.map((b) => parseInt(b, 2))).toString('utf8');
}

/**
 * Common short English words, the evidence that a shifted (Caesar) or reversed text is English
 * underneath: "wkh" is "the" shifted by 3, "eht" is "the" reversed.
 */
const MARKER_WORDS = ['the', 'and', 'that', 'this', 'what', 'you', 'your', 'with', 'are', 'for', 'have', 'from', 'were', 'which', 'where', 'there', 'their', 'about', 'into'];
const shift = (word: string, by: number): string =>
  word.replace(/[a-z]/g, (c) => String.fromCharCode(((c.charCodeAt(0) - 97 + by) % 26) + 97));
/** Word -> how it was hidden: 1..25 = Caesar shift that produced it, -1 = reversed. */
const HIDDEN_MARKERS: ReadonlyMap<string, number> = (() => {
  const map = new Map<string, number>();
  for (const word of MARKER_WORDS) {
    for (let by = 1; by < 26; by += 1) map.set(shift(word, by), by);
    map.set([...word].reverse().join(''), -1);
  }
  for (const word of MARKER_WORDS) map.delete(word); // a plain English word is no evidence
  return map;
})();
const PLAIN_MARKERS: ReadonlySet<string> = new Set(MARKER_WORDS);
/** Cheap gate: shifted or reversed forms of the commonest markers, needed twice before counting. */
const GATE_FORMS = ['the', 'and', 'you', 'your', 'what'].flatMap((w) => [
  ...Array.from({ length: 25 }, (_, i) => shift(w, i + 1)),
  [...w].reverse().join(''),
]);
const HIDDEN_GATE_RE = new RegExp(`\\b(?:${GATE_FORMS.filter((w) => HIDDEN_MARKERS.has(w)).join('|')})\\b`, 'g');
const WORD_RE = /\b[a-z]{3,5}\b/g;

/**
 * Caesar shift (1..25) or reversal (-1) under which several common English words appear where
 * the text itself has few: a shifted or mirrored English sentence. 0 when there is none.
 */
export function hiddenEnglish(lowered: string): number {
  if (!atLeast(HIDDEN_GATE_RE, lowered, 2)) return 0;
  const hits = new Map<number, number>();
  const distinct = new Map<number, Set<string>>();
  let plain = 0;
  let words = 0;
  WORD_RE.lastIndex = 0;
  for (const m of lowered.matchAll(WORD_RE)) {
    if (++words > 600) break;
    const w = m[0];
    const by = HIDDEN_MARKERS.get(w);
    if (by === undefined) {
      if (PLAIN_MARKERS.has(w)) plain += 1;
      continue;
    }
    hits.set(by, (hits.get(by) ?? 0) + 1);
    const seen = distinct.get(by) ?? new Set<string>();
    seen.add(w);
    distinct.set(by, seen);
  }
  let best = 0;
  let bestHits = 0;
  for (const [by, n] of hits) {
    // A shifted sentence inside plain English prose (a document with one encoded line) still has
    // its own run of markers: four or more, against a handful of chance look-alikes.
    if (n >= 3 && (distinct.get(by)?.size ?? 0) >= 2 && n > bestHits && (n > plain || n >= 4)) {
      best = by;
      bestHits = n;
    }
  }
  return best;
}

/**
 * Pig latin ("erewhay oesday ethay useryay"): most words end in "ay", "way" or "yay". Decoding
 * moves the consonants before "ay" back to the front. Null when the text is not pig latin.
 */
export function decodePigLatin(lowered: string): string | null {
  const words = lowered.match(/[a-z]+/g);
  if (!words || words.length < 3 || words.length > 400) return null;
  const pig = words.filter((w) => w.length >= 4 && w.endsWith('ay')).length;
  if (pig < 3 || pig < words.length * 0.6) return null;
  return lowered.replace(/[a-z]+/g, (w) => (w.length >= 4 && w.endsWith('ay') ? fromPigLatin(w.slice(0, -2)) : w));
}

const PIG_RUN_RE = /[a-z]ay[^a-z\n]{1,3}[a-z]{1,20}ay[^a-z\n]{1,3}[a-z]{1,20}ay\b/i;

/** Consonant clusters that start English words: the longest one at the end of a stem moved back. */
const ONSETS = /(?:str|scr|spr|spl|thr|shr|squ|th|wh|sh|ch|ph|wr|kn|qu|gr|br|cr|dr|fr|pr|tr|bl|cl|fl|gl|pl|sl|sc|sk|sm|sn|sp|st|sw|tw)$/;

/** One pig-latin word without its "ay": "ethay" -> "eth" -> "the", "useryay" -> "usery" -> "user". */
function fromPigLatin(stem: string): string {
  const onset = ONSETS.exec(stem)?.[0];
  if (onset && /^[aeiou]/.test(stem) && onset.length < stem.length) return onset + stem.slice(0, -onset.length);
  const rest = stem.slice(0, -1);
  const last = stem.slice(-1);
  // Vowel-initial words take "yay"/"way"/"hay" ("isyay" -> "is"), unless the rest ends in a
  // vowel, where the y was a moved consonant ("ouyay" -> "you").
  if (/^[aeiou]/.test(rest) && /[ywh]/.test(last) && !/[aeiou]$/.test(rest)) return rest;
  return /[a-z]/.test(last) && rest.length > 0 ? last + rest : stem;
}

/**
 * Encoded runs that decode to readable text. `budget` caps the total decoded characters so that
 * a megabyte of base64 costs a bounded amount of work.
 */
/** Work left for decoding, shared by every piece and depth of one detect() call. */
export interface DecodeBudget {
  /** Characters that may still be decoded (attempts count, not only successes). */
  chars: number;
}

/** Whether `re` (global) matches at least `n` times; stops counting there. */
function atLeast(re: RegExp, text: string, n: number): boolean {
  re.lastIndex = 0;
  let count = 0;
  while (count < n && re.exec(text) !== null) count += 1;
  re.lastIndex = 0;
  return count >= n;
}

const isHexCode = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
const isBase64Code = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 43 || c === 47;

/**
 * One pass over the character codes instead of three unanchored regexes (which try up to twenty
 * characters at every position). Each flag is implied by its regex below: a run of 20 base64
 * characters; 6 hex digits with at most one separator (space, colon, comma) between them; 12
 * binary digits with at most one space between them.
 */
function encodingGates(text: string): { base64: boolean; hex: boolean; binary: boolean } {
  let base64Run = 0;
  let hexDigits = 0;
  let hexGap = 0;
  let binaryDigits = 0;
  let binaryGap = 0;
  let base64 = false;
  let hex = false;
  let binary = false;
  for (let i = 0; i < text.length && !(base64 && hex && binary); i += 1) {
    const c = text.charCodeAt(i);
    base64Run = isBase64Code(c) ? base64Run + 1 : 0;
    if (base64Run >= 20) base64 = true;
    if (isHexCode(c)) {
      hexDigits += 1;
      hexGap = 0;
      // HEX_RE needs ten pairs: a run of 20 hex digits with at most single separators between.
      if (hexDigits >= 20) hex = true;
    } else if ((c === 32 || c === 58 || c === 44) && hexGap === 0 && hexDigits > 0) hexGap = 1;
    else {
      hexDigits = 0;
      hexGap = 0;
    }
    if (c === 48 || c === 49) {
      binaryDigits += 1;
      binaryGap = 0;
      if (binaryDigits >= 12) binary = true;
    } else if (c === 32 && binaryGap === 0 && binaryDigits > 0) binaryGap = 1;
    else {
      binaryDigits = 0;
      binaryGap = 0;
    }
  }
  return { base64, hex, binary };
}

export function decodePayloads(text: string, budget: DecodeBudget): DecodedPayload[] {
  const found: DecodedPayload[] = [];
  const push = (encoding: DecodedPayload['encoding'], raw: string, start: number, end: number): void => {
    // A payload damaged in transit (a copied or translated base64 run) decodes to text that turns
    // into garbage part-way: its readable head still counts.
    const broken = raw.indexOf('\ufffd');
    const decoded = broken >= 24 ? raw.slice(0, broken) : raw;
    // Base64 of base64 (or URL-encoded base64) decodes to another run: the next depth decodes it.
    if (!looksLikeText(decoded) && !NESTED_BASE64_RE.test(decoded)) return;
    found.push({ encoding, text: decoded, start, end });
  };
  const scan = (re: RegExp, encoding: DecodedPayload['encoding'], decode: (run: string) => string): void => {
    re.lastIndex = 0;
    for (const m of text.matchAll(re)) {
      if (budget.chars <= 0) break;
      budget.chars -= m[0].length;
      push(encoding, decode(m[0]), m.index, m.index + m[0].length);
    }
  };
  // Cheap gates first: most texts have no run of 20 base64 characters, no hex or binary run.
  const gates = encodingGates(text);
  if (gates.base64) {
    scan(BASE64_RE, 'base64', (run) => (/^[0-9a-fA-F]+$/.test(run) || /^[a-z]+$/i.test(run) ? '' : Buffer.from(run, 'base64').toString('utf8')));
  }
  if (gates.hex) {
    scan(HEX_RE, 'hex', (run) => (/[a-fA-F]/.test(run) || /^[0-9 :,]+$/.test(run) ? Buffer.from(run.replace(/[ :,]/g, ''), 'hex').toString('utf8') : ''));
  }
  if (text.includes('\\x')) scan(ESCAPED_HEX_RE, 'hex', (run) => Buffer.from(run.replace(/\\x/g, ''), 'hex').toString('utf8'));
  if (gates.binary && /[01]{8} ?[01]{8}/.test(text)) {
    scan(BINARY_RE, 'binary', (run) => {
      const bytes = run.replace(/ /g, '').match(/[01]{8}/g) ?? [];
      return Buffer.from(bytes.map((b) => parseInt(b, 2))).toString('utf8');
    });
  }
  if (gates.binary && /[01]{8} [01]{4}/.test(text)) {
    LOOSE_BINARY_RE.lastIndex = 0;
    for (const m of text.matchAll(LOOSE_BINARY_RE)) {
      if (budget.chars <= 0) break;
      // Runs of intact octets were decoded above; this pass is for the broken ones.
      if (m[0].split(' ').every((g) => g.length === 8)) continue;
      budget.chars -= m[0].length;
      const decoded = decodeLooseBinary(m[0]);
      if (decoded) push('binary', decoded, m.index, m.index + m[0].length);
    }
  }
  if (/[.\-\u0964]{1,4} [.\-\u0964]{1,4} [.\-\u0964]{1,4} /.test(text)) {
    MORSE_RE.lastIndex = 0;
    for (const m of text.matchAll(MORSE_RE)) {
      if (budget.chars <= 0) break;
      budget.chars -= m[0].length;
      const decoded = decodeMorse(m[0]);
      if (decoded) push('morse', decoded, m.index, m.index + m[0].length);
    }
  }
  if (/%[0-9a-fA-F]{2}/.test(text)) {
    scan(URL_ENCODED_RE, 'url-encoded', (run) => {
      try {
        return decodeURIComponent(run.replace(/\+/g, ' '));
      } catch {
        return '';
      }
    });
  }
  // Shifted or mirrored English found by its common words, with or without a "rot13" label.
  const hidden = budget.chars > 0 && /[a-z]{3}/i.test(text) ? hiddenEnglish(text.slice(0, 8192).toLowerCase()) : 0;
  if (/\brot-?13\b|\bcaesar\b/i.test(text) && budget.chars > 0 && hidden !== 13) {
    const slice = text.slice(0, Math.min(text.length, budget.chars));
    budget.chars -= slice.length;
    push('rot13', rot13(slice), 0, slice.length);
  }
  if (hidden !== 0 && budget.chars > 0) {
    const slice = text.slice(0, Math.min(text.length, budget.chars, 8192));
    budget.chars -= slice.length;
    if (hidden > 0) push('caesar', shift(slice.toLowerCase(), 26 - hidden), 0, slice.length);
    else push('reversed', [...slice].reverse().join(''), 0, slice.length);
  }
  // Pig latin turns every word into an "-ay" word: three in a row ("ethay useryay urrentlycay").
  if (budget.chars > 0 && PIG_RUN_RE.test(text)) {
    const slice = text.slice(0, Math.min(text.length, budget.chars, 4096));
    const decoded = decodePigLatin(slice.toLowerCase());
    if (decoded) {
      budget.chars -= slice.length;
      push('pig latin', decoded, 0, slice.length);
    }
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// Split words ("ig nore prev ious instruc tions", "i-g-n-o-r-e a-l-l") and reversed text.
// ---------------------------------------------------------------------------------------------

/** Separators an attacker drops inside words; sentence punctuation stays, so sentences do not merge. */
const SPLIT_SEPARATORS_RE = /[\s\-_*|~+·]+/g;
/**
 * Key phrases with every separator removed. Each part is a fixed word list with bounded
 * repetition, so a run of letters is tried in a few steps per position.
 */
const SPLIT_KEY_RE = new RegExp(
  [
    '(?:ignore|disregard|forget|overlook|bypass|override)(?:all|any|the|your|of|my){0,3}(?:previous|prior|above|earlier|preceding|former|original|initial|system|developer)(?:instructions?|prompts?|rules|directions|directives|guidelines|commands)',
    '(?:reveal|print|show|repeat|output|leak|display|dump|tellme)(?:all|the|your|of|me){0,3}(?:full|entire|hidden|initial|original|secret){0,2}(?:systemprompt|systemmessage|systeminstructions|hiddeninstructions|initialinstructions|initialprompt)',
    'doanythingnow',
  ].join('|'),
  'g',
);

/** Key phrases found once separators are removed, mapped back to the original span. */
export function splitWordPhrases(lowered: string): Array<{ start: number; end: number; text: string }> {
  // Most texts hold no key phrase even with separators gone: test first, map only on a hit.
  SPLIT_KEY_RE.lastIndex = 0;
  if (!SPLIT_KEY_RE.test(lowered.replace(SPLIT_SEPARATORS_RE, ''))) return [];
  const map: number[] = [];
  let compact = '';
  SPLIT_SEPARATORS_RE.lastIndex = 0;
  let from = 0;
  for (const m of lowered.matchAll(SPLIT_SEPARATORS_RE)) {
    for (let i = from; i < m.index; i += 1) map.push(i);
    compact += lowered.slice(from, m.index);
    from = m.index + m[0].length;
  }
  for (let i = from; i < lowered.length; i += 1) map.push(i);
  compact += lowered.slice(from);
  const found: Array<{ start: number; end: number; text: string }> = [];
  SPLIT_KEY_RE.lastIndex = 0;
  for (const m of compact.matchAll(SPLIT_KEY_RE)) {
    found.push({ start: map[m.index] ?? 0, end: (map[m.index + m[0].length - 1] ?? 0) + 1, text: m[0] });
    if (found.length >= 4) break;
  }
  return found;
}

/** Reversed key words: "erongi", "snoitcurtsni", "tpmorp metsys". */
const REVERSED_HINT_RE = /erongi|dragersid|snoitcurtsni|tpmorp|suoiverp|selur ruoy|drowssap|laever/g;
/** Text around the reversed words that is read backwards: a sentence or two either side. */
const REVERSED_REACH = 300;

/**
 * The passage around reversed key words read backwards (by code point), as a view whose findings
 * point at that passage; null unless two of the words occur close together (one could be a name).
 */
export function reversedView(lowered: string): View | null {
  REVERSED_HINT_RE.lastIndex = 0;
  const first = REVERSED_HINT_RE.exec(lowered);
  if (first === null) return null;
  const second = REVERSED_HINT_RE.exec(lowered);
  if (second === null || second.index - first.index > REVERSED_REACH) return null;
  let last = second.index + second[0].length;
  for (let hit = REVERSED_HINT_RE.exec(lowered); hit !== null && hit.index - last <= REVERSED_REACH; hit = REVERSED_HINT_RE.exec(lowered)) {
    last = hit.index + hit[0].length;
  }
  const start = Math.max(0, first.index - REVERSED_REACH);
  const end = Math.min(lowered.length, last + REVERSED_REACH);
  return { name: 'reversed text', text: [...lowered.slice(start, end)].reverse().join(''), region: { start, end } };
}
