// Hot path: no I/O here. disclosure.answer: what an answer (surface `output`) commits to,
// announces, omits or discloses — binding commitments, adverse actions, a missing AI disclosure,
// a broken register, and what the subject's entitlements say it may not see (see README.md).
// Phrase lists are literal alternations; the entitlement check compares word 6-grams of the
// restricted chunks with the answer's, so every check is linear in the text and the evidence.
import type { Detection, DetectContext, Detector } from '../types.js';
import { derive, readEvidence, type Evidence } from './evidence.js';

export const DISCLOSURE_ENTITIES = {
  commitment: 'DISCLOSURE.BINDING_COMMITMENT',
  adverse: 'DISCLOSURE.ADVERSE_ACTION',
  register: 'DISCLOSURE.REGISTER_BREACH',
  entitlement: 'DISCLOSURE.ENTITLEMENT',
  inference: 'DISCLOSURE.INFERENCE',
  aggregation: 'DISCLOSURE.AGGREGATION',
} as const;

/** Distinct people's contact details (e-mail addresses, phone numbers) in one answer that make an aggregation. */
export const AGGREGATION_THRESHOLD = 3;
/** Consecutive words an answer must share with a restricted chunk to count as disclosing it. */
export const SHINGLE_WORDS = 6;
const MAX_PER_CHECK = 20;
const MAX_RESTRICTED_WORDS = 500_000;

const COMMITMENT =
  /\b(?:(?:we|i)(?:'ll| will| shall| can| am going to| are going to) (?:guarantee|promise|waive|refund|reimburse|compensate|credit|cover the cost)|(?:we|i) (?:guarantee|promise|commit to)|guaranteed (?:to|approval|refund|delivery)|you(?:'ll| will) (?:receive|get) a (?:full |partial )?(?:refund|reimbursement|credit|compensation)|you(?:'ll| will) be (?:refunded|reimbursed|compensated|credited)|(?:the|your) (?:fee|charge|penalty) (?:has been|will be) waived)\b/giu;
const ADVERSE =
  /\b(?:(?:your|the) (?:account|claim|service|subscription|policy|application|membership|coverage|card|contract|loan|request|order|benefits?)s? (?:has been|have been|is being|will be|was|were|is|are) (?:denied|declined|rejected|terminated|cancell?ed|suspended|closed|revoked|frozen|discontinued|deactivated|blocked)|we (?:have |are |will |'ve |'re )?(?:denied|denying|deny|terminated|terminating|terminate|cancell?ed|cancell?ing|cancel|suspended|suspending|suspend|closed|closing|close|revoked|revoking|revoke) (?:your|the) (?:account|claim|service|subscription|policy|application|membership|coverage|card|contract|loan|benefits?))\b/giu;
const PROFANITY = /\b(?:fuck\w{0,6}|shit\w{0,3}|damn\w{0,3}|crap\w{0,2}|bullshit|ass(?:hole)?s?|bitch\w{0,3}|bastard\w{0,1}|wtf|stfu)\b/giu;
const SLANG = /\b(?:lol|lmao|rofl|omg|gonna|wanna|gotta|ya|yall|y'all|dude|bro|btw|tbh|idk|imo|kinda|sorta|yep|yup|nope|ur|thx|pls|plz|cuz|ain't|nah|yeah|awesome sauce)\b/giu;
const EMOJI = /\p{Extended_Pictographic}/gu;
const PHONE = /\+?\d[\d\s().-]{6,18}\d/gu;

/** Words that name a conclusion about a data class: a restricted class named in an answer is inferred. */
const INFERENCE_TERMS: ReadonlyArray<{ classes: readonly string[]; pattern: RegExp }> = [
  {
    classes: ['health', 'medical', 'phi'],
    pattern:
      /\b(?:diagnosed with|diabetes|diabetic|cancer|hiv|aids|pregnan\w{0,4}|depression|anxiety disorder|bipolar|schizophreni\w{0,2}|dementia|alzheimer'?s|epilep\w{0,4}|chemotherapy|terminal(?:ly)? ill|disabilit\w{0,3}|rehab|addiction|mental illness)\b/giu,
  },
  {
    classes: ['financial', 'finance', 'credit'],
    pattern: /\b(?:bankrupt\w{0,3}|insolven\w{0,3}|foreclos\w{0,4}|in debt|defaulted|in arrears|collections agency|credit score of|salary of|earns \$?\d)\b/giu,
  },
  {
    classes: ['criminal', 'criminal_record'],
    pattern: /\b(?:convicted|criminal record|arrested|on parole|on probation|incarcerated|felony|felon)\b/giu,
  },
  {
    classes: ['sexual_orientation', 'religion', 'ethnicity', 'special_category'],
    pattern: /\b(?:is (?:gay|lesbian|bisexual|transgender|muslim|jewish|christian|hindu|catholic)|sexual orientation|religious beliefs?)\b/giu,
  },
];

function detect(text: string, context: DetectContext): Detection[] {
  const evidence = readEvidence(context.evidence);
  const found: Detection[] = [];
  if (evidence === null || evidence.requirements.noCommitments) commitments(text, found);
  adverseActions(text, found);
  if (evidence === null) return found;
  if (evidence.requirements.register === 'formal') register(text, found);
  if (evidence.hasEntitlements && evidence.mayNotSee.size > 0) {
    const disclosed = restrictedText(text, evidence, found);
    inferences(text, evidence, disclosed, found);
  }
  if (evidence.hasEntitlements) aggregation(text, found);
  return found;
}

function collect(text: string, pattern: RegExp, entity: string, score: number, name: string, why: (said: string) => string, found: Detection[]): void {
  let count = 0;
  for (const match of text.matchAll(pattern)) {
    if (++count > MAX_PER_CHECK) return;
    found.push({ entity, score, start: match.index, end: match.index + match[0].length, pattern: name, explanation: why(match[0]) });
  }
}

function commitments(text: string, found: Detection[]): void {
  collect(text, COMMITMENT, DISCLOSURE_ENTITIES.commitment, 0.8, 'commitment', (said) => `The answer makes a binding commitment ("${said}") the agent may not make.`, found);
}

function adverseActions(text: string, found: Detection[]): void {
  collect(text, ADVERSE, DISCLOSURE_ENTITIES.adverse, 0.8, 'adverse_action', (said) => `The answer announces an adverse action ("${said}"), which a person must decide and communicate.`, found);
}

function register(text: string, found: Detection[]): void {
  collect(text, PROFANITY, DISCLOSURE_ENTITIES.register, 0.9, 'register.profanity', (said) => `Profanity ("${said}") in an answer that must be formal.`, found);
  const slang = [...text.matchAll(SLANG)].slice(0, MAX_PER_CHECK);
  if (slang.length >= 2) {
    const first = slang[0] as RegExpExecArray;
    found.push({
      entity: DISCLOSURE_ENTITIES.register,
      score: 0.7,
      start: first.index,
      end: first.index + first[0].length,
      pattern: 'register.slang',
      explanation: `Slang (${slang.map((match) => `"${match[0]}"`).slice(0, 5).join(', ')}) in an answer that must be formal.`,
    });
  }
  const emoji = [...text.matchAll(EMOJI)].slice(0, MAX_PER_CHECK);
  if (emoji.length >= 3) {
    const first = emoji[0] as RegExpExecArray;
    found.push({
      entity: DISCLOSURE_ENTITIES.register,
      score: 0.7,
      start: first.index,
      end: first.index + first[0].length,
      pattern: 'register.emoji',
      explanation: `${emoji.length}${emoji.length === MAX_PER_CHECK ? '+' : ''} emoji in an answer that must be formal.`,
    });
  }
}

interface Word {
  value: string;
  start: number;
  end: number;
}

const WORD = /[\p{L}\p{N}][\p{L}\p{N}@'’_-]*/gu;

function words(text: string, limit: number): Word[] {
  const list: Word[] = [];
  for (const match of text.matchAll(WORD)) {
    if (list.length >= limit) break;
    list.push({ value: match[0].toLowerCase(), start: match.index, end: match.index + match[0].length });
  }
  return list;
}

const restricted = (classes: readonly string[], evidence: Evidence): string | undefined => classes.find((name) => evidence.mayNotSee.has(name));

interface Origin {
  source: string;
  klass: string;
}

interface RestrictedIndex {
  /** Word 6-grams of restricted chunks. */
  shingles: Map<string, Origin>;
  /** First words of the shingles: an answer word that starts none needs no key built. */
  starts: Set<string>;
  /** Long numbers and e-mail addresses: short enough to slip under a 6-gram, identifying on their own. */
  identifiers: Map<string, Origin>;
}

/** Spans of the answer copied from chunks of a class the subject may not see; returns them. */
function restrictedText(text: string, evidence: Evidence, found: Detection[]): Array<[number, number]> {
  const index = derive(evidence, 'disclosure.restricted', () => restrictedIndex(evidence));
  if (index.shingles.size === 0 && index.identifiers.size === 0) return [];
  return spansOf(text, index, found);
}

function restrictedIndex(evidence: Evidence): RestrictedIndex {
  const shingles = new Map<string, Origin>();
  const starts = new Set<string>();
  const identifiers = new Map<string, Origin>();
  let budget = MAX_RESTRICTED_WORDS;
  for (const chunk of evidence.chunks) {
    const klass = restricted(chunk.classes, evidence);
    if (klass === undefined || budget <= 0) continue;
    const list = words(chunk.text, budget).map((word) => word.value);
    budget -= list.length;
    for (let index = 0; index + SHINGLE_WORDS <= list.length; index += 1) {
      shingles.set(list.slice(index, index + SHINGLE_WORDS).join(' '), { source: chunk.source, klass });
      starts.add(list[index] as string);
    }
    for (const value of list) if (value.includes('@') || /\d{4,}/u.test(value)) identifiers.set(value, { source: chunk.source, klass });
  }
  return { shingles, starts, identifiers };
}

function spansOf(text: string, index: RestrictedIndex, found: Detection[]): Array<[number, number]> {
  const { shingles, starts, identifiers } = index;
  const answer = words(text, 400_000);
  const spans: Array<[number, number, { source: string; klass: string }]> = [];
  const extend = (start: number, end: number, origin: { source: string; klass: string }) => {
    const last = spans[spans.length - 1];
    if (last !== undefined && start <= last[1]) last[1] = Math.max(last[1], end);
    else spans.push([start, end, origin]);
  };
  for (let index = 0; index < answer.length; index += 1) {
    const word = answer[index] as Word;
    const id = identifiers.get(word.value);
    if (id !== undefined) extend(word.start, word.end, id);
    if (index + SHINGLE_WORDS > answer.length || !starts.has(word.value)) continue;
    const key = answer
      .slice(index, index + SHINGLE_WORDS)
      .map((item) => item.value)
      .join(' ');
    const origin = shingles.get(key);
    if (origin !== undefined) extend(word.start, (answer[index + SHINGLE_WORDS - 1] as Word).end, origin);
  }
  for (const [start, end, origin] of spans.slice(0, MAX_PER_CHECK)) {
    found.push({
      entity: DISCLOSURE_ENTITIES.entitlement,
      score: 0.9,
      start,
      end,
      pattern: `class.${origin.klass}`,
      explanation: `The answer repeats text from ${origin.source}, a chunk of class ${origin.klass}, which the subject may not see.`,
    });
  }
  return spans.map(([start, end]) => [start, end]);
}

function inferences(text: string, evidence: Evidence, disclosed: ReadonlyArray<[number, number]>, found: Detection[]): void {
  for (const { classes, pattern } of INFERENCE_TERMS) {
    const klass = restricted(classes, evidence);
    if (klass === undefined) continue;
    let count = 0;
    for (const match of text.matchAll(pattern)) {
      // Copied text is reported as disclosed already; an inference is what the answer adds.
      if (disclosed.some(([start, end]) => match.index >= start && match.index < end)) continue;
      if (++count > MAX_PER_CHECK) break;
      found.push({
        entity: DISCLOSURE_ENTITIES.inference,
        score: 0.75,
        start: match.index,
        end: match.index + match[0].length,
        pattern: `class.${klass}`,
        explanation: `The answer states "${match[0]}", a conclusion of class ${klass}, which the subject may not see.`,
      });
    }
  }
}

/** E-mail addresses by a plain scan around each `@`: no pattern can backtrack over a long run. */
function emails(text: string): Array<[string, number, number]> {
  const found: Array<[string, number, number]> = [];
  const local = /[\p{L}\p{N}._%+-]/u;
  const domain = /[\p{L}\p{N}.-]/u;
  for (let at = text.indexOf('@'); at !== -1 && found.length < 1000; at = text.indexOf('@', at + 1)) {
    let start = at;
    while (start > 0 && at - start < 64 && local.test(text[start - 1] as string)) start -= 1;
    let end = at + 1;
    while (end < text.length && end - at < 255 && domain.test(text[end] as string)) end += 1;
    while (end > at + 1 && text[end - 1] === '.') end -= 1;
    const host = text.slice(at + 1, end);
    if (start < at && host.includes('.')) found.push([text.slice(start, end).toLowerCase(), start, end]);
  }
  return found;
}

function aggregation(text: string, found: Detection[]): void {
  const contacts = new Map<string, [number, number]>();
  for (const [value, start, end] of emails(text)) if (!contacts.has(value)) contacts.set(value, [start, end]);
  let phones = 0;
  for (const match of text.matchAll(PHONE)) {
    if (++phones > 1000) break;
    const digits = match[0].replace(/\D/gu, '');
    // Dates and short codes are not phone numbers.
    if (/^\d{4}-\d{2}-\d{2}/u.test(match[0].trim())) continue;
    if (digits.length >= 9 && digits.length <= 15 && !contacts.has(digits)) contacts.set(digits, [match.index, match.index + match[0].length]);
  }
  if (contacts.size < AGGREGATION_THRESHOLD) return;
  const spans = [...contacts.values()];
  found.push({
    entity: DISCLOSURE_ENTITIES.aggregation,
    score: 0.75,
    start: Math.min(...spans.slice(0, 1000).map(([start]) => start)),
    end: Math.max(...spans.slice(0, 1000).map(([, end]) => end)),
    pattern: 'contacts',
    explanation: `The answer lists ${contacts.size} distinct contact details (e-mail addresses, phone numbers), at least ${AGGREGATION_THRESHOLD} people's, in one answer.`,
  });
}

export const disclosureAnswer: Detector = {
  key: 'disclosure.answer',
  surfaces: ['output'],
  entityTypes: Object.values(DISCLOSURE_ENTITIES),
  costRank: 6,
  available: () => ({ available: true }),
  detect,
};
