// Plain-language business rules to structured definitions, deterministically and without a model:
// a small grammar over the words of one sentence. It finds the action (refund, transfer, payment,
// discount, delete, ...) and turns it into tool patterns, comparisons with amounts into argument
// conditions, and the consequence into an effect (need approval → escalate, never/block → block),
// and says what it could not use (`unparsed`) and what it assumed (`warnings`). One tokenizing pass
// and a few linear passes over the tokens: linear in the text. No I/O.
import type { ArgumentOperator } from '../../engine/policy/schema.js';
import type { BusinessCondition, BusinessDefinition } from './schemas.js';

export interface CompiledText {
  definition: BusinessDefinition;
  /** An action and a consequence or condition were found. */
  understood: boolean;
  unparsed: string[];
  warnings: string[];
}

type TokenKind = 'word' | 'number' | 'symbol' | 'punct';

interface Token {
  kind: TokenKind;
  /** Lower case; a number without its thousands separators. */
  text: string;
  used: boolean;
}

// Fixed, linear expressions: numbers, words (with an apostrophe inside), comparison symbols,
// currency and percent signs, any other single character.
const TOKEN = /(\d[\d,]*(?:\.\d+)?)|(\p{L}+(?:['’]\p{L}+)*)|(>=|<=|[<>=$€£¥%])|(\S)/gu;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  for (const match of text.toLowerCase().matchAll(TOKEN)) {
    if (match[1] !== undefined) tokens.push({ kind: 'number', text: match[1].replace(/,/g, ''), used: false });
    else if (match[2] !== undefined) tokens.push({ kind: 'word', text: match[2].replace(/’/g, "'"), used: false });
    else if (match[3] !== undefined) tokens.push({ kind: 'symbol', text: match[3], used: false });
    else tokens.push({ kind: 'punct', text: match[4] as string, used: false });
  }
  return tokens;
}

const phrase = (text: string) => text.split(' ');

/** Comparison words before an amount, longest first where they share a start. */
const COMPARISONS: Array<[string[], ArgumentOperator]> = [
  ...(
    [
      ['in excess of', 'gt'],
      ['more than', 'gt'],
      ['greater than', 'gt'],
      ['larger than', 'gt'],
      ['higher than', 'gt'],
      ['bigger than', 'gt'],
      ['above', 'gt'],
      ['over', 'gt'],
      ['exceeding', 'gt'],
      ['exceeds', 'gt'],
      ['exceed', 'gt'],
      ['no less than', 'gte'],
      ['not less than', 'gte'],
      ['at least', 'gte'],
      ['minimum of', 'gte'],
      ['no more than', 'lte'],
      ['not more than', 'lte'],
      ['not exceeding', 'lte'],
      ['at most', 'lte'],
      ['up to', 'lte'],
      ['maximum of', 'lte'],
      ['less than', 'lt'],
      ['fewer than', 'lt'],
      ['lower than', 'lt'],
      ['smaller than', 'lt'],
      ['under', 'lt'],
      ['below', 'lt'],
      ['equal to', 'eq'],
      ['exactly', 'eq'],
      ['equals', 'eq'],
    ] as Array<[string, ArgumentOperator]>
  ).map(([words, op]): [string[], ArgumentOperator] => [phrase(words), op]),
  [['>'], 'gt'],
  [['>='], 'gte'],
  [['<'], 'lt'],
  [['<='], 'lte'],
  [['='], 'eq'],
];

/** Words after an amount that make a comparison of it ("500 dollars or more"). */
const TRAILING: Array<[string[], ArgumentOperator]> = [
  [phrase('or more'), 'gte'],
  [phrase('or above'), 'gte'],
  [phrase('or higher'), 'gte'],
  [phrase('and above'), 'gte'],
  [phrase('and up'), 'gte'],
  [phrase('or less'), 'lte'],
  [phrase('or below'), 'lte'],
  [phrase('or lower'), 'lte'],
  [phrase('and below'), 'lte'],
  [phrase('and under'), 'lte'],
];

const CURRENCY_SYMBOLS: Record<string, string> = { $: 'USD', '€': 'EUR', '£': 'GBP', '¥': 'JPY' };
const CURRENCY_WORDS: Record<string, string> = {
  dollar: 'USD',
  dollars: 'USD',
  usd: 'USD',
  buck: 'USD',
  bucks: 'USD',
  euro: 'EUR',
  euros: 'EUR',
  eur: 'EUR',
  pound: 'GBP',
  pounds: 'GBP',
  gbp: 'GBP',
  sterling: 'GBP',
  yen: 'JPY',
  jpy: 'JPY',
  franc: 'CHF',
  francs: 'CHF',
  chf: 'CHF',
  cad: 'CAD',
  aud: 'AUD',
  rupee: 'INR',
  rupees: 'INR',
  inr: 'INR',
};
const PERCENT_WORDS = new Set(['percent', 'pct', 'percentage']);
const MULTIPLIERS: Record<string, number> = { k: 1e3, thousand: 1e3, m: 1e6, mm: 1e6, million: 1e6, bn: 1e9, billion: 1e9 };

/** Argument names an operator may name before the comparison ("with a total above 500"). */
const FIELDS = new Set(['amount', 'total', 'value', 'sum', 'price', 'cost', 'percent', 'percentage', 'rate', 'quantity', 'count', 'balance', 'fee', 'size', 'limit']);

interface ActionEntry {
  action: string;
  /** Tool-name stems: `*stem*` patterns, combined with the object or qualifiers. */
  stems: string[];
  /** A verb takes its object after it ("delete customer records"); a noun takes qualifiers before it ("wire transfers"). */
  verb: boolean;
}

const ACTIONS = new Map<string, ActionEntry>();
for (const [words, entry] of [
  ['refund refunds refunding refunded', { action: 'refund', stems: ['refund'], verb: false }],
  ['transfer transfers transferring transferred', { action: 'transfer', stems: ['transfer'], verb: false }],
  ['payment payments', { action: 'payment', stems: ['payment'], verb: false }],
  ['payout payouts', { action: 'payout', stems: ['payout'], verb: false }],
  ['pay pays paying', { action: 'payment', stems: ['pay'], verb: true }],
  ['discount discounts discounting', { action: 'discount', stems: ['discount'], verb: false }],
  ['withdrawal withdrawals withdraw withdrawing', { action: 'withdrawal', stems: ['withdraw'], verb: false }],
  ['purchase purchases purchasing', { action: 'purchase', stems: ['purchase'], verb: false }],
  ['buy buying', { action: 'purchase', stems: ['buy', 'purchase'], verb: true }],
  ['order orders', { action: 'order', stems: ['order'], verb: false }],
  ['charge charges charging', { action: 'charge', stems: ['charge'], verb: false }],
  ['invoice invoices', { action: 'invoice', stems: ['invoice'], verb: false }],
  ['loan loans', { action: 'loan', stems: ['loan'], verb: false }],
  ['credit credits', { action: 'credit', stems: ['credit'], verb: false }],
  ['expense expenses', { action: 'expense', stems: ['expense'], verb: false }],
  ['reimbursement reimbursements reimburse', { action: 'reimbursement', stems: ['reimburs'], verb: false }],
  ['wire wires', { action: 'wire', stems: ['wire'], verb: false }],
  ['delete deletes deleting deletion deletions remove removes removing removal erase erasing purge purging drop dropping', { action: 'delete', stems: ['delete', 'remove'], verb: true }],
  ['update updates updating modify modifying change changing edit editing', { action: 'update', stems: ['update'], verb: true }],
  ['create creates creating', { action: 'create', stems: ['create'], verb: true }],
  ['export exports exporting', { action: 'export', stems: ['export'], verb: true }],
  ['send sends sending', { action: 'send', stems: ['send'], verb: true }],
  ['email emails emailing', { action: 'email', stems: ['email'], verb: false }],
  ['cancel cancels cancelling canceling cancellation cancellations', { action: 'cancel', stems: ['cancel'], verb: true }],
] as Array<[string, ActionEntry]>) {
  for (const word of words.split(' ')) if (!ACTIONS.has(word)) ACTIONS.set(word, entry);
}

/** Objects that say nothing about which tool ("customer records" → customer). */
const GENERIC_OBJECTS = new Set(['record', 'records', 'data', 'entry', 'entries', 'row', 'rows', 'item', 'items', 'information', 'info', 'details', 'file', 'files', 'object', 'objects']);

const APPROVAL = [phrase('sign off'), phrase('sign-off'), phrase('signoff'), ['approval'], ['approvals'], ['approved'], ['approve'], ['authorization'], ['authorisation'], ['authorized'], ['authorised'], ['review'], ['reviewed']];
const NEED = [['need'], ['needs'], ['require'], ['requires'], ['required'], ['requiring'], phrase('subject to'), phrase('have to be'), phrase('has to be'), phrase('must be'), phrase('must get'), phrase('must have'), ['get'], ['with']];
const BLOCK = [
  phrase('not allowed'),
  phrase('not permitted'),
  phrase('must not'),
  phrase('may not'),
  phrase('do not'),
  phrase('does not'),
  phrase('can not'),
  phrase('should not'),
  ["don't"],
  ["can't"],
  ["mustn't"],
  ["shouldn't"],
  ['cannot'],
  ['never'],
  ['block'],
  ['blocks'],
  ['blocked'],
  ['forbid'],
  ['forbids'],
  ['forbidden'],
  ['prohibit'],
  ['prohibits'],
  ['prohibited'],
  ['deny'],
  ['denied'],
  ['disallow'],
  ['disallowed'],
  ['reject'],
  ['rejected'],
  ['prevent'],
  ['stop'],
  ['no'],
];
const ROLE_INTRODUCERS = new Set(['from', 'by', 'of']);
const ARTICLES = new Set(['a', 'an', 'the', 'their', 'our', 'your', 'its', 'his', 'her', 'some', 'one']);
/** Roles recognised right before "approval" without a possessive ("manager approval"). */
const ROLES = new Set(['manager', 'supervisor', 'finance', 'admin', 'administrator', 'director', 'cfo', 'ceo', 'cto', 'legal', 'compliance', 'security', 'owner', 'lead', 'accounting', 'treasury', 'risk', 'hr', 'controller', 'human', 'operator']);
/** Words that carry no condition; never reported as unparsed. */
const STOP = new Set([
  ...ARTICLES,
  'any',
  'all',
  'every',
  'each',
  'must',
  'should',
  'shall',
  'will',
  'be',
  'is',
  'are',
  'was',
  'that',
  'which',
  'than',
  'and',
  'or',
  'of',
  'for',
  'if',
  'when',
  'where',
  'whose',
  'it',
  'they',
  'them',
  'always',
  'please',
  'only',
  'ever',
  'to',
  'by',
  'from',
  'in',
  'on',
  'with',
  'allow',
  'allowed',
  'permit',
  'first',
]);

/** Whether the phrase of words starts at token `at`. */
function phraseAt(tokens: readonly Token[], at: number, words: readonly string[]): boolean {
  for (let i = 0; i < words.length; i += 1) {
    const token = tokens[at + i];
    if (token === undefined || token.text !== words[i] || token.kind === 'number') return false;
  }
  return true;
}

function longestAt<T>(tokens: readonly Token[], at: number, table: ReadonlyArray<[string[], T]>): [string[], T] | undefined {
  let best: [string[], T] | undefined;
  for (const entry of table) if (phraseAt(tokens, at, entry[0]) && (best === undefined || entry[0].length > best[0].length)) best = entry;
  return best;
}

const markUsed = (tokens: Token[], from: number, count: number) => {
  for (let i = from; i < from + count && i < tokens.length; i += 1) (tokens[i] as Token).used = true;
};

const isWord = (token: Token | undefined): token is Token => token !== undefined && token.kind === 'word';

interface Amount {
  value: number;
  unit: string | null;
  /** Token range it covers. */
  from: number;
  to: number;
}

/** An amount starting at token `at`: [currency symbol] number [multiplier] [currency word | percent]. */
function amountAt(tokens: Token[], at: number): Amount | null {
  let index = at;
  let unit: string | null = null;
  const symbol = tokens[index];
  if (symbol?.kind === 'symbol' && CURRENCY_SYMBOLS[symbol.text] !== undefined) {
    unit = CURRENCY_SYMBOLS[symbol.text] as string;
    index += 1;
  }
  const number = tokens[index];
  if (number?.kind !== 'number') return null;
  let value = Number(number.text);
  if (!Number.isFinite(value)) return null;
  index += 1;
  const multiplier = tokens[index];
  if (isWord(multiplier) && MULTIPLIERS[multiplier.text] !== undefined) {
    value *= MULTIPLIERS[multiplier.text] as number;
    index += 1;
  }
  const after = tokens[index];
  if (after?.kind === 'symbol' && after.text === '%') {
    unit = 'percent';
    index += 1;
  } else if (isWord(after) && PERCENT_WORDS.has(after.text)) {
    unit = 'percent';
    index += 1;
  } else if (isWord(after) && after.text === 'per' && tokens[index + 1]?.text === 'cent') {
    unit = 'percent';
    index += 2;
  } else if (isWord(after) && CURRENCY_WORDS[after.text] !== undefined) {
    unit = CURRENCY_WORDS[after.text] as string;
    index += 1;
  }
  return { value, unit, from: at, to: index };
}

/**
 * Compiles one plain-language rule. Deterministic: the same text gives the same definition.
 * @example compileBusinessText('refunds above 500 dollars need a manager\'s approval').definition
 * // { key: 'refund_over_500', tools: ['*refund*'], conditions: [{ path: 'amount', op: 'gt', value: 500, unit: 'USD' }], effect: 'escalate', approver: 'manager', ... }
 */
export function compileBusinessText(text: string): CompiledText {
  const tokens = tokenize(text);
  const warnings: string[] = [];

  // 1. Comparisons with their amounts, and an argument named before them.
  const conditions: BusinessCondition[] = [];
  for (let i = 0; i < tokens.length; i += 1) {
    if ((tokens[i] as Token).used) continue;
    let op: ArgumentOperator | undefined;
    let amountStart = i;
    if (phraseAt(tokens, i, ['between'])) {
      const low = amountAt(tokens, i + 1);
      const high = low !== null && tokens[low.to]?.text === 'and' ? amountAt(tokens, low.to + 1) : null;
      if (low !== null && high !== null) {
        const unit = high.unit ?? low.unit;
        const path = fieldBefore(tokens, i, unit, warnings);
        conditions.push({ path, op: 'gte', value: low.value, unit }, { path, op: 'lte', value: high.value, unit });
        markUsed(tokens, i, high.to - i);
        i = high.to - 1;
        continue;
      }
    }
    const comparison = longestAt(tokens, i, COMPARISONS);
    if (comparison !== undefined) {
      op = comparison[1];
      amountStart = i + comparison[0].length;
    }
    const amount = amountAt(tokens, amountStart);
    if (amount === null) continue;
    let end = amount.to;
    if (op === undefined) {
      const trailing = longestAt(tokens, amount.to, TRAILING);
      if (trailing !== undefined) {
        op = trailing[1];
        end += trailing[0].length;
      } else {
        op = 'gte';
        warnings.push(`no comparison word before ${amount.value}: assumed "at least" (gte)`);
      }
    }
    const path = fieldBefore(tokens, i, amount.unit, warnings);
    conditions.push({ path, op, value: amount.value, unit: amount.unit });
    if (amount.unit === null) warnings.push(`${amount.value} has no currency or percent: it is compared as a plain number`);
    else if (amount.unit !== 'percent') warnings.push(`amounts are compared as plain numbers: the currency (${amount.unit}) is not checked against the call`);
    markUsed(tokens, i, end - i);
    i = end - 1;
  }

  // 2. The consequence: approval (escalate, with the approving role) or a prohibition (block).
  let approval = false;
  let approver: string | null = null;
  let prohibited = false;
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i] as Token;
    if (token.used) continue;
    const approvalWords = APPROVAL.find((words) => phraseAt(tokens, i, words));
    if (approvalWords !== undefined) {
      approval = true;
      markUsed(tokens, i, approvalWords.length);
      // "<role>'s approval" / "<role> approval"
      const before = tokens[i - 1];
      if (isWord(before) && !before.used) {
        const possessive = before.text.endsWith("'s") ? before.text.slice(0, -2) : null;
        if (possessive !== null || ROLES.has(before.text)) {
          approver ??= possessive ?? before.text;
          before.used = true;
        }
      }
      // "approval from <role>", "approved by the <role>"
      const introducer = tokens[i + approvalWords.length];
      if (isWord(introducer) && ROLE_INTRODUCERS.has(introducer.text)) {
        let at = i + approvalWords.length + 1;
        while (isWord(tokens[at]) && ARTICLES.has((tokens[at] as Token).text)) at += 1;
        const role: string[] = [];
        while (role.length < 3 && isWord(tokens[at]) && !STOP.has((tokens[at] as Token).text) && !ACTIONS.has((tokens[at] as Token).text)) {
          role.push((tokens[at] as Token).text.replace(/'s$/, ''));
          at += 1;
        }
        if (role.length > 0) {
          approver ??= role.join(' ');
          markUsed(tokens, i + approvalWords.length, at - (i + approvalWords.length));
        }
      }
      i += approvalWords.length - 1;
      continue;
    }
    const blockWords = BLOCK.find((words) => phraseAt(tokens, i, words));
    if (blockWords !== undefined) {
      prohibited = true;
      markUsed(tokens, i, blockWords.length);
      i += blockWords.length - 1;
    }
  }
  if (approval) {
    for (let i = 0; i < tokens.length; i += 1) {
      const need = NEED.find((words) => phraseAt(tokens, i, words));
      if (need !== undefined && !(tokens[i] as Token).used) markUsed(tokens, i, need.length);
    }
  }

  // 3. The action: the first action word not used above, with its object or qualifiers.
  let action: ActionEntry | undefined;
  let actionAt = -1;
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i] as Token;
    if (token.used || token.kind !== 'word') continue;
    const entry = ACTIONS.get(token.text);
    if (entry !== undefined) {
      // In "wire transfers" the last of the nouns is the action and the ones before qualify it.
      let head = i;
      while (isWord(tokens[head + 1]) && !(tokens[head + 1] as Token).used && ACTIONS.get((tokens[head + 1] as Token).text)?.verb === false) head += 1;
      action = ACTIONS.get((tokens[head] as Token).text) as ActionEntry;
      actionAt = head;
      (tokens[head] as Token).used = true;
      break;
    }
  }
  const qualifiers: string[] = [];
  if (action !== undefined) {
    if (action.verb) {
      // The object follows the verb: "delete customer records".
      for (let at = actionAt + 1; isWord(tokens[at]) && !(tokens[at] as Token).used && qualifiers.length < 2; at += 1) {
        const word = (tokens[at] as Token).text;
        if (STOP.has(word)) break;
        (tokens[at] as Token).used = true;
        if (!GENERIC_OBJECTS.has(word)) qualifiers.push(singular(word));
      }
    } else {
      // Qualifiers come before the noun: "international wire transfers".
      for (let at = actionAt - 1; isWord(tokens[at]) && !(tokens[at] as Token).used && qualifiers.length < 2; at -= 1) {
        const word = (tokens[at] as Token).text;
        if (STOP.has(word)) break;
        (tokens[at] as Token).used = true;
        qualifiers.unshift(singular(word));
      }
    }
  }
  const tools = action === undefined ? ['*'] : toolPatterns(action, qualifiers);
  if (action === undefined) warnings.push('no action (refund, transfer, payment, discount, delete, ...) was found: the rule would apply to every tool call');
  else {
    warnings.push(`the action "${action.action}${qualifiers.length > 0 ? ` (${qualifiers.join(' ')})` : ''}" matches tools named like ${tools.join(', ')}: check them against your tool keys`);
  }

  let effect: 'escalate' | 'block';
  if (approval) effect = 'escalate';
  else if (prohibited) effect = 'block';
  else {
    effect = 'escalate';
    warnings.push('no consequence (need approval, block, never, ...) was found: assumed that the call needs approval (escalate)');
  }
  if (approval && prohibited) warnings.push('both an approval and a prohibition were found: the approval wins (escalate)');

  // 4. What is left: words and phrases that were not used and carry content.
  const unparsed: string[] = [];
  let run: string[] = [];
  const flush = () => {
    while (run.length > 0 && STOP.has(run[run.length - 1] as string)) run.pop();
    if (run.some((word) => !STOP.has(word))) unparsed.push(run.join(' '));
    run = [];
  };
  for (const token of tokens) {
    if (token.used || token.kind === 'punct') flush();
    else if (run.length > 0 || !STOP.has(token.text) || token.text === 'to') run.push(token.text);
  }
  flush();
  for (const words of unparsed) warnings.push(`"${words}" was not understood and is not part of the rule: it applies whatever "${words}" says`);

  const definition: BusinessDefinition = {
    key: keyFor(action?.action ?? 'any', action?.verb ?? false, qualifiers, conditions, effect),
    text,
    ...(action === undefined ? {} : { action: action.action }),
    tools,
    conditions,
    effect,
    approver: effect === 'escalate' ? approver : null,
    mode: 'observe',
  };
  return { definition, understood: action !== undefined && (approval || prohibited || conditions.length > 0), unparsed, warnings };
}

/** The argument a comparison is about: a field word just before it, else the default for the unit. */
function fieldBefore(tokens: Token[], at: number, unit: string | null, warnings: string[]): string {
  for (let back = at - 1; back >= 0 && back >= at - 4; back -= 1) {
    const token = tokens[back] as Token;
    if (token.kind !== 'word' || token.used) break;
    if (FIELDS.has(token.text)) {
      token.used = true;
      return token.text === 'percentage' ? 'percent' : token.text;
    }
    if (!STOP.has(token.text) && !['is', 'with', 'whose', 'where', 'has', 'have'].includes(token.text)) break;
  }
  const path = unit === 'percent' ? 'percent' : 'amount';
  warnings.push(`no argument was named for the ${unit === 'percent' ? 'percentage' : 'amount'}: assumed the tool argument "${path}"`);
  return path;
}

function singular(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/** `*stem*`, with qualifiers (nouns) or the object (verbs) around it in both orders. */
function toolPatterns(action: ActionEntry, qualifiers: readonly string[]): string[] {
  const patterns = new Set<string>();
  for (const stem of action.stems) {
    if (qualifiers.length === 0) patterns.add(`*${stem}*`);
    else {
      const words = qualifiers.join('*');
      patterns.add(`*${words}*${stem}*`);
      patterns.add(`*${stem}*${words}*`);
    }
  }
  return [...patterns];
}

const OP_WORDS: Record<ArgumentOperator, string> = { gt: 'over', gte: 'from', lt: 'under', lte: 'upto', eq: 'eq', ne: 'ne', in: 'in', exists: 'with' };

function keyFor(action: string, verb: boolean, qualifiers: readonly string[], conditions: readonly BusinessCondition[], effect: string): string {
  const parts = verb ? [action, ...qualifiers] : [...qualifiers, action];
  for (const condition of conditions) {
    parts.push(OP_WORDS[condition.op]);
    if (typeof condition.value === 'number') parts.push(String(condition.value).replace(/[^0-9]/g, '_'));
  }
  if (conditions.length === 0) parts.push(effect === 'block' ? 'blocked' : 'approval');
  const key = parts
    .join('_')
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '');
  const safe = /^[a-z]/.test(key) ? key : `rule_${key}`;
  return safe.slice(0, 80).replace(/_$/, '');
}

/** The key of a definition that names none: its action (or first tool), conditions and effect. */
export function definitionKey(definition: BusinessDefinition): string {
  const base = definition.action ?? (definition.tools[0] ?? 'rule').replace(/\*/g, ' ').trim();
  return keyFor(base === '' ? 'any_tool' : base, false, [], definition.conditions ?? [], definition.effect);
}
