// The escalation conditions (README.md "Conditions"): their parameters, how a policy's conditions
// object is checked, and the deterministic evaluation of one turn against the session's turns since
// its last hand-off. No I/O: the one fact that needs the database (a held tool call) is passed in.
// Every scan is linear: phrase tables through one Aho-Corasick pass over folded text, configured
// phrases by substring search over the same folded text, counts over bounded lists.
import { LiteralAutomaton } from '../../engine/detectors/literals/automaton.js';
import { safetyLexicon } from '../../engine/detectors/safety/lexicon.js';
import { DISCLOSURE_ENTITIES, disclosureAnswer } from '../../engine/detectors/integrity/disclosure.js';
import type { DetectContext } from '../../engine/detectors/types.js';
import type { FieldError } from '../../infra/http/problems.js';
import { FRUSTRATION_PHRASES, HUMAN_REQUEST_PHRASES } from './phrases.js';

export const CONDITION_NAMES = ['human_request', 'repeated_failures', 'low_confidence', 'frustration', 'sensitive_topic', 'binding_commitment', 'held_tool_call'] as const;
export type ConditionName = (typeof CONDITION_NAMES)[number];

/** The conditions of a policy with their parameters; a condition left out does not apply. */
export interface ConditionSettings {
  human_request?: { phrases: string[] };
  repeated_failures?: { count: number };
  low_confidence?: { threshold: number };
  frustration?: { window: number; threshold: number };
  sensitive_topic?: { self_harm: boolean; self_harm_min_score: number; topics: string[] };
  binding_commitment?: Record<string, never>;
  held_tool_call?: Record<string, never>;
}

/** Every condition on, with its default parameters: the built-in default policy. */
export const DEFAULT_CONDITIONS: Required<ConditionSettings> = {
  human_request: { phrases: [] },
  repeated_failures: { count: 2 },
  low_confidence: { threshold: 0.4 },
  frustration: { window: 3, threshold: 2 },
  sensitive_topic: { self_harm: true, self_harm_min_score: 0.5, topics: [] },
  binding_commitment: {},
  held_tool_call: {},
};

const MAX_CONFIGURED_PHRASES = 50;
const MAX_PHRASE_LENGTH = 100;

/** One parameter: its kind and bounds. */
type ParameterSpec = { kind: 'integer'; min: number; max: number } | { kind: 'number'; min: number; max: number } | { kind: 'boolean' } | { kind: 'phrases' };

const PARAMETERS: Record<ConditionName, Record<string, ParameterSpec>> = {
  human_request: { phrases: { kind: 'phrases' } },
  repeated_failures: { count: { kind: 'integer', min: 1, max: 100 } },
  low_confidence: { threshold: { kind: 'number', min: 0, max: 1 } },
  frustration: { window: { kind: 'integer', min: 1, max: 20 }, threshold: { kind: 'integer', min: 1, max: 20 } },
  sensitive_topic: { self_harm: { kind: 'boolean' }, self_harm_min_score: { kind: 'number', min: 0, max: 1 }, topics: { kind: 'phrases' } },
  binding_commitment: {},
  held_tool_call: {},
};

const isConditionName = (name: string): name is ConditionName => (CONDITION_NAMES as readonly string[]).includes(name);

/**
 * Checks a policy's conditions object: each key a known condition, each value `true` (defaults),
 * `false` (off) or an object of known parameters within bounds (the others take their default).
 * Answers the settings with every parameter filled in, or the field errors (a 422 for the caller).
 */
export function parseConditions(raw: Record<string, unknown>): { settings: ConditionSettings; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const settings: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(raw)) {
    const field = `/body/conditions/${name}`;
    if (!isConditionName(name)) {
      errors.push({ field, message: `unknown condition; known: ${CONDITION_NAMES.join(', ')}` });
      continue;
    }
    if (value === false) continue;
    if (value === true) {
      settings[name] = structuredClone(DEFAULT_CONDITIONS[name]);
      continue;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      errors.push({ field, message: 'must be true, false or an object of parameters' });
      continue;
    }
    const params: Record<string, unknown> = { ...structuredClone(DEFAULT_CONDITIONS[name]) };
    for (const [param, given] of Object.entries(value as Record<string, unknown>)) {
      const spec = PARAMETERS[name][param];
      const where = `${field}/${param}`;
      if (spec === undefined) {
        const known = Object.keys(PARAMETERS[name]);
        errors.push({ field: where, message: known.length === 0 ? 'this condition takes no parameters' : `unknown parameter; known: ${known.join(', ')}` });
        continue;
      }
      const problem = parameterProblem(spec, given);
      if (problem !== null) errors.push({ field: where, message: problem });
      else params[param] = spec.kind === 'phrases' ? [...new Set((given as string[]).map((phrase) => phrase.trim()))] : given;
    }
    settings[name] = params;
  }
  return { settings: settings as ConditionSettings, errors };
}

function parameterProblem(spec: ParameterSpec, value: unknown): string | null {
  switch (spec.kind) {
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be a boolean';
    case 'integer':
      return Number.isInteger(value) && (value as number) >= spec.min && (value as number) <= spec.max ? null : `must be an integer from ${spec.min} to ${spec.max}`;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) && value >= spec.min && value <= spec.max ? null : `must be a number from ${spec.min} to ${spec.max}`;
    case 'phrases': {
      if (!Array.isArray(value) || value.length > MAX_CONFIGURED_PHRASES) return `must be a list of at most ${MAX_CONFIGURED_PHRASES} phrases`;
      for (const phrase of value) {
        if (typeof phrase !== 'string' || phrase.length > MAX_PHRASE_LENGTH || foldText(phrase).trim() === '') {
          return `each phrase must be a string of 1 to ${MAX_PHRASE_LENGTH} characters with a letter or digit`;
        }
      }
      return null;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Folding and phrase matching

const MARK = /\p{M}/u;
const WORD_CHAR = /[\p{L}\p{N}]/u;

/**
 * The text as phrases are matched: lower case, diacritics dropped (NFKD, combining marks removed),
 * every run of characters other than letters and digits one space, with a space at each end, so
 * that `folded.includes(' talk to a human ')` is a whole-phrase match. One pass, linear.
 */
export function foldText(text: string): string {
  const parts: string[] = [' '];
  let spaced = true;
  for (const char of text.normalize('NFKD').toLowerCase()) {
    if (MARK.test(char)) continue;
    if (WORD_CHAR.test(char)) {
      parts.push(char);
      spaced = false;
    } else if (!spaced) {
      parts.push(' ');
      spaced = true;
    }
  }
  if (!spaced) parts.push(' ');
  return parts.join('');
}

/** One phrase table compiled once: which of its phrases occur whole in a folded text. */
class PhraseTable {
  private readonly entries: Array<{ phrase: string; language: string }> = [];
  private readonly automaton: LiteralAutomaton;

  constructor(table: Readonly<Record<string, readonly string[]>>) {
    for (const [language, phrases] of Object.entries(table)) {
      for (const phrase of phrases) {
        const folded = foldText(phrase);
        if (!this.entries.some((entry) => foldText(entry.phrase) === folded)) this.entries.push({ phrase, language });
      }
    }
    this.automaton = new LiteralAutomaton(this.entries.map(({ phrase }, owner) => ({ literal: foldText(phrase), owner })));
  }

  /** The phrases found, in table order. */
  find(folded: string): Array<{ phrase: string; language: string }> {
    const found = this.automaton.scan(folded);
    return this.entries.filter((_, owner) => found[owner] === 1);
  }
}

const HUMAN_REQUEST = new PhraseTable(HUMAN_REQUEST_PHRASES);
const FRUSTRATION = new PhraseTable(FRUSTRATION_PHRASES);

/** The configured phrases (at most 50 of at most 100 characters) found whole in a folded text. */
function configuredPhrases(folded: string, phrases: readonly string[]): string[] {
  return phrases.filter((phrase) => folded.includes(foldText(phrase)));
}

// ---------------------------------------------------------------------------------------------
// Evaluation

/** One turn as the conditions see it. */
export interface TurnFacts {
  user_text: string | null;
  agent_text: string | null;
  failed: boolean | null;
  confidence: number | null;
}

/** A condition that fired on a turn; `immediate`: hands off whatever the policy's mode (self-harm). */
export interface FiredCondition {
  condition: ConditionName;
  detail: string;
  immediate?: true;
}

/** The words of a user text looked at for a repeated question. */
const MAX_COMPARED_WORDS = 200;
/** Two user texts of at least this many words that share this share of their words ask the same. */
const REPEAT_MIN_WORDS = 3;
const REPEAT_OVERLAP = 0.8;
/** ALL CAPS: at least this many cased letters, this share of them upper case. */
const CAPS_MIN_LETTERS = 10;
const CAPS_SHARE = 0.8;
/** "!!!": a run of at least this many ! and ? with at least one !. */
const EXCLAIM_RUN = 3;
const DETECT_CONTEXT = (surface: 'input' | 'output'): DetectContext => ({ surface, settings: { pii_packs: [] } });
const QUOTE_CHARS = 80;

const quote = (text: string): string => (text.length > QUOTE_CHARS ? `${text.slice(0, QUOTE_CHARS)}…` : text);

/**
 * The conditions of `settings` that hold for `turn`, given the session's earlier turns since its
 * last hand-off (`history`, oldest first, bounded by the caller) and whether the turn's trace has a
 * tool call held for approval. Deterministic: the same turn, history and settings give the same list.
 */
export async function evaluateTurn(settings: ConditionSettings, turn: TurnFacts, history: readonly TurnFacts[], heldToolCall: boolean): Promise<FiredCondition[]> {
  const fired: FiredCondition[] = [];
  const userFolded = turn.user_text === null ? null : foldText(turn.user_text);

  if (settings.human_request !== undefined && userFolded !== null) {
    const found = HUMAN_REQUEST.find(userFolded);
    const extra = configuredPhrases(userFolded, settings.human_request.phrases);
    const first = found[0];
    if (first !== undefined) fired.push({ condition: 'human_request', detail: `the user asks for a person: "${first.phrase}" (${first.language})` });
    else if (extra[0] !== undefined) fired.push({ condition: 'human_request', detail: `the user asks for a person: "${extra[0]}" (configured)` });
  }

  if (settings.repeated_failures !== undefined) {
    const failed = [...history, turn].filter((item) => item.failed === true).length;
    if (failed >= settings.repeated_failures.count) fired.push({ condition: 'repeated_failures', detail: `${failed} failed turns in the session (at least ${settings.repeated_failures.count})` });
  }

  if (settings.low_confidence !== undefined && turn.confidence !== null && turn.confidence < settings.low_confidence.threshold) {
    fired.push({ condition: 'low_confidence', detail: `confidence ${turn.confidence} below ${settings.low_confidence.threshold}` });
  }

  if (settings.frustration !== undefined && turn.user_text !== null) {
    const { window, threshold } = settings.frustration;
    const recent = [...(window > 1 ? history.slice(-(window - 1)) : []), turn];
    const signals = frustrationSignals(recent);
    const own = signals.filter((signal) => signal.turn === recent.length - 1);
    if (own.length > 0 && signals.length >= threshold) {
      fired.push({ condition: 'frustration', detail: `${signals.length} frustration signals over the last ${recent.length} turns (at least ${threshold}): ${[...new Set(signals.map((signal) => signal.kind))].join(', ')}` });
    }
  }

  if (settings.sensitive_topic !== undefined && turn.user_text !== null && userFolded !== null) {
    const { self_harm, self_harm_min_score, topics } = settings.sensitive_topic;
    const selfHarm = self_harm ? await selfHarmScore(turn.user_text) : 0;
    if (self_harm && selfHarm >= self_harm_min_score && selfHarm > 0) {
      fired.push({ condition: 'sensitive_topic', detail: `self-harm (safety lexicon, score ${selfHarm})`, immediate: true });
    } else {
      const topic = configuredPhrases(userFolded, topics)[0];
      if (topic !== undefined) fired.push({ condition: 'sensitive_topic', detail: `configured topic "${topic}"` });
    }
  }

  if (settings.binding_commitment !== undefined && turn.agent_text !== null && turn.agent_text !== '') {
    const detections = await disclosureAnswer.detect(turn.agent_text, DETECT_CONTEXT('output'));
    const commitment = detections.find((detection) => detection.entity === DISCLOSURE_ENTITIES.commitment);
    if (commitment !== undefined) fired.push({ condition: 'binding_commitment', detail: `the agent commits: "${quote(turn.agent_text.slice(commitment.start, commitment.end))}"` });
  }

  if (settings.held_tool_call !== undefined && heldToolCall) fired.push({ condition: 'held_tool_call', detail: 'a tool call of this trace waits for approval' });
  return fired;
}

async function selfHarmScore(text: string): Promise<number> {
  const detections = await safetyLexicon.detect(text, DETECT_CONTEXT('input'));
  let best = 0;
  for (const detection of detections) if (detection.entity === 'SAFETY.SELF_HARM') best = Math.max(best, detection.score);
  return Math.round(best * 1000) / 1000;
}

type SignalKind = 'repeated_question' | 'all_caps' | 'exclamations' | 'frustration_words';

/** The frustration signals of each turn's user text in `turns` (oldest first). */
function frustrationSignals(turns: readonly TurnFacts[]): Array<{ turn: number; kind: SignalKind }> {
  const signals: Array<{ turn: number; kind: SignalKind }> = [];
  const wordSets: Array<Set<string> | null> = [];
  turns.forEach((turn, index) => {
    const text = turn.user_text;
    if (text === null) {
      wordSets.push(null);
      return;
    }
    const folded = foldText(text);
    const words = new Set(folded.trim().split(' ').slice(0, MAX_COMPARED_WORDS).filter((word) => word !== ''));
    if (words.size >= REPEAT_MIN_WORDS && wordSets.some((earlier) => earlier !== null && overlap(earlier, words) >= REPEAT_OVERLAP)) signals.push({ turn: index, kind: 'repeated_question' });
    wordSets.push(words);
    if (allCaps(text)) signals.push({ turn: index, kind: 'all_caps' });
    if (exclaims(text)) signals.push({ turn: index, kind: 'exclamations' });
    if (FRUSTRATION.find(folded).length > 0) signals.push({ turn: index, kind: 'frustration_words' });
  });
  return signals;
}

/** Shared words over all words of the two (Jaccard). */
function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let shared = 0;
  for (const word of b) if (a.has(word)) shared += 1;
  return shared / (a.size + b.size - shared);
}

function allCaps(text: string): boolean {
  let cased = 0;
  let upper = 0;
  for (const char of text) {
    const lower = char.toLowerCase();
    if (lower === char.toUpperCase()) continue;
    cased += 1;
    if (char !== lower) upper += 1;
  }
  return cased >= CAPS_MIN_LETTERS && upper / cased >= CAPS_SHARE;
}

function exclaims(text: string): boolean {
  let run = 0;
  let bang = false;
  for (const char of text) {
    if (char === '!' || char === '?') {
      run += 1;
      bang ||= char === '!';
      if (run >= EXCLAIM_RUN && bang) return true;
    } else {
      run = 0;
      bang = false;
    }
  }
  return false;
}
