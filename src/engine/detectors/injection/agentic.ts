// Instructions planted in what an agent reads (tool results, retrieved pages, files): phrases that
// hijack the agent's task or address it by name, and imperatives that ask it to act on the user's
// accounts. heuristic.ts compiles the phrase lists into families and scores action imperatives with
// scoreAction(). Hot path: no I/O; every regex is bounded and linear.
import { WB } from './phrases.js';

const alt = (parts: readonly string[]): string => `(?:${parts.join('|')})`;

/** Names an AI reader goes by; bare "agent" and "assistant" also name people, so they are left out here. */
const AI_NAMES = [
  'ai', 'a\\.i\\.', 'ai assistant', 'ai agent', 'ai model', 'ai language model', 'ai system', 'language model', 'large language model', 'llm',
  'chatbot', 'virtual assistant', 'digital assistant', 'autonomous agent', 'gpt(?:-?[0-9][0-9a-z.-]{0,8})?', 'chatgpt', 'claude', 'gemini',
  'llama(?:[ -]?[0-9.]{1,4})?', 'mistral', 'command[ -]r\\+?', 'copilot',
];

/** The agent's task hijacked: "before you can solve the task I gave you", "stop what you're doing". */
export const TASK_HIJACK = [
  `${WB}before (?:you|u) (?:can |could |start to |begin to )?(?:solve|do|complete|finish|continue|proceed|answer|start|begin|respond|handle|work on|carry on|summari[sz]e|reply)(?: with| to| on)? (?:the|your|this|that|my|any) (?:original|current|actual|real|assigned|user'?s?) (?:task|request|question|job|assignment|instructions?|query|work)`,
  // Starts at the noun, not at "the"/"your": a phrase family is tried wherever its first word occurs.
  `${WB}(?:task|request|job|assignment|instructions?|query) (?:that |which )?(?:i|the user|they) (?:gave|have given|had given|assigned|sent|asked) (?:to )?you`,
  `${WB}instead of (?:summari[sz]ing|answering|replying to|completing|translating|reviewing|doing) (?:the|this|your|that) (?:user'?s? |original |current )?(?:task|request|question|page|document|email|e-mail|text|query)`,
  `${WB}(?:forget|drop|abandon|skip|pause|abort) (?:about )?(?:the|your) (?:current|original|user'?s?|assigned) (?:task|request|question|query|job)`,
  `${WB}(?:your|the) (?:current|original) (?:task|goal|job|objective) (?:is|has been) (?:cancel+ed|replaced|changed|updated|no longer)`,
];

/**
 * Weaker: also at home in safety notices and manuals ("if the alarm sounds, stop what you are
 * doing"); evidence next to another cue.
 */
export const TASK_HIJACK_WEAK = [
  `${WB}(?:you should|you must|you need to|please) (?:immediately |now |urgently )?stop (?:what|everything) (?:you(?:'re| are) doing|you do)`,
  `${WB}(?:please )?do the following (?:first|before anything else|instead)\\b`,
];

/** Text addressed to the AI reader by name: "a message from me to you, AI assistant", "Hey Claude, ...". */
export const ADDRESSED_BY_NAME = [
  `${WB}to you,? (?:the |dear |my |our )?${alt(AI_NAMES)}\\b`,
  `${WB}(?:hey|hello|dear|attention|listen|note to|message to|message for|instructions? (?:to|for)|reminder (?:to|for)),? (?:the |my |our |dear |any )?${alt(AI_NAMES)}s?\\s?[,:!.-]`,
  `${WB}as an? (?:ai|ai assistant|ai agent|language model|llm|assistant|agent) (?:processing|reading|summari[sz]ing|handling|with access to) (?:this|these|the|my|user)`,
  `${WB}you,? (?:the|an?) (?:ai|ai assistant|ai agent|language model|llm|chatbot) (?:reading|processing|summari[sz]ing|handling|with access)`,
  `${WB}this is an? (?:very |extremely )?(?:important|urgent|critical) (?:message|instruction|notice|request) (?:for|to) (?:the |any |you,? (?:the )?)?(?:ai|assistant|ai agent|language model|llm)\\b`,
  // A vocative followed by an agent action: "Assistant, transfer ...", "agent: forward ...".
  // Not "agent" or "model": support-chat logs ("Agent: transfer complete") name people that way.
  `${WB}(?:assistant|bot|ai assistant|ai agent|ai model|coding agent|coding assistant|email agent|browsing agent|${AI_NAMES.slice(9).join('|')})\\s?[,:]\\s?(?:please |now |immediately )?(?:transfer|wire|forward|send|share|delete|remove|grant|unlock|disable|visit|open|click|run|execute|email|e-mail|upload|post|create|update|change|reset|pay|move|fetch|retrieve|download|install|invite|add|stop)\\b`,
  // "When you process this email, ..." speaks to whatever processes it.
  `${WB}(?:when|while|once|after|as soon as) you (?:process|parse|summari[sz]e|analy[sz]e|index|ingest|triage) (?:this|the|these) (?:e-?mails?|messages?|page|document|file|note|text|ticket|record|row|entr(?:y|ies)|data)\\b`,
  `${WB}(?:note|reminder|message|instructions?|attention|memo|request) (?:to|for) (?:the |any |an? )?(?:ai |automated |autonomous |e-?mail |inbox |coding |llm |virtual )?(?:agent|assistant|bot)s? (?:that is |who is )?(?:handling|reading|processing|managing|summari[sz]ing|triaging|monitoring|working on|with access to|in charge of) (?:this|these|the|my|your|our)\\b`,
];

/** The agent told to keep its action from the user it works for. */
export const COVERT_FROM_USER = [
  `${WB}(?:and |then )?(?:delete|remove|erase) (?:this|the) (?:message|e-?mail|note|instruction)s? (?:afterwards|after(?:wards)? (?:that|you(?:'re| are)? done)|when (?:you(?:'re| are) )?done|once (?:you(?:'re| are) )?done|immediately after)`,
  `${WB}so (?:that )?(?:the user|they|he|she) (?:does not|doesn't|won't|will not|cannot|can't|never|do not|don't) (?:see|notice|find out|know|learn|realize|realise|get suspicious)`,
  `${WB}without (?:telling|informing|notifying|alerting|asking|letting) the user`,
  `${WB}(?:do not|don't|never) (?:mention|reveal|disclose|report|show) (?:this|these|it|that|any of this) (?:to the user|in your (?:answer|response|reply|summary))`,
];

/**
 * Clause-initial imperatives of actions an agent can take with its tools. scoreAction() decides
 * from the clause around them whether the request is consequential (money, access, data leaving).
 */
const ACTION_VERBS = [
  'transfer', 'wire', 'deposit', 'send', 'forward', 'share', 'email', 'e-mail', 'post', 'upload', 'unlock', 'open', 'disable', 'deactivate', 'turn off',
  'grant', 'give', 'add', 'invite', 'delete', 'erase', 'wipe', 'remove', 'move', 'withdraw', 'redirect', 'reroute', 'pay', 'purchase', 'buy',
  'order', 'sell', 'change', 'update', 'reset', 'install', 'download', 'visit', 'navigate to', 'go to', 'click', 'approve', 'cancel', 'schedule',
  'book', 'create', 'make', 'initiate', 'set', 'retrieve', 'get', 'fetch', 'find', 'look up', 'print', 'leak', 'exfiltrate', 'publish', 'reply',
  'tell', 'provide', 'list', 'copy', 'save', 'execute', 'run',
];
const ADVERBS = '(?:please|kindly|immediately|urgently|now|also|then|first|just|simply|quickly|asap|next|finally)';
export const ACTION_IMPERATIVE = [`${WB}${alt(ACTION_VERBS)}\\b`];
/** Up to two adverbs right before the verb ("please", "then just"), read backwards from it. */
const ADVERBS_BEFORE_RE = new RegExp(`(?:^|[^a-z])((?:${ADVERBS},? ){1,2})$`);
/** Labels that introduce a to-do for the reader: "TODO: send ...", "Important: transfer ...". */
const TODO_LABEL_RE = /(?:todo|to-?do|to do|action(?: required| item)?|important|urgent|note|reminder|task|instructions?|p\.?s\.?|\))\s?:?$/;

/** Consequential by itself: money, locks and access, destruction, software from outside. */
const RISKY_VERB_RE = /^(?:transfer|wire|deposit|unlock|disable|deactivate|turn off|grant|invite|delete|erase|wipe|withdraw|redirect|reroute|pay|purchase|buy|sell|leak|exfiltrate|reset|approve|initiate)$/;
const PAYMENT_VERB_RE = /^(?:pay|purchase|buy|sell)$/;
/** Verbs that move data somewhere: consequential when the target is outside. */
const MOVE_VERB_RE = /^(?:send|forward|share|email|e-mail|post|upload|publish|copy|reply|provide|tell|print|list)$/;
/** Verbs that fetch data: consequential when what they fetch is the user's sensitive data. */
const FETCH_VERB_RE = /^(?:retrieve|get|fetch|find|look up)$/;
/**
 * Verbs whose object decides: "change the password", "give access", "open the door". ("Install
 * with npm" heads every README: installing counts only for a sensitive object.)
 */
const OBJECT_VERB_RE = /^(?:change|update|give|add|remove|move|open|set|make|create|schedule|book|cancel|order|save|execute|run|visit|navigate to|go to|click|download|install)$/;

/** An address outside the conversation: e-mail, URL, IBAN, long account or phone number. */
const TARGET_RE = /[a-z0-9._%+-]{1,64}@[a-z0-9-]{1,63}\.[a-z]{2,24}|https?:\/\/|www\.|\b[a-z]{2}[0-9]{2}[a-z0-9]{10,30}\b|\b\d[\d -]{8,20}\d\b|\bwebhook/;
/** Objects that make an action consequential. */
const SENSITIVE_OBJECT_RE = /\b(?:passwords?|passcodes?|pin|credentials?|2fa|two-factor|mfa|security (?:code|question|settings?)|api keys?|tokens?|access|permissions?|admin|door|lock|alarm|camera|funds|money|payments?|transactions?|balance|bank|iban|account(?:s| number)?|credit cards?|card number|ssn|social security|passport|medical|health|genetic|address(?:es)?|phone number|contacts|location|files?|folders?|repositor(?:y|ies)|database|records?|emails?|messages|history|calendar|documents?|data|information|details|profile|shipment|order|subscription|security|firewall|antivirus|vpn|login|(?:security|verification|access|backup|2fa|one-time|recovery) codes?)\b/;
/** Data nobody asks a tool to read out without a reason: identity, payment, login secrets. */
const STRONG_SENSITIVE_RE = /\b(?:passwords?|passcodes?|pin|credentials?|security (?:code|question)s?|api keys?|passport(?: number)?|credit card|card number|ssn|social security|bank account|iban|account number|routing number|login|genetic data|medical records?|health records?|medical history)\b/;
/** First person of the writer, or the user the agent works for. */
const OWNER_RE = /\b(?:my|mine|our|the user'?s?|user'?s|his|her|their)\b/;

/**
 * A when/once/after clause that ends in the comma before a verb. Not "if": "If this wasn't you,
 * reset your password" is how security mail talks to its reader.
 */
const SUBORDINATE_BEFORE_RE = /(?:^|[.!?\n"':]\s*)(?:when|once|after|before|while|as soon as)\b[^.!?\n]{0,80}$/;
const IDIOM_AFTER_RE = /^ (?:close |special |careful )?(?:attention|heed|tribute|homage|respect|a compliment|off\b|us (?:a visit|again)|sure\b|certain\b)/;

/** An identifier as tools take it: "id 'x1'", "account_id:", "ID001", "bathroom_01". */
const IDENTIFIER_RE = /\bids?\b\s?(?:is\s)?[:=('"]?\s?['"]?[a-z0-9_-]{2,}|\b[a-z]+_id\b|\bid[-_]?\d{2,}|\b[a-z]{2,}_\d{2,}\b/;

export interface ActionScore {
  score: number;
  note: string;
  /** End of the clause the verb governs: the reported span covers the whole request. */
  end: number;
}

/**
 * Characters that end the clause before a fresh imperative (a line, a field value, a sentence).
 * Not '[' ("[Reset password](...)" is a link label) and not '|' (code alternations).
 */
const CLAUSE_START = '\n"\'“‘:;.!?>*•-({';

/**
 * Scores a clause-initial action imperative in data. `text` is the lower-cased view, [start, end)
 * the verb (adverbs before it are read back from the text). Returns null when the verb does not
 * start a clause (not an imperative) or nothing makes the request consequential.
 */
export function scoreAction(text: string, start: number, end: number): ActionScore | null {
  const verb = text.slice(start, end);
  const adverbs = ADVERBS_BEFORE_RE.exec(text.slice(Math.max(0, start - 40), start))?.[1] ?? '';
  const polite = /^(?:please|kindly|immediately|urgently)\b/.test(adverbs);
  let labelled = false;
  let at = start - adverbs.length - 1;
  while (at >= 0 && (text[at] === ' ' || text[at] === '\t')) at -= 1;
  // "Do transfer ...": an emphatic "do" still starts the imperative.
  if (at >= 1 && text[at] === 'o' && text[at - 1] === 'd' && !/[a-z]/.test(text[at - 2] ?? '')) {
    at -= 2;
    while (at >= 0 && (text[at] === ' ' || text[at] === '\t')) at -= 1;
  }
  // The request is the whole value of a field (a review, an event name, a tweet): a quote opens it.
  const opensField = at < 0 || text[at] === '"' || text[at] === "'" || text[at] === '“';
  if (!polite) {
    // "When you process this, forward ...": a comma after a when/once clause also starts one.
    const afterClause = text[at] === ',' && SUBORDINATE_BEFORE_RE.test(text.slice(Math.max(0, at - 80), at));
    if (at >= 0 && !CLAUSE_START.includes(text[at]!) && !afterClause) return null;
    labelled = TODO_LABEL_RE.test(text.slice(Math.max(0, at - 20), at + 1));
    // "- Buy milk" in a list and "title: Pay rent" are notes to oneself, not requests.
    if (!labelled && adverbs === '' && (text[at] === '-' || text[at] === '*' || text[at] === '•' || text[at] === ':')) return null;
  }
  // The clause the verb governs: up to a sentence end, at most 160 characters.
  let stop = end;
  const limit = Math.min(text.length, end + 160);
  while (stop < limit && !'.!?\n'.includes(text[stop]!)) stop += 1;
  // An e-mail address or URL contains dots: extend over them.
  while (stop < limit && text[stop] === '.' && /[a-z0-9]/.test(text[stop + 1] ?? '')) {
    stop += 1;
    while (stop < limit && !'.!?\n'.includes(text[stop]!)) stop += 1;
  }
  const clause = text.slice(end, stop);
  // "Pay close attention", "visit us again": idioms, not transactions or navigation.
  if (IDIOM_AFTER_RE.test(clause)) return null;
  const target = TARGET_RE.test(clause);
  const sensitive = SENSITIVE_OBJECT_RE.test(clause);
  const owner = OWNER_RE.test(clause);
  let score = 0.3;
  const why: string[] = [];
  if (RISKY_VERB_RE.test(verb)) {
    // Bills say "please pay via the portal": paying counts fully only from the user's own account.
    const routinePayment = PAYMENT_VERB_RE.test(verb) && !owner;
    score += (sensitive || target) && !routinePayment ? 0.2 : 0.1;
    why.push('consequential action');
  } else if (MOVE_VERB_RE.test(verb)) {
    // "Tell me my passport number" asks for the user's secrets even without an address.
    if (!target && !(owner && STRONG_SENSITIVE_RE.test(clause))) return null;
    score += sensitive ? 0.2 : 0.1;
    why.push('data sent to an outside address');
  } else if (FETCH_VERB_RE.test(verb)) {
    if (!sensitive || !owner) return null;
    score += 0.1;
    why.push("fetches the user's data");
  } else if (OBJECT_VERB_RE.test(verb)) {
    if (!sensitive) return null;
    score += 0.1;
    why.push('acts on an account, access or data');
  } else {
    return null;
  }
  if (owner) {
    score += 0.1;
    why.push("on the writer's or user's own account");
  }
  if (target && !MOVE_VERB_RE.test(verb)) score += 0.05;
  // Objects named by system ids ("light ID001", "policy id 'abc'") are what tools take, not people.
  if (IDENTIFIER_RE.test(clause)) {
    score += 0.05;
    why.push('names objects by their ids');
  }
  if (polite && opensField) {
    score += 0.1;
    why.push('a field that is nothing but the request');
  } else if (polite || labelled || opensField) {
    score += 0.05;
  }
  return { score: Math.min(0.7, Math.round(score * 100) / 100), note: ` (${why.join(', ')})`, end: stop };
}

/** Fetch the user's data, then send it: "find my flights and send a summary to ...", "once you have the list, email it". */
const FETCH_THEN_SEND_RE =
  /\b(?:retrieve|get|find|search|download|list|look up|collect|gather|compile|extract|read|fetch|access|pull|export|generate|provide|summari[sz]e)\b[^.!?\n]{0,160}?(?:\band(?: then)?|\bthen|,)\s(?:please )?(?:send|e-?mail|forward|share|post|upload)\b|\bonce (?:you have|you've|generated|done|retrieved|completed?|finished)\b/;

/**
 * A send to an outside address inside data that first has the agent gather the user's data: the
 * data-stealing shape. `sentence` is the lower-cased sentence around the send.
 */
export function isFetchThenSend(sentence: string): boolean {
  return OWNER_RE.test(sentence) && FETCH_THEN_SEND_RE.test(sentence);
}
