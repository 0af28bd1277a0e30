// The PII pattern packs as data: for each entity type a candidate regex, scores, context words and
// the validator that tells a real value from a look-alike. Hot path: no I/O here.
//
// Every regex is linear-time: character classes with bounded repetition, short bounded
// lookarounds, and no quantified group whose body can match the same text two ways (each repeated
// group starts with a separator its neighbours cannot match, e.g. "\.label" or " ?char"). The regexes are
// deliberately loose; exact rules (octet ranges, checksums, issuer ranges) live in the validators,
// which is both cheaper and easier to read than encoding them in the pattern.
import ipaddr from 'ipaddr.js';
import { analysePhone, type PhoneShape } from './phone.js';
import {
  aadhaarValid,
  creditCardValid,
  cardBrand,
  digitsOf,
  euVatVerdict,
  IBAN_LENGTHS,
  ibanValid,
  ipv4Valid,
  ipv6Valid,
  luhnValid,
  nhsValid,
  ninoValid,
  panValid,
  plausibleBirthDate,
  ssnValid,
} from './validators.js';

export type PackName = 'global' | 'us' | 'uk' | 'eu' | 'in';

/** The packs the gateway enables when the configuration names none; `in` is opt-in. */
export const DEFAULT_PACKS: readonly PackName[] = ['global', 'us', 'uk', 'eu'];

/** What a validator concluded about one regex match. */
export interface Verdict {
  ok: boolean;
  /** Validator name and result for the explanation, e.g. `luhn: ok`. */
  check: string;
  /** Narrowed span (absolute offsets) when the validator trimmed the match. */
  start?: number;
  end?: number;
  /** Score overrides for this match (e.g. a weaker phone shape); 0 means "only with context". */
  baseScore?: number;
  contextScore?: number;
}

export interface PiiPattern {
  name: string;
  entity: string;
  pack: PackName;
  /** Candidate finder; must carry the `g` flag. */
  regex: RegExp;
  /** Score when validated without a context word nearby; 0 means the pattern needs context. */
  baseScore: number;
  /** Score when a context word is nearby. */
  contextScore: number;
  contextWords?: readonly string[];
  /** Words that make the number something else (order, version …) unless a context word is also there. */
  negativeWords?: readonly string[];
  /** Characters before / after the match searched for context words. */
  contextBefore?: number;
  contextAfter?: number;
  /** The context word must not be separated from the value by other digits (another number or date). */
  contextAdjacent?: boolean;
  /** Cheap pre-check: skip the regex unless the text contains one of these strings. */
  requires?: readonly string[];
  /** Lower wins when two detections overlap with the same score (more specific types first). */
  precedence: number;
  validate?: (match: RegExpExecArray, text: string) => Verdict;
}

const ok = (check: string, extra: Omit<Verdict, 'ok' | 'check'> = {}): Verdict => ({ ok: true, check, ...extra });
const rejected = (check: string): Verdict => ({ ok: false, check });

function isAlnumAt(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

// --- e-mail ---------------------------------------------------------------------------------------

// File names such as "icon@2x.png" share the shape; a real top-level domain is never one of these.
const FILE_EXTENSIONS = new Set(['png', 'jpg', 'jpeg', 'gif', 'svg', 'webp', 'bmp', 'ico', 'js', 'ts', 'css', 'map', 'json', 'txt']);

function isLetterCode(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

function isEmailLocalCode(code: number): boolean {
  // A-Z a-z 0-9 . _ % + -
  return isLetterCode(code) || (code >= 48 && code <= 57) || code === 46 || code === 95 || code === 37 || code === 43 || code === 45;
}

/** Whether the ':' at `colon` sits in "scheme://user:password@host" (a credential, not an address). */
function isUrlUserInfo(text: string, colon: number): boolean {
  for (let i = colon - 1; i >= 2 && colon - i < 256; i -= 1) {
    const char = text[i];
    if (char === ' ' || char === '\n' || char === '\t' || char === '@') return false;
    if (char === '/' && text[i - 1] === '/' && text[i - 2] === ':') return true;
  }
  return false;
}

/** The regex matches from the "@"; walk back over the local part (at most 64 characters). */
function validateEmail(match: RegExpExecArray, text: string): Verdict {
  const value = match[0];
  const end = match.index + value.length;
  // Cheapest test first: the last label must be a top-level domain of 2–24 letters.
  const tldStart = value.lastIndexOf('.') + 1;
  if (end - (match.index + tldStart) < 2 || end - (match.index + tldStart) > 24) return rejected('email-syntax: no top-level domain');
  for (let i = tldStart; i < value.length; i += 1) if (!isLetterCode(value.charCodeAt(i))) return rejected('email-syntax: no top-level domain');
  if (FILE_EXTENSIONS.has(value.slice(tldStart).toLowerCase())) return rejected('email-syntax: file name');
  if (text[end] === '-' || text[end] === '_' || isAlnumAt(text, end)) return rejected('email-syntax: overlong label');
  let start = match.index;
  while (start > 0 && match.index - start < 65 && isEmailLocalCode(text.charCodeAt(start - 1))) start -= 1;
  const local = text.slice(start, match.index);
  if (local.length === 0 || local.length > 64) return rejected('email-syntax: bad local part');
  if (local.startsWith('.') || local.endsWith('.') || local.includes('..')) return rejected('email-syntax: bad local part');
  if (text[start - 1] === ':' && isUrlUserInfo(text, start - 1)) return rejected('email-syntax: URL user:password@host');
  if (value.slice(1).split('.').some((label) => label.startsWith('-') || label.endsWith('-'))) return rejected('email-syntax: bad domain label');
  return ok('email-syntax: ok', { start, end });
}

// --- IP addresses ---------------------------------------------------------------------------------

// Loopback, "any" and broadcast addresses name a machine's own interfaces, never a person; a
// quad starting 255 is a netmask. ipaddr.js names the ranges of both families.
const NON_PERSONAL_RANGES = new Set(['loopback', 'unspecified', 'broadcast']);

function nonPersonal(value: string): boolean {
  try {
    const parsed = ipaddr.parse(value);
    const address = parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed;
    return NON_PERSONAL_RANGES.has(address.range()) || address.toString().startsWith('255.');
  } catch {
    return false;
  }
}

/** Four decimal octets 0–255 written with leading zeros ("192.168.001.010"). */
function zeroPaddedIpv4(value: string): boolean {
  return value.split('.').every((part) => part.length <= 3 && Number(part) <= 255);
}

// A dotted quad right after one of these words is a version or a section number, not an address
// ("version 1.2.3.4", "firmware v10.2.0.1", "see section 4.2.1.3"). Only the words right before the
// value count: a log line "update from 203.0.113.5" still holds an address.
const NUMBERING_BEFORE =
  /(?<![A-Za-z])(?:version|versions|ver|release|build|firmware|sdk|package|upgrade|update|patch|changelog|oid|snmp|mib|section|chapter|clause|paragraph|article|figure|table|step|item|rule|§)\.?(?:\s+(?:is|was|of|to|now))?[\s:=#@-]*v?$/i;

function validateIpv4(match: RegExpExecArray, text: string): Verdict {
  if (!ipv4Valid(match[0])) {
    // Zero-padded octets are how some logs and forms print addresses, and how some version
    // numbers look: only next to a word such as "IP" or "host".
    if (!zeroPaddedIpv4(match[0])) return rejected('ipv4-octets: out of range');
    const unpadded = match[0].split('.').map(Number).join('.');
    if (nonPersonal(unpadded)) return rejected('ipv4-octets: loopback/broadcast');
    return ok('ipv4-octets: ok, zero-padded', { baseScore: 0, contextScore: 0.85 });
  }
  if (nonPersonal(match[0])) return rejected('ipv4-octets: loopback/broadcast/netmask');
  if (NUMBERING_BEFORE.test(text.slice(Math.max(0, match.index - 24), match.index))) return rejected('ipv4-octets: version or section number');
  return ok('ipv4-octets: ok');
}

const HEX_CHAR = /[0-9A-Fa-f]/;

/** The regex matches from the first ":"; walk back over the leading group (at most four hex digits). */
function validateIpv6(match: RegExpExecArray, text: string): Verdict {
  let start = match.index;
  while (start > 0 && match.index - start < 4 && HEX_CHAR.test(text[start - 1] ?? '')) start -= 1;
  let value = text.slice(start, match.index + match[0].length);
  // A trailing colon belongs to the sentence ("reach fe80::1: it …"), not to the address.
  if (value.endsWith(':') && !value.endsWith('::')) value = value.slice(0, -1);
  const end = start + value.length;
  if (isAlnumAt(text, end)) return rejected('ipv6-groups: runs on');
  if (!ipv6Valid(value)) return rejected('ipv6-groups: malformed');
  return nonPersonal(value) ? rejected('ipv6-groups: loopback/unspecified') : ok('ipv6-groups: ok', { start, end });
}

// --- payment cards and bank accounts --------------------------------------------------------------

function validateCard(match: RegExpExecArray): Verdict {
  const digits = digitsOf(match[0]);
  if (!creditCardValid(digits)) {
    // Issuer tables are never complete (new ranges, test generators): a Luhn-valid number that
    // fits no known range still counts when the text calls it a card.
    if (luhnValid(digits) && !/^(\d)\1+$/.test(digits)) return ok('luhn: ok, iin: unknown', { baseScore: 0, contextScore: 0.9 });
    return rejected('luhn+iin: failed');
  }
  const brand = cardBrand(digits) ?? 'card';
  // Short Maestro-range numbers pass Luhn one time in ten by chance: weaker without context.
  return digits.length < 14 ? ok(`luhn+iin: ok (${brand})`, { baseScore: 0.55 }) : ok(`luhn+iin: ok (${brand})`);
}

function validateIban(match: RegExpExecArray, text: string): Verdict {
  const raw = match[0];
  const country = raw.slice(0, 2).toUpperCase();
  const expected = IBAN_LENGTHS[country];
  if (expected === undefined) return rejected('mod97: unknown country');
  // The regex may run into the following words; cut at the country's IBAN length.
  let compact = '';
  let cut = -1;
  for (let i = 0; i < raw.length; i += 1) {
    if (raw[i] === ' ') continue;
    compact += raw[i];
    if (compact.length === expected) {
      cut = i + 1;
      break;
    }
  }
  if (cut === -1) return rejected('mod97: too short');
  const end = match.index + cut;
  if (isAlnumAt(text, end)) return rejected('mod97: longer than the country length');
  return ibanValid(compact.toUpperCase()) ? ok('mod97: ok', { start: match.index, end }) : rejected('mod97: failed');
}

// --- dates of birth -------------------------------------------------------------------------------

// Month names in English, French, German, Spanish, Italian, Portuguese and Dutch; abbreviations
// that are also common words ("set", "out") are left out. The alternation is sorted longest first
// so it never stops at a shorter name.
const MONTHS: ReadonlyArray<readonly [number, readonly string[]]> = [
  [1, ['january', 'janvier', 'januar', 'januari', 'enero', 'gennaio', 'janeiro', 'jan']],
  [2, ['february', 'février', 'fevrier', 'februar', 'februari', 'febrero', 'febbraio', 'fevereiro', 'feb', 'fév', 'fev']],
  [3, ['march', 'mars', 'märz', 'maerz', 'maart', 'marzo', 'março', 'marco', 'mar', 'mrz']],
  [4, ['april', 'avril', 'abril', 'aprile', 'apr', 'avr']],
  [5, ['may', 'mai', 'mayo', 'maggio', 'maio', 'mei']],
  [6, ['june', 'juin', 'juni', 'junio', 'giugno', 'junho', 'jun']],
  [7, ['july', 'juillet', 'juli', 'julio', 'luglio', 'julho', 'jul', 'juil']],
  [8, ['august', 'août', 'aout', 'augustus', 'agosto', 'aug']],
  [9, ['september', 'septembre', 'septiembre', 'settembre', 'setembro', 'sept', 'sep']],
  [10, ['october', 'octobre', 'oktober', 'octubre', 'ottobre', 'outubro', 'oct', 'okt']],
  [11, ['november', 'novembre', 'noviembre', 'novembro', 'nov']],
  [12, ['december', 'décembre', 'decembre', 'dezember', 'diciembre', 'dicembre', 'dezembro', 'dec', 'déc', 'dez', 'dic']],
];
const MONTH_BY_NAME = new Map<string, number>(MONTHS.flatMap(([month, names]) => names.map((name) => [name, month] as const)));
const MONTH_ALTERNATION = [...MONTH_BY_NAME.keys()].sort((a, b) => b.length - a.length).join('|');

// Top-level shapes: numeric (y-m-d or d/m/y, m/d/y), "12 March 1980" / "12-Mar-1980", "March 12, 1980".
const DATE_REGEX = new RegExp(
  String.raw`(?<![\p{L}\p{N}])(?:` +
    String.raw`(?<y1>\d{4})[-./](?<m1>\d{1,2})[-./](?<d1>\d{1,2})` +
    String.raw`|(?<a2>\d{1,2})[-./](?<b2>\d{1,2})[-./](?<y2>\d{4}|\d{2})` +
    String.raw`|(?<d3>\d{1,2})(?:st|nd|rd|th|er|º|\.)?[\s-]?(?:(?:de|of)\s)?(?<mn3>${MONTH_ALTERNATION})\.?,?[\s-](?:de\s)?(?<y3>\d{4})` +
    String.raw`|(?<mn4>${MONTH_ALTERNATION})\.?\s(?<d4>\d{1,2})(?:st|nd|rd|th)?,?\s(?<y4>\d{4})` +
    String.raw`)(?![\p{L}\p{N}])`,
  'giu',
);

function fullYear(year: string, currentYear: number): number {
  if (year.length === 4) return Number(year);
  // Two-digit years in a birth date: assume the most recent century that is not in the future.
  const short = Number(year);
  return 2000 + short > currentYear ? 1900 + short : 2000 + short;
}

function validateBirthDate(match: RegExpExecArray): Verdict {
  const groups = match.groups ?? {};
  const currentYear = new Date().getUTCFullYear();
  const monthOf = (name: string | undefined): number => MONTH_BY_NAME.get((name ?? '').toLowerCase()) ?? 0;
  let plausible = false;
  if (groups.y1 !== undefined) {
    plausible = plausibleBirthDate(Number(groups.d1), Number(groups.m1), Number(groups.y1), currentYear);
  } else if (groups.y2 !== undefined) {
    const year = fullYear(groups.y2, currentYear);
    // Day-first (most of the world) or month-first (US): either reading may be the intended one.
    plausible =
      plausibleBirthDate(Number(groups.a2), Number(groups.b2), year, currentYear) ||
      plausibleBirthDate(Number(groups.b2), Number(groups.a2), year, currentYear);
  } else if (groups.y3 !== undefined) {
    plausible = plausibleBirthDate(Number(groups.d3), monthOf(groups.mn3), Number(groups.y3), currentYear);
  } else if (groups.y4 !== undefined) {
    plausible = plausibleBirthDate(Number(groups.d4), monthOf(groups.mn4), Number(groups.y4), currentYear);
  }
  return plausible ? ok('calendar-date: ok') : rejected('calendar-date: impossible');
}

// --- US -------------------------------------------------------------------------------------------

function validateSsn(match: RegExpExecArray): Verdict {
  const digits = digitsOf(match[0]);
  if (!ssnValid(digits)) return rejected('ssn-ranges: invalid area/group/serial');
  const separator = match[2] ?? '';
  // Only the dashed 3-2-4 form is distinctive; spaced or bare nine digits need a context word.
  if (separator === '-') return ok('ssn-ranges: ok');
  return ok('ssn-ranges: ok', { baseScore: separator === ' ' ? 0.5 : 0 });
}

const PHONE_SCORES: Readonly<Record<PhoneShape, { baseScore: number; contextScore: number }>> = {
  nanp: { baseScore: 0.8, contextScore: 0.95 },
  international: { baseScore: 0.8, contextScore: 0.95 },
  // Below the "validated" band: the layout is right but the codes are not in the numbering plan.
  'nanp-like': { baseScore: 0.5, contextScore: 0.85 },
  separated: { baseScore: 0, contextScore: 0.75 },
  plain: { baseScore: 0, contextScore: 0.65 },
};

// "17031 2202 Rissik St": house numbers in front of a street name look like a national number.
const STREET_AFTER = /[ \t]+(?:[A-Z][\p{L}'-]{1,30}[ \t]+){1,3}(?:St|Street|Rd|Road|Ave|Avenue|Ln|Lane|Blvd|Boulevard|Dr|Drive|Way|Ct|Court|Pl|Place|Sq|Square|Terrace|Crescent|Close|Straße|Strasse|Rue|Via|Calle)\b/uy;

function validatePhone(match: RegExpExecArray, text: string): Verdict {
  const found = analysePhone(text, match.index, match.index + match[0].length);
  if (found === undefined) return rejected('phone-shape: not a phone number');
  if (found.shape === 'separated' || found.shape === 'plain') {
    STREET_AFTER.lastIndex = found.end;
    if (STREET_AFTER.test(text)) return rejected('phone-shape: street address');
  }
  return ok(`phone-shape: ${found.shape}`, { start: found.start, end: found.end, ...PHONE_SCORES[found.shape] });
}

// --- UK -------------------------------------------------------------------------------------------

function validateNino(match: RegExpExecArray): Verdict {
  const compact = match[0].replace(/ /g, '').toUpperCase();
  if (ninoValid(compact)) return ok('nino-rules: ok');
  // QQ is never issued but is the prefix HMRC prints in examples: labelled, it is still meant as one.
  if (compact.startsWith('QQ') && ninoValid(`AB${compact.slice(2)}`)) return ok('nino-rules: example prefix QQ', { baseScore: 0, contextScore: 0.85 });
  return rejected('nino-rules: excluded letters');
}

function validateNhs(match: RegExpExecArray): Verdict {
  const digits = digitsOf(match[0]);
  if (!nhsValid(digits)) return rejected('nhs-mod11: failed');
  // One random ten-digit number in eleven passes mod 11: the bare form needs context.
  return ok('nhs-mod11: ok', { baseScore: match[1] === '' ? 0 : 0.6 });
}

// --- EU -------------------------------------------------------------------------------------------

// Shapes distinctive enough to report without a context word even where no checksum is known.
const DISTINCTIVE_VAT = /^(?:ATU\d{8}|NL\d{9}B\d{2}|SE\d{10}01)$/;
const VAT_SEPARATORS = /[ .\-/]/g;

/**
 * VAT numbers are often printed in groups ("FR 83 404 833 048", "BE 0403.170.701", "PL 584-030-44-72").
 * The regex may take in a following word, so try the longest run of groups first and drop
 * trailing groups until a member-state shape fits. Only an upper-case prefix counts: "de", "it"
 * and "es" are words far more often than country codes.
 */
function validateVat(match: RegExpExecArray): Verdict {
  const prefix = match[1] ?? '';
  const body = match[2] ?? '';
  const bodyOffset = match.index + match[0].length - body.length;
  const groupEnds: number[] = [];
  for (let i = 0; i < body.length; i += 1) {
    const next = body[i + 1];
    if (next === ' ' || next === '.' || next === '-' || next === '/' || i === body.length - 1) groupEnds.push(i + 1);
  }
  for (let g = groupEnds.length - 1; g >= 0; g -= 1) {
    const length = groupEnds[g] ?? 0;
    const compact = body.slice(0, length).replace(VAT_SEPARATORS, '').toUpperCase();
    const verdict = euVatVerdict(prefix, compact);
    if (verdict === 'bad-format') continue;
    const span = { start: match.index, end: bodyOffset + length };
    // A failed check digit next to "VAT"/"USt-IdNr." is still a VAT number someone mistyped or
    // made up for an example; without such a word it is just a code.
    if (verdict === 'checksum-failed') {
      // ATU…, NL…B.. and SE…01 are never anything else: a made-up example is still meant as one.
      const distinctive = DISTINCTIVE_VAT.test(prefix + compact);
      return ok(`vat-checksum(${prefix}): failed`, { ...span, baseScore: distinctive ? 0.55 : 0, contextScore: distinctive ? 0.75 : 0.6 });
    }
    if (verdict === 'checksum-ok') return ok(`vat-checksum(${prefix}): ok`, span);
    const distinctive = DISTINCTIVE_VAT.test(prefix + compact);
    return ok(`vat-format(${prefix}): ok, no checksum`, { ...span, baseScore: distinctive ? 0.55 : 0, contextScore: 0.85 });
  }
  return rejected(`vat-format(${prefix}): no match`);
}

/**
 * A VAT number printed without its country prefix right after its label ("Partita IVA 00743110157",
 * "USt-IdNr.: 136695976"): the label is the evidence; a member state's check digit raises the score.
 */
function validateNationalVat(match: RegExpExecArray): Verdict {
  const digits = digitsOf(match[0]);
  for (const prefix of NATIONAL_VAT_PREFIXES) {
    if (euVatVerdict(prefix, digits) === 'checksum-ok') return ok(`vat-checksum(${prefix}): ok`);
  }
  return ok('vat-format: labelled, no checksum matched', { contextScore: 0.6 });
}
const NATIONAL_VAT_PREFIXES = ['AT', 'BE', 'BG', 'CZ', 'DE', 'DK', 'EE', 'EL', 'FI', 'FR', 'GB', 'HR', 'HU', 'IT', 'LT', 'LU', 'LV', 'MT', 'NL', 'PL', 'PT', 'RO', 'SE', 'SI', 'SK'];

// --- India ----------------------------------------------------------------------------------------

function validateAadhaar(match: RegExpExecArray): Verdict {
  if (!aadhaarValid(digitsOf(match[0]))) return rejected('verhoeff: failed');
  return ok('verhoeff: ok', { baseScore: match[1] === '' ? 0.55 : 0.8 });
}

function validatePan(match: RegExpExecArray): Verdict {
  return panValid(match[0]) ? ok('pan-holder-type: ok') : rejected('pan-holder-type: unknown');
}

// --- shared word lists ----------------------------------------------------------------------------

const NOT_AN_IDENTIFIER = ['order', 'invoice', 'tracking', 'isbn', 'serial', 'ref', 'reference', 'ticket', 'confirmation', 'sku', 'part', 'model'];
const VERSION_WORDS = ['version', 'versions', 'ver', 'release', 'build', 'firmware', 'sdk', 'package', 'upgrade', 'update', 'patch', 'changelog', 'oid', 'snmp', 'mib'];

/**
 * The patterns of every pack; the detector filters them by `pii_packs`. A leading `(?=\d)` costs
 * nothing in meaning but lets the engine skip non-digits before evaluating the lookbehind.
 */
export const PII_PATTERNS: readonly PiiPattern[] = [
  {
    name: 'email-address',
    entity: 'PII.EMAIL',
    pack: 'global',
    // Anchored on the "@" so the scan skips ordinary words fast; the validator finds the local part.
    regex: /@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){1,8}/g,
    baseScore: 0.85,
    contextScore: 0.95,
    contextWords: ['email', 'e-mail', 'mail', 'contact', 'write to', 'courriel', 'correo'],
    requires: ['@'],
    precedence: 3,
    validate: validateEmail,
  },
  {
    name: 'ipv4-dotted-quad',
    entity: 'PII.IP_ADDRESS',
    pack: 'global',
    regex: /(?=\d)(?<![\w.])\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}(?!\w|\.\d)/g,
    baseScore: 0.8,
    contextScore: 0.95,
    contextWords: ['ip', 'ip address', 'ipv4', 'address', 'host', 'hostname', 'server', 'client', 'gateway', 'dns', 'router', 'subnet', 'proxy', 'ping', 'connected', 'connection', 'logged in', 'login', 'remote', 'source'],
    contextBefore: 32,
    requires: ['.'],
    precedence: 5,
    validate: validateIpv4,
  },
  {
    name: 'ipv6-address',
    entity: 'PII.IP_ADDRESS',
    pack: 'global',
    // Anchored on the first ":" (the lookbehind allows at most four hex digits before it) so the
    // scan jumps from colon to colon instead of trying every letter a–f.
    regex: /:(?<=(?:^|[^\w:.])[0-9A-Fa-f]{0,4}:)[0-9A-Fa-f:]{1,38}(?:\.\d{1,3}){0,3}/g,
    baseScore: 0.8,
    contextScore: 0.95,
    contextWords: ['ip', 'ip address', 'ipv6', 'address', 'host', 'server', 'client', 'gateway', 'router', 'subnet'],
    requires: [':'],
    precedence: 4,
    validate: validateIpv6,
  },
  {
    name: 'payment-card',
    entity: 'PII.CREDIT_CARD',
    pack: 'global',
    // Unbroken 12–19 digits, 4-4-4-x groups, or the 4-6-5 / 4-6-4 Amex and Diners layout.
    regex: /(?=\d)(?<![\w.-])(?:\d{12,19}|\d{4}([ -])\d{4}\1\d{4}\1\d{1,7}|\d{4}([ -])\d{6}\2\d{4,5})(?![\w-]|[.,]\d)/g,
    baseScore: 0.8,
    contextScore: 0.95,
    contextWords: ['card', 'credit', 'debit', 'visa', 'mastercard', 'master card', 'amex', 'american express', 'discover', 'diners', 'jcb', 'maestro', 'unionpay', 'cc', 'ccn', 'cvv', 'cvc', 'expiry', 'exp', 'payment', 'pay', 'paid', 'charge', 'charged', 'billing', 'kreditkarte', 'carte', 'tarjeta'],
    negativeWords: NOT_AN_IDENTIFIER,
    precedence: 2,
    validate: validateCard,
  },
  {
    name: 'iban',
    entity: 'PII.IBAN',
    pack: 'global',
    regex: /(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]){11,30}/g,
    baseScore: 0.85,
    contextScore: 0.95,
    contextWords: ['iban', 'account', 'bank', 'transfer', 'sepa', 'bic', 'swift', 'wire', 'beneficiary', 'konto', 'kontonummer', 'compte', 'rib', 'cuenta', 'conto'],
    precedence: 1,
    validate: validateIban,
  },
  {
    name: 'date-of-birth',
    entity: 'PII.DATE_OF_BIRTH',
    pack: 'global',
    regex: DATE_REGEX,
    baseScore: 0,
    contextScore: 0.9,
    contextWords: [
      'born', 'birth', 'birthday', 'birthdate', 'date of birth', 'dob', 'd.o.b', 'd.o.b.', 'b-day',
      'né', 'née', 'né le', 'née le', 'naissance', 'date de naissance',
      'geboren', 'geb', 'geb.', 'geburtsdatum', 'geburtstag', 'geboortedatum',
      'fecha de nacimiento', 'nacido', 'nacida', 'nacimiento', 'data di nascita', 'nato il', 'nata il', 'nascita',
      'data de nascimento', 'nascido', 'nascida', 'nascimento', 'urodzony', 'urodzona', 'född', 'født',
    ],
    contextBefore: 40,
    contextAfter: 16,
    contextAdjacent: true,
    precedence: 14,
    validate: validateBirthDate,
  },
  {
    name: 'us-ssn',
    entity: 'PII.US_SSN',
    pack: 'us',
    regex: /(?=\d)(?<![\w-])(\d{3})([- ]?)(\d{2})\2(\d{4})(?![\w-])/g,
    baseScore: 0.8,
    contextScore: 0.95,
    contextWords: ['ssn', 'ss#', 'ss #', 'ss no', 'social security', 'social security number', 'social sec', 'ssa', 'taxpayer', 'tin', 'itin'],
    negativeWords: [...NOT_AN_IDENTIFIER, 'phone', 'tel', 'fax', 'call', 'mobile'],
    precedence: 6,
    validate: validateSsn,
  },
  {
    name: 'phone-number',
    entity: 'PII.US_PHONE',
    pack: 'us',
    // A run of digits and phone punctuation; phone.ts picks out the phone-shaped part.
    regex: /(?<![\w+.\-/]|\d,)[+(]{0,2}\d[\d ().\-\u00A0]{6,24}/g,
    baseScore: 0.8,
    contextScore: 0.95,
    contextWords: [
      'phone', 'telephone', 'tel', 'tel.', 'mobile', 'mob', 'cell', 'cellphone', 'fax', 'call', 'called', 'calling',
      'ring', 'dial', 'text', 'sms', 'whatsapp', 'contact', 'office', 'desk', 'landline', 'voicemail', 'hotline',
      'helpline', 'answering', 'message', 'messages', 'reach', 'reached', 'telefon', 'téléphone', 'tél', 'handy',
      'telefono', 'teléfono', 'móvil', 'movil', 'celular', 'portable', 'cellulare', 'telemóvel',
      // Compound words never contain a shorter word at a word boundary, so they are listed whole.
      'telefonnummer', 'handynummer', 'mobilnummer', 'rufnummer', 'kontakt', 'contacto', 'contatto',
      'appelez', 'appeler', 'llamar', 'llame', 'chiamare', 'phone number', 'tel no', 'tel nr', 'ph',
      'my number', 'your number', 'his number', 'her number', 'our number', 'their number',
    ],
    negativeWords: [
      ...NOT_AN_IDENTIFIER, ...VERSION_WORDS, 'zip', 'zip code', 'postal', 'postcode', 'post code', 'ssn', 'social security',
      'account', 'acct', 'iban', 'card', 'id', 'pin', 'price', 'total', 'amount', 'qty', 'quantity', 'isbn',
    ],
    contextBefore: 40,
    contextAfter: 16,
    precedence: 20,
    validate: validatePhone,
  },
  {
    name: 'us-passport',
    entity: 'PII.US_PASSPORT',
    pack: 'us',
    regex: /(?<![\w-])(?:[A-Za-z]\d{8}|\d{9})(?![\w-])/g,
    baseScore: 0,
    contextScore: 0.85,
    contextWords: ['passport', 'passport no', 'passport number', 'passport #', 'travel document'],
    contextBefore: 40,
    contextAfter: 0,
    contextAdjacent: true,
    precedence: 12,
  },
  {
    name: 'us-medical-record-number',
    entity: 'PII.US_MRN',
    pack: 'us',
    regex: /(?<![\w-])[A-Za-z]{0,3}-?\d{5,10}(?![\w-])/g,
    baseScore: 0,
    contextScore: 0.85,
    contextWords: ['mrn', 'medical record', 'medical record number', 'medical record no', 'med rec', 'med. rec.', 'medical rec'],
    contextBefore: 32,
    contextAfter: 0,
    contextAdjacent: true,
    precedence: 13,
  },
  {
    name: 'uk-national-insurance-number',
    entity: 'PII.UK_NINO',
    pack: 'uk',
    regex: /(?<![A-Za-z0-9])[A-Za-z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-Da-d](?![A-Za-z0-9])/g,
    baseScore: 0.75,
    contextScore: 0.95,
    contextWords: ['national insurance', 'national insurance number', 'ni number', 'ni no', 'nino', 'nin', 'insurance number', 'ni'],
    precedence: 10,
    validate: validateNino,
  },
  {
    name: 'uk-nhs-number',
    entity: 'PII.UK_NHS',
    pack: 'uk',
    regex: /(?=\d)(?<![\w-])\d{3}([ -]?)\d{3}\1\d{4}(?![\w-])/g,
    baseScore: 0.6,
    contextScore: 0.95,
    contextWords: ['nhs', 'nhs number', 'nhs no', 'national health service', 'health service', 'patient', 'nhs id'],
    negativeWords: NOT_AN_IDENTIFIER,
    precedence: 7,
    validate: validateNhs,
  },
  {
    name: 'eu-vat-number',
    entity: 'PII.EU_VAT',
    pack: 'eu',
    // The body has a digit within its first three characters, so "Greek VAT EL …" does not start a
    // match at "Gr" and swallow the real prefix.
    regex: /(?<![A-Za-z0-9])(AT|BE|BG|CY|CZ|DE|DK|EE|EL|ES|FI|FR|GB|GR|HR|HU|IE|IT|LT|LU|LV|MT|NL|PL|PT|RO|SE|SI|SK|XI) ?[-:.]? ?((?:[A-Za-z+*][ .\-/]?){0,2}\d(?:[ .\-/]?[A-Za-z0-9+*]){6,13})(?![A-Za-z0-9])/g,
    baseScore: 0.8,
    contextScore: 0.95,
    contextWords: [
      'vat', 'vat no', 'vat number', 'vat id', 'vat reg', 'tva', 'iva', 'p.iva', 'partita iva', 'ust-idnr', 'ust-id', 'ustid',
      'umsatzsteuer', 'btw', 'nip', 'mwst', 'moms', 'alv', 'dic', 'dph', 'nif', 'cif', 'tax id', 'tax number', 'intracommunautaire',
      'intra-community', 'steuernummer',
    ],
    precedence: 9,
    validate: validateVat,
  },
  {
    name: 'eu-vat-number-national',
    entity: 'PII.EU_VAT',
    pack: 'eu',
    regex: /(?=\d)(?<![\w.,/-])\d(?:[ .\-/]?\d){7,12}(?![\w-]|[.,/]\d)/g,
    baseScore: 0,
    contextScore: 0.85,
    // Labels that name a VAT (or VAT-like tax) number outright; not the looser "tax id".
    contextWords: [
      'vat', 'vat no', 'vat number', 'vat id', 'vat reg', 'vat registration', 'tva', 'n° tva', 'iva', 'p.iva', 'p. iva', 'partita iva',
      'ust-idnr', 'ust-id', 'ustid', 'ust-id-nr', 'umsatzsteuer-id', 'umsatzsteuer-identifikationsnummer', 'btw', 'btw-nummer',
      'btw-id', 'nip', 'mwst-nr', 'momsnummer', 'momsregistreringsnummer', 'alv-numero', 'dic', 'ič dph', 'nif-iva',
    ],
    contextBefore: 24,
    contextAfter: 0,
    contextAdjacent: true,
    precedence: 9,
    validate: validateNationalVat,
  },
  {
    name: 'in-aadhaar',
    entity: 'PII.IN_AADHAAR',
    pack: 'in',
    regex: /(?=\d)(?<![\w-])[2-9]\d{3}([ -]?)\d{4}\1\d{4}(?![\w-])/g,
    baseScore: 0.8,
    contextScore: 0.95,
    contextWords: ['aadhaar', 'aadhar', 'adhaar', 'uid', 'uidai', 'aadhaar number', 'आधार'],
    negativeWords: NOT_AN_IDENTIFIER,
    precedence: 8,
    validate: validateAadhaar,
  },
  {
    name: 'in-pan',
    entity: 'PII.IN_PAN',
    pack: 'in',
    regex: /(?<![A-Za-z0-9])[A-Z]{5}\d{4}[A-Z](?![A-Za-z0-9])/g,
    baseScore: 0.75,
    contextScore: 0.95,
    contextWords: ['pan', 'pan no', 'pan number', 'pan card', 'permanent account number', 'income tax'],
    precedence: 11,
    validate: validatePan,
  },
];
