// Hot path: no I/O here. Two word-list validators over one tokeniser (linear: one regex pass with
// no nested quantifiers over overlapping classes, then set look-ups):
// - rails.catalog.toxic_language (SAFETY.TOXIC): insults aimed at the reader ("you [are a] idiot",
//   "you look pathetic") and hostile phrases ("shut the fuck up", "nobody likes you"). A lone
//   insult word ("a stupid question", "dumb terminal", "what you did was stupid") is not reported:
//   only the words between "you" and the insult that cannot change who is meant ("are", "a", "so",
//   "such", "complete", …) may stand between them.
// - rails.catalog.drugs (SAFETY.DRUGS): controlled drugs named with a cue of getting, making or
//   taking them ("where to buy cocaine", "cook meth"), 0.85; a bare mention is 0.4, and prevention,
//   treatment or news context lowers it. Ambiguous street names ("ice", "speed", "coke", "weed")
//   are not listed.
import type { Detection } from '../types.js';
import { MAX_DETECTIONS, type CatalogValidator } from './catalog.js';

interface Token {
  word: string;
  start: number;
  end: number;
  /** A sentence or clause break (. ! ? ; : or a new line) stands before it. */
  breakBefore: boolean;
}

const WORD = /[\p{L}\p{N}]+(?:['’]\p{L}+)*/gu;
/** . ! ? ; : and a new line end a clause. */
const BREAKS = new Set([0x2e, 0x21, 0x3f, 0x3b, 0x3a, 0x0a]);
/** Tokens kept per text: a lexicon validator reads the first 1M characters' words at most. */
const MAX_TOKENS = 250_000;

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let last = 0;
  WORD.lastIndex = 0;
  for (let match = WORD.exec(text); match !== null && tokens.length < MAX_TOKENS; match = WORD.exec(text)) {
    const start = match.index;
    let breakBefore = false;
    for (let i = last; i < start && !breakBefore; i += 1) breakBefore = BREAKS.has(text.charCodeAt(i));
    const word = match[0].toLowerCase();
    tokens.push({ word: word.includes('’') ? word.replace(/’/g, "'") : word, start, end: start + match[0].length, breakBefore });
    last = start + match[0].length;
  }
  return tokens;
}

const words = (list: string): Set<string> => new Set(list.split(/\s+/).filter((word) => word !== ''));

// ---------------------------------------------------------------- toxic language

const SECOND_PERSON = words("you you're youre u ya");
const INSULTS = words(`
  idiot idiots moron morons imbecile imbeciles cretin cretins dimwit halfwit nitwit dumbass dumbasses
  stupid dumb retard retarded loser losers pathetic worthless useless scum scumbag trash garbage
  jerk creep clown clowns brainless braindead ignorant incompetent disgusting pig pigs parasite
  vermin freak failure fool fools airhead numbskull bonehead waste`);
/** Words that may stand between "you" and the insult without changing who is meant. */
const FILLERS = words(`
  are re r is be being been were look looks sound sounds seem seems act acting so such a an the
  most really truly just complete total absolute utter little big fucking freaking bloody damn
  stinking useless pathetic stupid dumb such an incredibly very`);
/** Hostile phrases as word sequences, with their score. */
const HOSTILE: ReadonlyArray<[string, number]> = [
  ['shut the fuck up', 0.9],
  ['stfu', 0.8],
  ['fuck you', 0.85],
  ['fuck off', 0.85],
  ['screw you', 0.75],
  ['go to hell', 0.7],
  ['go die', 0.85],
  ['drop dead', 0.75],
  ['kill yourself', 0.95],
  ['kys', 0.85],
  ['i hate you', 0.75],
  ['nobody likes you', 0.8],
  ['no one likes you', 0.8],
  ['nobody cares about you', 0.8],
  ['piss off', 0.7],
  ['shut up', 0.5],
];
const HOSTILE_BY_FIRST = new Map<string, Array<{ words: string[]; score: number; text: string }>>();
for (const [phrase, score] of HOSTILE) {
  const parts = phrase.split(' ');
  const list = HOSTILE_BY_FIRST.get(parts[0]!) ?? [];
  list.push({ words: parts, score, text: phrase });
  HOSTILE_BY_FIRST.set(parts[0]!, list);
}
/** At most this many fillers between "you" and the insult. */
const MAX_FILLERS = 4;

export function checkToxic(text: string): Detection[] {
  const tokens = tokenize(text);
  const found: Detection[] = [];
  let coveredTo = -1;
  for (let i = 0; i < tokens.length && found.length < MAX_DETECTIONS; i += 1) {
    const token = tokens[i]!;
    for (const phrase of HOSTILE_BY_FIRST.get(token.word) ?? []) {
      const n = phrase.words.length;
      if (i + n > tokens.length) continue;
      let same = true;
      for (let k = 1; k < n && same; k += 1) same = tokens[i + k]!.word === phrase.words[k] && !tokens[i + k]!.breakBefore;
      if (!same) continue;
      const end = tokens[i + n - 1]!.end;
      found.push({ entity: 'SAFETY.TOXIC', score: phrase.score, start: token.start, end, pattern: `hostile phrase "${phrase.text}"`, explanation: `hostile phrase aimed at the reader ("${phrase.text}")` });
      coveredTo = end;
      break;
    }
    if (!SECOND_PERSON.has(token.word) || token.start < coveredTo) continue;
    // "you" [fillers] insult, within one clause; the last insult of a run ("you stupid useless idiot") counts.
    let last = -1;
    for (let k = i + 1; k < tokens.length && k <= i + 1 + MAX_FILLERS; k += 1) {
      const next = tokens[k]!;
      if (next.breakBefore) break;
      if (INSULTS.has(next.word)) last = k;
      if (!FILLERS.has(next.word) && !INSULTS.has(next.word)) break;
    }
    if (last < 0) continue;
    const insult = tokens[last]!;
    found.push({
      entity: 'SAFETY.TOXIC',
      score: 0.85,
      start: token.start,
      end: insult.end,
      pattern: `insult aimed at "you" ("${insult.word}")`,
      explanation: `an insult aimed at the reader ("you … ${insult.word}")`,
    });
    coveredTo = insult.end;
  }
  return found;
}

// ---------------------------------------------------------------- drugs

const DRUGS = words(`
  cocaine heroin methamphetamine meth fentanyl carfentanil mdma lsd psilocybin ketamine ghb pcp
  crack opium amphetamine amphetamines mescaline dmt cannabis marijuana oxycodone oxycontin xanax
  percocet adderall molly shrooms lean codeine morphine mephedrone krokodil desomorphine`);
/** Street names that also have ordinary meanings count only right after a cue ("smoke crack", not "crack a password and sell it"). */
const WEAK_DRUGS = words('crack molly lean');
const ACQUIRE_CUES = words(`
  buy buying sell selling score scoring cook cooking synthesize synthesise synthesizing synthesising
  synthesis make making produce producing extract extracting grow growing smuggle smuggling dealer
  dealers snort snorting inject injecting smoke smoking shoot plug stash ounce ounces gram grams
  recipe precursor precursors lab vendor darknet darkweb order ordering lace laced`);
const BENIGN_CUES = words(`
  overdose overdoses addiction addicted rehab recovery narcan naloxone prevention prevent treatment
  treat policy law laws legislation news report reported study research statistics awareness
  dangers danger risks risk epidemic crisis doctor prescribed prescription pharmacist`);
/** Cues this many words either side of the drug count. */
const CUE_WINDOW = 8;

export function checkDrugs(text: string): Detection[] {
  const tokens = tokenize(text);
  const benign = tokens.some((token) => BENIGN_CUES.has(token.word));
  const found: Detection[] = [];
  for (let i = 0; i < tokens.length && found.length < MAX_DETECTIONS; i += 1) {
    const token = tokens[i]!;
    if (!DRUGS.has(token.word)) continue;
    let cue: string | null = null;
    for (let k = Math.max(0, i - CUE_WINDOW); k <= Math.min(tokens.length - 1, i + CUE_WINDOW) && cue === null; k += 1) {
      if (k !== i && ACQUIRE_CUES.has(tokens[k]!.word)) cue = tokens[k]!.word;
    }
    if (WEAK_DRUGS.has(token.word)) {
      const before = [tokens[i - 1], tokens[i - 2]].filter((t): t is Token => t !== undefined);
      if (!before.some((t) => ACQUIRE_CUES.has(t.word))) continue;
    }
    let score = cue === null ? 0.4 : 0.85;
    if (benign && cue === null) score = 0.2;
    else if (benign) score = 0.6;
    found.push({
      entity: 'SAFETY.DRUGS',
      score,
      start: token.start,
      end: token.end,
      pattern: `drug "${token.word}"`,
      explanation:
        cue === null
          ? `a controlled drug is named ("${token.word}")${benign ? ' in prevention, treatment or news context' : ''}`
          : `a controlled drug is named with a cue of getting, making or using it ("${token.word}", "${cue}")${benign ? '; prevention, treatment or news context is near' : ''}`,
    });
  }
  return found;
}

const LEXICON_SURFACES = ['input', 'output', 'retrieved', 'tool_result', 'completion', 'agent_message', 'memory_write'] as const;

export const toxicLanguage: CatalogValidator = {
  name: 'toxic_language',
  entity: 'SAFETY.TOXIC',
  surfaces: LEXICON_SURFACES,
  costRank: 10,
  available: () => ({ available: true }),
  check: (text) => checkToxic(text),
};

export const drugs: CatalogValidator = {
  name: 'drugs',
  entity: 'SAFETY.DRUGS',
  surfaces: LEXICON_SURFACES,
  costRank: 10,
  available: () => ({ available: true }),
  check: (text) => checkDrugs(text),
};
