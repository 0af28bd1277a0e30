// The rules of pii.ner over a text: people and places from capitalised word runs checked against
// the lexicon and cue words, street addresses, dates and times, crypto wallets and licence numbers.
// Hot path: no I/O; every regex is linear-time (bounded repeats over disjoint classes).
import type { Detection } from '../types.js';
import { bitcoinBase58Valid, bitcoinBech32Valid, deaValid, ethereumChecksumValid, npiValid } from './checks.js';
import type { NerLexicon } from './lexicon.js';

export interface NerCandidate extends Detection {
  /** Lower wins when two candidates overlap with the same score. */
  precedence: number;
}

function candidate(entity: string, score: number, start: number, end: number, pattern: string, explanation: string, precedence: number, validator?: string): NerCandidate {
  const found: NerCandidate = { entity, score, start, end, pattern, explanation, precedence };
  if (validator !== undefined) found.validator = validator;
  return found;
}

// --- word runs -----------------------------------------------------------------------------------

interface Token {
  start: number;
  end: number;
  text: string;
  lower: string;
  capital: boolean;
}

const WORD = /[\p{L}][\p{L}\p{M}'’-]{0,39}/gu;

/**
 * The capitalised words of the text, and the lower-case ones right after a naming cue: the only
 * words the rules look at (lower-case words only break runs, which the gap check sees anyway).
 */
function tokenize(text: string, nameCues: ReadonlyMap<number, boolean>): Token[] {
  const tokens: Token[] = [];
  WORD.lastIndex = 0;
  for (let match = WORD.exec(text); match !== null; match = WORD.exec(text)) {
    const raw = match[0];
    const head = raw[0] ?? '';
    if (head === head.toLowerCase() && nameCues.get(match.index) !== true) continue;
    const tail = raw[raw.length - 1];
    const value = tail === "'" || tail === '’' || tail === '-' ? raw.replace(/['’-]+$/, '') : raw;
    const first = value[0] ?? '';
    tokens.push({
      start: match.index,
      end: match.index + value.length,
      text: value,
      lower: value.toLowerCase(),
      capital: first !== first.toLowerCase(),
    });
  }
  return tokens;
}

const TITLES = new Set(['mr', 'mrs', 'ms', 'miss', 'mx', 'dr', 'prof', 'professor', 'sir', 'dame', 'lady', 'lord', 'madam', 'madame', 'mister', 'rev', 'herr', 'frau', 'mme', 'mlle', 'señor', 'señora', 'sr', 'sra']);
// Words before a name that say the next word is one ("my name is X", "Dear X", "my son X").
const NAME_CUES =
  /(?<![\p{L}])(?:(?:last |first |maiden |full |sur)?name(?:\s+is|'s|\s*[:?])|named|called|dear|signed|regards,?|sincerely,?|thanks,?|my\s+(?:son|daughter|kid|child|wife|husband|partner|mother|father|mom|dad|brother|sister|friend|boss|colleague|grandfather|grandmother|uncle|aunt|cousin|nephew|niece)|patient\s*:|contact\s*:|assigned\s+to|call\s+me|i\s+am|i'm|this\s+is|him|her|me|with|by)[ \t]+/giu;
// Of those, the ones that are followed by many other things than a name.
const WEAK_NAME_CUE = /^(?:i\s+am|i'm|this\s+is|him|her|me|with|by)[ \t]+$/i;
// Words before a place: "grew up in X", "moved here from X", "I'm in X".
const PLACE_CUES =
  /(?<![\p{L}])(?:grew\s+up|born|lives?|lived|living|based|located|headquartered|stay(?:ing|ed)?|moved(?:\s+here)?|relocated|travel(?:l)?ing|flying|flew|trip|holiday|vacation|i'm|i\s+am|we're|we\s+are)\s+(?:in|to|from|at|near)[ \t]+/giu;
// Verbs that often follow a person's name at the start of a sentence ("Shovda is very reliable").
const PERSON_VERB_AFTER = /^(?:'s|’s|[ \t]+(?:is|was|will|would|has|had|said|says|told|asked|shouted|lives|lived|works|worked|went|called|wrote|met|and\s+\p{Lu}))(?![\p{L}])/u;

// Only these cues also introduce a name written in lower case.
const LOWER_CASE_CUE = /(?:name(?:\s+is|'s|\s*:)|call\s+me)[ \t]+$/i;

/**
 * Whether the line around `offset` is written in title case (a heading, a film or book title):
 * judged on up to 150 characters either side within the line, cached per 128-character block.
 */
function titleCaseLine(text: string, offset: number, cache: Map<number, boolean>): boolean {
  const block = offset >> 7;
  const cached = cache.get(block);
  if (cached !== undefined) return cached;
  const windowStart = Math.max(0, offset - 150);
  const window = text.slice(windowStart, offset + 150);
  const at = offset - windowStart;
  const lineStart = window.lastIndexOf('\n', at) + 1;
  const newline = window.indexOf('\n', at);
  const words = window.slice(lineStart, newline === -1 ? window.length : newline).match(/[\p{L}][\p{L}'’-]*/gu) ?? [];
  const capitals = words.filter((word) => word[0] !== word[0]?.toLowerCase()).length;
  const answer = words.length >= 8 && capitals / words.length >= 0.6;
  cache.set(block, answer);
  return answer;
}

/** Offsets where a name or a place may start because a cue word ends right before them. */
function cueEnds(regex: RegExp, text: string): Map<number, boolean> {
  const ends = new Map<number, boolean>();
  regex.lastIndex = 0;
  for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
    ends.set(match.index + match[0].length, !WEAK_NAME_CUE.test(match[0]));
  }
  return ends;
}

// English words that look like surnames or given names to the lexicon but rarely are one alone.
const STOP = new Set([
  'i', 'a', 'an', 'the', 'my', 'your', 'his', 'her', 'our', 'their', 'this', 'that', 'these', 'those', 'it', 'we', 'you', 'he', 'she', 'they',
  'and', 'or', 'but', 'if', 'of', 'in', 'on', 'at', 'to', 'for', 'from', 'by', 'with', 'as', 'is', 'are', 'was', 'be', 'not', 'no', 'yes',
  'hi', 'hello', 'dear', 'thanks', 'please', 'ok', 'okay', 'dr', 'mr', 'mrs', 'ms', 'st', 'apt', 'suite', 'inc', 'ltd', 'llc', 'co', 'corp',
  'january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december',
  'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday', 'god', 'lord', 'christmas', 'easter', 'internet', 'english',
]);
// Endings of English common nouns, adjectives and verb forms: such a word is not a name.
const COMMON_ENDING = /(?:tion|sion|ment|ness|ity|ship|ance|ence|ism|ology|ing|able|ible|ful|less|ous|ive|ize|ise|ary|ery|ory|ical|ic|dom|ally|ware|work|book|day|time|land|ation|ers|ies)$/;

// Words that end a company's name: a name or place right before one is part of an organisation.
const ORG_TAIL = new Set(['inc', 'ltd', 'llc', 'llp', 'corp', 'corporation', 'co', 'company', 'group', 'consulting', 'sons', 'partners', 'associates', 'holdings', 'gmbh', 'ag', 'sa', 'plc', 'bv', 'nv', 'ab', 'oy', 'as', 'spa', 'srl', 'capital', 'solutions', 'systems', 'technologies', 'labs', 'media', 'bank', 'university', 'institute', 'foundation', 'hospital', 'school', 'college', 'club', 'orchestra', 'press', 'records', 'studios']);

/** Whether the words after `end` (in the same run, or "and Sons", "& Co") make the span an organisation. */
function organisationFollows(text: string, tokens: readonly Token[], end: number, runEndIndex: number, lexicon: NerLexicon): boolean {
  for (let t = end; t < runEndIndex; t += 1) {
    const word = tokens[t]!.lower;
    if (ORG_TAIL.has(word) || lexicon.orgWords.has(word)) return true;
  }
  const last = tokens[Math.min(end, runEndIndex) - 1];
  if (last === undefined) return false;
  return /^(?:,?[ \t]+(?:and|&)[ \t]+(?:Sons|Co|Partners|Associates|Company)\b|[ \t]+(?:is|was)[ \t]+(?:a|an)[ \t]+(?:[\p{L}-]+[ \t]+){0,3}(?:company|bank|firm|startup|corporation|business|organi[sz]ation|non-profit|nonprofit|brand|provider|agency))/iu.test(
    text.slice(last.end, last.end + 80),
  );
}

// "GitHub", "StackOverflow", "iPhone": an upper-case letter inside a word makes a brand, except
// after the name prefixes Mc, Mac, De, Le, La, Di, Van, O'.
const INNER_CAPITAL = /^(?!(?:Mc|Mac|De|Le|La|Di|Du|Van|Von|O['’]))\p{L}+\p{Ll}\p{Lu}/u;

function isCommon(token: Token, lexicon: NerLexicon): boolean {
  const word = token.lower;
  if (word.length === 1) return false; // an initial
  if (STOP.has(word)) return true;
  if (INNER_CAPITAL.test(token.text)) return true;
  if (lexicon.firstNames.has(word) || lexicon.lastNames.has(word)) return false;
  if (lexicon.common.has(word) || lexicon.orgWords.has(word) || lexicon.placeWords.has(word) || COMMON_ENDING.test(word)) return true;
  // Plurals of known words ("Actions", "Settings").
  return word.endsWith('s') && lexicon.common.has(word.slice(0, -1));
}

/** Whether the token opens a sentence (after . ! ? a line break, or at the start). */
function sentenceStart(text: string, token: Token): boolean {
  for (let i = token.start - 1; i >= 0 && token.start - i < 8; i -= 1) {
    const char = text[i] ?? '';
    if (char === ' ' || char === '\t' || char === '"' || char === '“' || char === '\'' || char === '(' || char === '>' || char === '*' || char === '-') continue;
    return char === '.' || char === '!' || char === '?' || char === '\n' || char === ':';
  }
  return true;
}

/** Tokens i and i+1 are one name: one space between, or an initial with its dot ("J. Smith"). */
function joined(text: string, left: Token, right: Token): boolean {
  const gap = text.slice(left.end, right.start);
  return gap === ' ' || (gap === '. ' && (left.text.length === 1 || TITLES.has(left.lower)));
}

function placeAt(tokens: readonly Token[], from: number, to: number, text: string, lexicon: NerLexicon): number {
  // Longest place name starting at `from` within the run; returns its token count or 0.
  const head = tokens[from]?.lower ?? '';
  if (!lexicon.placeStarts.has(head)) return 0;
  for (let n = Math.min(lexicon.maxPlaceWords, to - from); n >= 1; n -= 1) {
    let name = tokens[from]?.lower ?? '';
    let ok = true;
    for (let k = 1; k < n; k += 1) {
      const left = tokens[from + k - 1];
      const right = tokens[from + k];
      if (left === undefined || right === undefined || text.slice(left.end, right.start) !== ' ') {
        ok = false;
        break;
      }
      name += ` ${right.lower}`;
    }
    if (ok && lexicon.places.has(name)) return n;
  }
  return 0;
}

/** The capitalised token i begins, extended over joined capitalised tokens (at most six). */
function runEnd(text: string, tokens: readonly Token[], i: number): number {
  let j = i + 1;
  while (j < tokens.length && tokens[j]!.capital && joined(text, tokens[j - 1]!, tokens[j]!) && j - i < 6) j += 1;
  return j;
}

function findPeopleAndPlaces(text: string, lexicon: NerLexicon, out: NerCandidate[]): void {
  const nameCues = cueEnds(NAME_CUES, text);
  const tokens = tokenize(text, nameCues);
  const placeCues = cueEnds(PLACE_CUES, text);
  const titleCache = new Map<number, boolean>();
  const isPlaceWord = (token: Token): boolean => lexicon.places.has(token.lower);
  let i = 0;
  while (i < tokens.length) {
    const token = tokens[i]!;
    const strongCue = nameCues.get(token.start);
    // "her maiden name is nyberg": after an explicit cue a lower-case single name still counts.
    if (!token.capital) {
      if (strongCue === true && LOWER_CASE_CUE.test(text.slice(Math.max(0, token.start - 24), token.start)) && !isCommon(token, lexicon) && !isPlaceWord(token) && token.text.length > 1) {
        out.push(candidate('PII.PERSON', 0.7, token.start, token.end, 'ner.person.cue', `PII.PERSON: "${token.text}" follows a naming cue`, 3));
      }
      i += 1;
      continue;
    }
    const j = runEnd(text, tokens, i);
    // "grew up in SUND", "moved here from Kenosha": a capitalised run after a place cue.
    if (placeCues.has(token.start) && placeAt(tokens, i, j, text, lexicon) === 0 && !isCommon(token, lexicon) && !lexicon.firstNames.has(token.lower)) {
      let end = i + 1;
      while (end < j && !isCommon(tokens[end]!, lexicon)) end += 1;
      out.push(candidate('PII.LOCATION', 0.6, token.start, tokens[end - 1]!.end, 'ner.location.cue', `PII.LOCATION: "${text.slice(token.start, tokens[end - 1]!.end)}" follows a place cue`, 4));
      i = end;
      continue;
    }
    let k = i;
    while (k < j) {
      const place = placeAt(tokens, k, j, text, lexicon);
      if (place > 0 && organisationFollows(text, tokens, k + place, j, lexicon)) {
        k = j;
        continue;
      }
      if (place > 0) {
        const first = tokens[k]!;
        const last = tokens[k + place - 1]!;
        const kind = lexicon.places.get(text.slice(first.start, last.end).toLowerCase().replace(/\s+/g, ' ')) ?? 'place';
        const score = kind === 'city' || kind === 'place' ? 0.7 : 0.8;
        out.push(candidate('PII.LOCATION', score, first.start, last.end, `ner.location.${kind}`, `PII.LOCATION: "${text.slice(first.start, last.end)}" is a known ${kind} name`, 4));
        k += place;
        continue;
      }
      const current = tokens[k]!;
      const titled = TITLES.has(current.lower) && k + 1 < j;
      if (titled || isCommon(current, lexicon)) {
        if (titled) {
          // Title + name: everything up to the run's end or the next common word.
          let end = k + 1;
          while (end < j && !isCommon(tokens[end]!, lexicon) && placeAt(tokens, end, j, text, lexicon) === 0) end += 1;
          if (end > k + 1) {
            out.push(candidate('PII.PERSON', 0.85, tokens[k + 1]!.start, tokens[end - 1]!.end, 'ner.person.title', `PII.PERSON: a name after the title "${current.text}"`, 2));
            k = end;
            continue;
          }
        }
        k += 1;
        continue;
      }
      // A name: consecutive tokens that are neither common words nor places.
      let end = k + 1;
      while (end < j && !isCommon(tokens[end]!, lexicon) && placeAt(tokens, end, j, text, lexicon) === 0) end += 1;
      const words = tokens.slice(k, end);
      const first = words[0]!;
      const last = words[words.length - 1]!;
      const known = words.filter((word) => lexicon.firstNames.has(word.lower) || lexicon.lastNames.has(word.lower)).length;
      const firstKnown = lexicon.firstNames.has(first.lower);
      const cue = nameCues.get(first.start);
      const allCaps = words.every((word) => word.text.length > 1 && word.text === word.text.toUpperCase());
      const atStart = sentenceStart(text, first);
      let score = 0;
      if (allCaps) score = 0;
      else if (words.length >= 2) score = firstKnown ? 0.85 : known > 0 ? 0.75 : cue !== undefined || !titleCaseLine(text, first.start, titleCache) ? 0.6 : 0;
      else if (cue === true) score = 0.75;
      else if (firstKnown) score = atStart ? 0.55 : 0.6;
      else if (first.text.length > 2 && !titleCaseLine(text, first.start, titleCache)) {
        // An unknown single word: a name when a person's verb follows ("Shovda is", "Kastner's")
        // or it stands in a list of such words ("founders: Kónya, Becker and Vasquez").
        const after = text.slice(last.end, last.end + 24);
        if (PERSON_VERB_AFTER.test(after)) score = 0.55;
        else if (!atStart && /^(?:,[ \t]+\p{Lu}[\p{L}'’-]*(?:,|[ \t]+and)[ \t]+\p{Lu}|[ \t]+and[ \t]+\p{Lu}[\p{L}'’-]*[ \t]+(?:were|are|have|had|met|went)\b)/u.test(after)) score = 0.55;
        else if (/(?:,[ \t]+|[ \t]and[ \t]+)$/u.test(text.slice(Math.max(0, first.start - 6), first.start)) && !atStart) score = 0.5;
      }
      if (cue === true && score > 0) score = Math.max(score, 0.8);
      if (score > 0 && organisationFollows(text, tokens, end, j, lexicon)) score = 0;
      if (score > 0) {
        const why = known > 0 ? `${known} of ${words.length} words are known names` : cue === true ? 'it follows a naming cue' : 'capitalised words unknown to the lexicon';
        out.push(candidate('PII.PERSON', score, first.start, last.end, 'ner.person', `PII.PERSON: "${text.slice(first.start, last.end)}": ${why}`, 3));
      }
      k = end;
    }
    i = j;
  }
}

// --- addresses -----------------------------------------------------------------------------------

const STREET_TYPES = 'Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl|Square|Sq|Terrace|Parkway|Pkwy|Highway|Hwy|Route|Trail|Circle|Cir|Crescent|Close|Alley|Row|Plaza|Bridge|Walk|Gardens';
const ADDRESS_PATTERNS: ReadonlyArray<{ name: string; regex: RegExp; score: number }> = [
  {
    // "3784 Archwood Avenue", "12 B North Main St."
    name: 'ner.location.street',
    regex: new RegExp(String.raw`(?<![\p{L}\p{N}])\d{1,6}[A-Za-z]?(?:[ \t]+\p{Lu}[\p{L}'’.-]{0,30}){1,4}[ \t]+(?:${STREET_TYPES})\b\.?`, 'gu'),
    score: 0.8,
  },
  {
    // "Rue de Virton 38", "Via Roma 131", "ul. Cicha 86", "Piazza Rezzonico 35"
    name: 'ner.location.street',
    regex: /(?<![\p{L}\p{N}])(?:Rue|Via|Viale|Piazza|Calle|Avenida|Av\.|Rua|Praça|Plaza|Carrer|ul\.|Ulica|Avenue|Boulevard|Chemin|Allée|Strada|Corso|Paseo)(?:[ \t]+[\p{L}'’.-]{1,30}){1,4}[ \t]+\d{1,5}(?![\p{L}\p{N}])/gu,
    score: 0.8,
  },
  {
    // Street names that carry their type as a suffix: "Wingertweg 126", "Laukaantie 80", "Nybyvägen 65".
    name: 'ner.location.street',
    regex: /(?<![\p{L}\p{N}])\p{L}[\p{L}]{1,30}(?:weg|straße|strasse|gasse|platz|allee|ring|damm|ufer|katu|tie|kuja|polku|vägen|gatan|gata|gate|veien|vej|gade|laan|straat|plein|dreef|utca|út|cesta|iela|gatvė)[ \t]+\d{1,5}(?![\p{L}\p{N}])/giu,
    score: 0.8,
  },
  { name: 'ner.location.unit', regex: /(?<![\p{L}\p{N}])(?:Apt\.?|Apartment|Suite|Ste\.?)[ \t]*#?\d{1,5}(?![\p{L}\p{N}])/giu, score: 0.7 },
  { name: 'ner.location.po_box', regex: /(?<![\p{L}\p{N}])(?:P\.?[ \t]?O\.?[ \t]?Box|PSC[ \t]\d{1,5},?[ \t]Box)[ \t]+\d{1,6}(?![\p{L}\p{N}])/giu, score: 0.8 },
];

function findAddresses(text: string, out: NerCandidate[]): void {
  for (const { name, regex, score } of ADDRESS_PATTERNS) {
    regex.lastIndex = 0;
    for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
      out.push(candidate('PII.LOCATION', score, match.index, match.index + match[0].length, name, `PII.LOCATION: street address shape "${match[0]}"`, 1));
    }
  }
}

// --- dates and times -----------------------------------------------------------------------------

const MONTH = 'January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec';
const WEEKDAY = 'Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday';
const DATE_PATTERNS: ReadonlyArray<{ name: string; regex: RegExp; score: number; check?: (match: RegExpExecArray) => boolean }> = [
  { name: 'ner.date.iso', regex: /(?<![\w.-])(?:1[6-9]|20)\d{2}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])(?:[ T](?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d)?)?(?![\w-])/g, score: 0.85 },
  {
    name: 'ner.date.numeric',
    regex: /(?<![\w./-])(\d{1,2})([/.-])(\d{1,2})\2((?:1[6-9]|20)\d{2}|\d{2})(?![\w-]|[./]\d)/g,
    score: 0.85,
    check: (match) => {
      const a = Number(match[1]);
      const b = Number(match[3]);
      return a >= 1 && b >= 1 && ((a <= 12 && b <= 31) || (b <= 12 && a <= 31));
    },
  },
  { name: 'ner.date.month_day', regex: new RegExp(String.raw`\b(?:${MONTH})\.?[ \t]+\d{1,2}(?:st|nd|rd|th)?(?:,?[ \t]+(?:1[6-9]|20)\d{2})?\b`, 'g'), score: 0.75 },
  { name: 'ner.date.day_month', regex: new RegExp(String.raw`\b\d{1,2}(?:st|nd|rd|th)?[ \t]+(?:of[ \t]+)?(?:${MONTH})\.?(?:,?[ \t]+(?:1[6-9]|20)\d{2})?\b`, 'g'), score: 0.75 },
  { name: 'ner.date.month_year', regex: new RegExp(String.raw`\b(?:${MONTH})[ \t]+(?:1[6-9]|20)\d{2}\b`, 'g'), score: 0.75 },
  { name: 'ner.date.weekday', regex: new RegExp(String.raw`\b(?:${WEEKDAY})s?\b`, 'g'), score: 0.6 },
  { name: 'ner.date.time', regex: /(?<![\w:.])(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?:[ \t]?(?:[AaPp]\.?[Mm]\.?))?(?![\w:])/g, score: 0.6 },
  { name: 'ner.date.time', regex: /(?<![\w:.])(?:1[0-2]|0?[1-9])[ \t]?(?:am|pm|a\.m\.|p\.m\.)(?!\w)/gi, score: 0.6 },
  { name: 'ner.date.year', regex: /\b(?:in|since|from|until|till|by|of|during|year|circa|around|born|founded|established|before|after)[ \t]+(?:the[ \t]+)?((?:1[6-9]|20)\d{2})s?\b/gi, score: 0.6 },
  { name: 'ner.date.relative', regex: /\b(?:yesterday|tomorrow|tonight|(?:last|next|this)[ \t]+(?:week|weekend|month|year|morning|evening|night|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)|\d{1,3}[ \t]+(?:days?|weeks?|months?|years?)[ \t]+ago)\b/gi, score: 0.55 },
];

function findDates(text: string, out: NerCandidate[]): void {
  for (const { name, regex, score, check } of DATE_PATTERNS) {
    regex.lastIndex = 0;
    for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
      if (check !== undefined && !check(match)) continue;
      // The year pattern reports the year only, not the cue word before it.
      const year = name === 'ner.date.year' ? match[1] : undefined;
      const start = year === undefined ? match.index : match.index + match[0].indexOf(year);
      const end = year === undefined ? match.index + match[0].length : start + year.length;
      out.push(candidate('PII.DATE_TIME', score, start, end, name, `PII.DATE_TIME: date or time "${text.slice(start, end)}"`, 5));
    }
  }
}

// --- wallets and licences ------------------------------------------------------------------------

const WALLET_PATTERNS: ReadonlyArray<{ name: string; regex: RegExp }> = [
  { name: 'bitcoin-base58check', regex: /(?<![\w])[13][1-9A-HJ-NP-Za-km-z]{25,34}(?!\w)/g },
  { name: 'bitcoin-bech32', regex: /(?<![\w])(?:bc|tb|BC|TB)1[02-9ac-hj-np-zAC-HJ-NP-Z]{6,87}(?!\w)/g },
  { name: 'ethereum-address', regex: /(?<![\w])0x[0-9a-fA-F]{40}(?!\w)/g },
];

function findWallets(text: string, out: NerCandidate[]): void {
  for (const { name, regex } of WALLET_PATTERNS) {
    regex.lastIndex = 0;
    for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
      const value = match[0];
      let score = 0;
      let check = '';
      if (name === 'bitcoin-base58check') {
        if (bitcoinBase58Valid(value)) [score, check] = [0.95, 'base58check: ok'];
      } else if (name === 'bitcoin-bech32') {
        if (bitcoinBech32Valid(value)) [score, check] = [0.95, 'bech32: ok'];
      } else {
        const hex = value.slice(2);
        const mixed = hex !== hex.toLowerCase() && hex !== hex.toUpperCase();
        if (!mixed) [score, check] = [0.75, 'eip-55: single case, no checksum'];
        else if (ethereumChecksumValid(hex)) [score, check] = [0.95, 'eip-55: ok'];
      }
      if (score > 0) out.push(candidate('PII.CRYPTO_WALLET', score, match.index, match.index + value.length, `ner.wallet.${name}`, `PII.CRYPTO_WALLET: ${name} address; ${check}`, 0, check));
    }
  }
}

const LABEL_GAP = String.raw`[ \t]*(?:#|no\.?|nr\.?|num(?:ber)?)?[ \t]*(?:is[ \t]+)?[:#=]?[ \t]*`;
const DRIVER_LICENSE = new RegExp(
  String.raw`(?:\b(?:driver'?s?|drivers|driving)[ \t]+licen[cs]e|\bDL\b|\bD\/L\b|\bdriver[ \t]+id)${LABEL_GAP}([A-Za-z]{0,3}[ -]?\d[\d -]{3,17}\d|[A-Za-z]\d{4,14})(?![\w-])`,
  'gi',
);
const DEA_NUMBER = new RegExp(String.raw`\bDEA(?:[ \t]+(?:registration|reg\.?))?${LABEL_GAP}([A-Za-z][A-Za-z9]\d{7})(?!\w)`, 'g');
const NPI_NUMBER = new RegExp(String.raw`\b(?:NPI|national[ \t]+provider[ \t]+identifier)${LABEL_GAP}(\d{10})(?!\w)`, 'gi');
const MEDICAL_LICENSE = new RegExp(String.raw`\b(?:medical|physician|nursing|pharmacy|pharmacist)[ \t]+licen[cs]e${LABEL_GAP}([A-Za-z]{0,3}-?\d{4,10})(?![\w-])`, 'gi');

function findLicences(text: string, out: NerCandidate[]): void {
  const valueSpan = (match: RegExpExecArray): [number, number] => {
    const value = match[1] ?? '';
    const start = match.index + match[0].length - value.length;
    return [start, start + value.length];
  };
  DRIVER_LICENSE.lastIndex = 0;
  for (let match = DRIVER_LICENSE.exec(text); match !== null; match = DRIVER_LICENSE.exec(text)) {
    const [start, end] = valueSpan(match);
    // "DL" alone is an abbreviation of many things: only in capitals and with a value that has digits.
    if (/^dl$/i.test(match[0].slice(0, 2)) && !match[0].startsWith('DL')) continue;
    out.push(candidate('PII.US_DRIVER_LICENSE', 0.85, start, end, 'ner.license.driver', 'PII.US_DRIVER_LICENSE: a number after a driver\'s licence label', 0, 'label: ok'));
  }
  DEA_NUMBER.lastIndex = 0;
  for (let match = DEA_NUMBER.exec(text); match !== null; match = DEA_NUMBER.exec(text)) {
    const [start, end] = valueSpan(match);
    if (!deaValid(match[1] ?? '')) continue;
    out.push(candidate('PII.MEDICAL_LICENSE', 0.9, start, end, 'ner.license.dea', 'PII.MEDICAL_LICENSE: DEA registration number', 0, 'dea-checksum: ok'));
  }
  NPI_NUMBER.lastIndex = 0;
  for (let match = NPI_NUMBER.exec(text); match !== null; match = NPI_NUMBER.exec(text)) {
    const [start, end] = valueSpan(match);
    if (!npiValid(match[1] ?? '')) continue;
    out.push(candidate('PII.MEDICAL_LICENSE', 0.9, start, end, 'ner.license.npi', 'PII.MEDICAL_LICENSE: NPI number', 0, 'npi-luhn: ok'));
  }
  MEDICAL_LICENSE.lastIndex = 0;
  for (let match = MEDICAL_LICENSE.exec(text); match !== null; match = MEDICAL_LICENSE.exec(text)) {
    const [start, end] = valueSpan(match);
    out.push(candidate('PII.MEDICAL_LICENSE', 0.8, start, end, 'ner.license.medical', 'PII.MEDICAL_LICENSE: a number after a medical licence label', 0, 'label: ok'));
  }
}

/** Every candidate of every rule; the detector removes overlaps. */
export function findNerCandidates(text: string, lexicon: NerLexicon): NerCandidate[] {
  const out: NerCandidate[] = [];
  findWallets(text, out);
  findLicences(text, out);
  findAddresses(text, out);
  findDates(text, out);
  findPeopleAndPlaces(text, lexicon, out);
  return out;
}
