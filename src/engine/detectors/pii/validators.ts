// Checksum and range validators for the native PII patterns: pure functions over the matched
// characters, with only anchored fixed-shape regexes (hot path: no I/O here).
// A pattern finds a candidate; these decide whether it is the real thing or a look-alike.

/** Keeps only the ASCII digits of a candidate ("4111 1111-1111" -> "411111111111"). */
export function digitsOf(candidate: string): string {
  let out = '';
  for (let i = 0; i < candidate.length; i += 1) {
    const code = candidate.charCodeAt(i);
    if (code >= 48 && code <= 57) out += candidate[i];
  }
  return out;
}

function isAllDigits(value: string): boolean {
  if (value.length === 0) return false;
  for (let i = 0; i < value.length; i += 1) {
    const code = value.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

function digitAt(value: string, index: number): number {
  return value.charCodeAt(index) - 48;
}

/** Luhn (mod 10) check over a digit string: payment cards, Italian VAT numbers. */
export function luhnValid(digits: string): boolean {
  if (!isAllDigits(digits) || digits.length < 2) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i -= 1) {
    let d = digitAt(digits, i);
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/**
 * Payment-card issuer ranges (IIN prefixes) with the lengths each network issues. Numbers outside
 * every range are order numbers or IDs that happen to pass Luhn (one in ten random numbers does).
 */
const CARD_RANGES: ReadonlyArray<{ brand: string; from: number; to: number; prefixLength: number; lengths: readonly number[] }> = [
  { brand: 'visa', from: 4, to: 4, prefixLength: 1, lengths: [13, 16, 19] },
  { brand: 'mastercard', from: 51, to: 55, prefixLength: 2, lengths: [16] },
  { brand: 'mastercard', from: 2221, to: 2720, prefixLength: 4, lengths: [16] },
  { brand: 'amex', from: 34, to: 34, prefixLength: 2, lengths: [15] },
  { brand: 'amex', from: 37, to: 37, prefixLength: 2, lengths: [15] },
  { brand: 'diners', from: 300, to: 305, prefixLength: 3, lengths: [14, 16, 19] },
  { brand: 'diners', from: 36, to: 36, prefixLength: 2, lengths: [14, 16, 19] },
  { brand: 'diners', from: 38, to: 39, prefixLength: 2, lengths: [14, 16, 19] },
  { brand: 'discover', from: 6011, to: 6011, prefixLength: 4, lengths: [16, 19] },
  { brand: 'discover', from: 644, to: 649, prefixLength: 3, lengths: [16, 19] },
  { brand: 'discover', from: 65, to: 65, prefixLength: 2, lengths: [16, 19] },
  { brand: 'jcb', from: 3528, to: 3589, prefixLength: 4, lengths: [16, 17, 18, 19] },
  // Legacy JCB ranges, still produced by test-data generators.
  { brand: 'jcb', from: 1800, to: 1800, prefixLength: 4, lengths: [15] },
  { brand: 'jcb', from: 2131, to: 2131, prefixLength: 4, lengths: [15] },
  { brand: 'unionpay', from: 62, to: 62, prefixLength: 2, lengths: [16, 17, 18, 19] },
  { brand: 'mir', from: 2200, to: 2204, prefixLength: 4, lengths: [16, 17, 18, 19] },
  { brand: 'rupay', from: 60, to: 60, prefixLength: 2, lengths: [16] },
  { brand: 'rupay', from: 81, to: 82, prefixLength: 2, lengths: [16] },
  // Maestro is the only network issuing 12-digit cards.
  { brand: 'maestro', from: 50, to: 50, prefixLength: 2, lengths: [12, 13, 14, 15, 16, 17, 18, 19] },
  { brand: 'maestro', from: 56, to: 69, prefixLength: 2, lengths: [12, 13, 14, 15, 16, 17, 18, 19] },
];

/** The card network whose IIN range and length fit, or undefined. */
export function cardBrand(digits: string): string | undefined {
  if (!isAllDigits(digits)) return undefined;
  for (const range of CARD_RANGES) {
    if (!range.lengths.includes(digits.length)) continue;
    const prefix = Number(digits.slice(0, range.prefixLength));
    if (prefix >= range.from && prefix <= range.to) return range.brand;
  }
  return undefined;
}

/** A payment card: known issuer range, a length that network issues, Luhn. */
export function creditCardValid(digits: string): boolean {
  return cardBrand(digits) !== undefined && luhnValid(digits) && !allSameDigit(digits);
}

function allSameDigit(digits: string): boolean {
  for (let i = 1; i < digits.length; i += 1) if (digits[i] !== digits[0]) return false;
  return true;
}

/** IBAN length per country (ISO 13616 registry). */
export const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BR: 29, BY: 28, CH: 21,
  CR: 22, CY: 28, CZ: 24, DE: 22, DK: 18, DO: 28, EE: 20, EG: 29, ES: 24, FI: 18, FO: 18, FR: 27,
  GB: 22, GE: 22, GI: 23, GL: 18, GR: 27, GT: 28, HR: 21, HU: 28, IE: 22, IL: 23, IQ: 23, IS: 26,
  IT: 27, JO: 30, KW: 30, KZ: 20, LB: 28, LC: 32, LI: 21, LT: 20, LU: 20, LV: 21, MC: 27, MD: 24,
  ME: 22, MK: 19, MR: 27, MT: 31, MU: 30, NL: 18, NO: 15, PK: 24, PL: 28, PS: 29, PT: 25, QA: 29,
  RO: 24, RS: 22, SA: 24, SC: 31, SE: 24, SI: 19, SK: 24, SM: 27, ST: 25, SV: 28, TL: 23, TN: 24,
  TR: 26, UA: 29, VA: 22, VG: 24, XK: 20,
};

/** ISO 7064 mod 97-10 over an alphanumeric string, letters counting A=10 … Z=35. */
export function mod97(value: string): number {
  let remainder = 0;
  for (let i = 0; i < value.length; i += 1) {
    const code = value.charCodeAt(i);
    if (code >= 48 && code <= 57) {
      remainder = (remainder * 10 + (code - 48)) % 97;
    } else if (code >= 65 && code <= 90) {
      remainder = (remainder * 100 + (code - 55)) % 97;
    } else {
      return -1;
    }
  }
  return remainder;
}

/** A compact IBAN (no spaces, upper case): registered country, its length, mod-97 == 1. */
export function ibanValid(compact: string): boolean {
  const expected = IBAN_LENGTHS[compact.slice(0, 2)];
  if (expected === undefined || compact.length !== expected) return false;
  if (!isAllDigits(compact.slice(2, 4))) return false;
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  return mod97(rearranged) === 1;
}

/** Dotted-quad IPv4: four decimal octets 0–255 without leading zeros. */
export function ipv4Valid(candidate: string): boolean {
  const parts = candidate.split('.');
  if (parts.length !== 4) return false;
  return parts.every((part) => isAllDigits(part) && part.length <= 3 && (part.length === 1 || part[0] !== '0') && Number(part) <= 255);
}

function isHexGroup(group: string): boolean {
  if (group.length < 1 || group.length > 4) return false;
  for (let i = 0; i < group.length; i += 1) {
    const code = group.charCodeAt(i) | 0x20;
    const hex = (code >= 48 && code <= 57) || (code >= 97 && code <= 102);
    if (!hex) return false;
  }
  return true;
}

/**
 * IPv6 in full or compressed ("::") form, optionally ending in a dotted IPv4. Clock times and MAC
 * addresses fail: too few groups without "::".
 */
export function ipv6Valid(candidate: string): boolean {
  const doubleColon = candidate.indexOf('::');
  if (doubleColon !== -1 && candidate.indexOf('::', doubleColon + 1) !== -1) return false;
  if (candidate.includes(':::')) return false;
  let groups = candidate.split(':');
  let groupSlots = 8;
  const last = groups[groups.length - 1] ?? '';
  if (last.includes('.')) {
    if (!ipv4Valid(last)) return false;
    groups = groups.slice(0, -1);
    groupSlots = 6;
  }
  if (doubleColon === -1) {
    return groups.length === groupSlots && groups.every(isHexGroup);
  }
  // Compressed: the empty strings around "::" stand for the missing zero groups.
  const filled = groups.filter((group) => group !== '');
  if (filled.length >= groupSlots || !filled.every(isHexGroup)) return false;
  // A bare "::" or a word pair like "ab::cd" in code is not an address; ask for some digits.
  return filled.length > 0 && /\d/.test(candidate);
}

/** US SSN ranges: area not 000, 666 or 900–999; group not 00; serial not 0000. */
export function ssnValid(digits: string): boolean {
  if (digits.length !== 9 || !isAllDigits(digits)) return false;
  const area = Number(digits.slice(0, 3));
  const group = Number(digits.slice(3, 5));
  const serial = Number(digits.slice(5));
  if (area === 0 || area === 666 || area >= 900) return false;
  if (group === 0 || serial === 0) return false;
  // Advertising and documentation numbers that were never issued to anyone.
  if (digits === '078051120' || digits === '219099999') return false;
  return true;
}

/** UK NHS number: 10 digits, weights 10..2 on the first nine, mod 11 check digit. */
export function nhsValid(digits: string): boolean {
  if (digits.length !== 10 || !isAllDigits(digits) || allSameDigit(digits)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i += 1) sum += digitAt(digits, i) * (10 - i);
  const check = 11 - (sum % 11);
  if (check === 10) return false;
  return (check === 11 ? 0 : check) === digitAt(digits, 9);
}

/**
 * UK National Insurance number (compact, upper case): prefix letters from the allowed sets, not an
 * unallocated prefix, six digits, suffix A–D.
 */
export function ninoValid(compact: string): boolean {
  if (compact.length !== 9) return false;
  const first = compact[0] ?? '';
  const second = compact[1] ?? '';
  if (!/^[A-Z]$/.test(first) || !/^[A-Z]$/.test(second)) return false;
  if ('DFIQUV'.includes(first) || 'DFIOQUV'.includes(second)) return false;
  if (['BG', 'GB', 'NK', 'KN', 'TN', 'NT', 'ZZ'].includes(first + second)) return false;
  if (!isAllDigits(compact.slice(2, 8))) return false;
  return 'ABCD'.includes(compact[8] ?? '');
}

// Verhoeff tables: the dihedral group D5 multiplication, the position permutation and inverses.
const VERHOEFF_D: readonly (readonly number[])[] = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
  [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
  [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
  [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
  [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
  [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
  [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
  [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
  [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
];
const VERHOEFF_P: readonly (readonly number[])[] = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
  [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
  [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
  [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
  [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
  [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
  [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
];

/** Verhoeff check over a digit string whose last digit is the check digit. */
export function verhoeffValid(digits: string): boolean {
  if (!isAllDigits(digits)) return false;
  let c = 0;
  for (let i = 0; i < digits.length; i += 1) {
    const digit = digitAt(digits, digits.length - 1 - i);
    const permuted = VERHOEFF_P[i % 8]?.[digit] ?? 0;
    c = VERHOEFF_D[c]?.[permuted] ?? 0;
  }
  return c === 0;
}

/** Aadhaar: 12 digits, first not 0 or 1, Verhoeff check digit. */
export function aadhaarValid(digits: string): boolean {
  if (digits.length !== 12 || !isAllDigits(digits) || allSameDigit(digits)) return false;
  if (digits[0] === '0' || digits[0] === '1') return false;
  return verhoeffValid(digits);
}

/** Indian PAN: AAAAA9999A with the fourth letter naming the holder type (P person, C company …). */
export function panValid(value: string): boolean {
  if (!/^[A-Z]{5}\d{4}[A-Z]$/.test(value)) return false;
  return 'ABCFGHJLPT'.includes(value[3] ?? '');
}

// --- EU VAT checksums (only the ones whose algorithm is exact and public) ---

/** Germany: ISO 7064 MOD 11,10 over the first eight digits. */
export function deVatValid(digits: string): boolean {
  if (digits.length !== 9 || !isAllDigits(digits) || digits[0] === '0') return false;
  return mod11x10Valid(digits);
}

/** Italy (partita IVA): 11 digits with a Luhn check digit. */
export function itVatValid(digits: string): boolean {
  return digits.length === 11 && isAllDigits(digits) && !allSameDigit(digits) && luhnValid(digits);
}

/** Belgium: 10 digits starting 0 or 1; last two = 97 − (first eight mod 97). */
export function beVatValid(digits: string): boolean {
  if (digits.length !== 10 || !isAllDigits(digits) || (digits[0] !== '0' && digits[0] !== '1')) return false;
  return 97 - (Number(digits.slice(0, 8)) % 97) === Number(digits.slice(8));
}

/** Poland (NIP): weights 6,5,7,2,3,4,5,6,7 mod 11 equals the tenth digit. */
export function plVatValid(digits: string): boolean {
  if (digits.length !== 10 || !isAllDigits(digits)) return false;
  const weights = [6, 5, 7, 2, 3, 4, 5, 6, 7];
  let sum = 0;
  for (let i = 0; i < 9; i += 1) sum += digitAt(digits, i) * (weights[i] ?? 0);
  const check = sum % 11;
  return check !== 10 && check === digitAt(digits, 9);
}

/** Denmark (CVR): weights 2,7,6,5,4,3,2,1, sum divisible by 11. */
export function dkVatValid(digits: string): boolean {
  if (digits.length !== 8 || !isAllDigits(digits) || digits[0] === '0') return false;
  const weights = [2, 7, 6, 5, 4, 3, 2, 1];
  let sum = 0;
  for (let i = 0; i < 8; i += 1) sum += digitAt(digits, i) * (weights[i] ?? 0);
  return sum % 11 === 0;
}

/** Portugal (NIF): weights 9..2, check = 11 − (sum mod 11), 10 and 11 becoming 0. */
export function ptVatValid(digits: string): boolean {
  if (digits.length !== 9 || !isAllDigits(digits)) return false;
  let sum = 0;
  for (let i = 0; i < 8; i += 1) sum += digitAt(digits, i) * (9 - i);
  const check = 11 - (sum % 11);
  return (check >= 10 ? 0 : check) === digitAt(digits, 8);
}

/** France: a two-digit key then the 9-digit SIREN; the key is (12 + 3·(SIREN mod 97)) mod 97. */
export function frVatValid(body: string): boolean {
  if (body.length !== 11) return false;
  const key = body.slice(0, 2);
  const siren = body.slice(2);
  if (!isAllDigits(siren)) return false;
  if (!isAllDigits(key)) return false;
  return (12 + 3 * (Number(siren) % 97)) % 97 === Number(key);
}

/** Luxembourg: the last two digits are the first six mod 89. */
export function luVatValid(digits: string): boolean {
  if (digits.length !== 8 || !isAllDigits(digits)) return false;
  return Number(digits.slice(0, 6)) % 89 === Number(digits.slice(6));
}

/** Weighted digit sum: digits[i] * weights[i] over the weights' length. */
function weightedSum(digits: string, weights: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < weights.length; i += 1) sum += digitAt(digits, i) * (weights[i] ?? 0);
  return sum;
}

/** ISO 7064 MOD 11,10 over all digits but the last, which is the check digit (DE, HR). */
function mod11x10Valid(digits: string): boolean {
  let product = 10;
  for (let i = 0; i < digits.length - 1; i += 1) {
    let sum = (digitAt(digits, i) + product) % 10;
    if (sum === 0) sum = 10;
    product = (2 * sum) % 11;
  }
  const check = 11 - product === 10 ? 0 : 11 - product;
  return check === digitAt(digits, digits.length - 1);
}

/** Austria: U then eight digits; Luhn-like sum of the first seven, offset by 4. */
export function atVatValid(body: string): boolean {
  const digits = body.slice(1);
  let sum = 0;
  for (let i = 0; i < 7; i += 1) {
    let d = digitAt(digits, i);
    if (i % 2 === 1) {
      d *= 2;
      d = Math.floor(d / 10) + (d % 10);
    }
    sum += d;
  }
  return (10 - ((sum + 4) % 10)) % 10 === digitAt(digits, 7);
}

/** Bulgaria (legal entities, 9 digits): weights 1..8, falling back to 3..10 when the rest is 10. */
export function bgVatValid(digits: string): boolean {
  if (digits.length !== 9) return true; // 10-digit personal numbers: format only
  let check = weightedSum(digits, [1, 2, 3, 4, 5, 6, 7, 8]) % 11;
  if (check === 10) check = (weightedSum(digits, [3, 4, 5, 6, 7, 8, 9, 10]) % 11) % 10;
  return check === digitAt(digits, 8);
}

/** Cyprus: eight digits and a check letter over the digits (odd positions remapped). */
export function cyVatValid(body: string): boolean {
  const odd = [1, 0, 5, 7, 9, 13, 15, 17, 19, 21];
  let sum = 0;
  for (let i = 0; i < 8; i += 1) sum += i % 2 === 0 ? (odd[digitAt(body, i)] ?? 0) : digitAt(body, i);
  return String.fromCharCode(65 + (sum % 26)) === body[8];
}

/** Czechia (legal entities, 8 digits): weights 8..2, check 11 − (sum mod 11) with 10→0, 11→1. */
export function czVatValid(digits: string): boolean {
  if (digits.length !== 8) return true; // 9/10-digit personal numbers: format only
  const rest = 11 - (weightedSum(digits, [8, 7, 6, 5, 4, 3, 2]) % 11);
  return (rest === 10 ? 0 : rest === 11 ? 1 : rest) === digitAt(digits, 7);
}

export function eeVatValid(digits: string): boolean {
  return (10 - (weightedSum(digits, [3, 7, 1, 3, 7, 1, 3, 7]) % 10)) % 10 === digitAt(digits, 8);
}

/** Greece: powers of two as weights, (sum mod 11) mod 10. */
export function elVatValid(digits: string): boolean {
  return (weightedSum(digits, [256, 128, 64, 32, 16, 8, 4, 2]) % 11) % 10 === digitAt(digits, 8);
}

const ES_DNI_LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE';

/** Spain: DNI (8 digits + letter), NIE (X/Y/Z + 7 digits + letter), K/L/M, or CIF (letter + 7 digits + control). */
export function esVatValid(body: string): boolean {
  const first = body[0] ?? '';
  const last = body[8] ?? '';
  if (/\d/.test(first)) return ES_DNI_LETTERS[Number(body.slice(0, 8)) % 23] === last;
  if ('XYZ'.includes(first)) return ES_DNI_LETTERS[Number(String('XYZ'.indexOf(first)) + body.slice(1, 8)) % 23] === last;
  if ('KLM'.includes(first)) return ES_DNI_LETTERS[Number(body.slice(1, 8)) % 23] === last;
  const digits = body.slice(1, 8);
  if (!isAllDigits(digits)) return false;
  let sum = 0;
  for (let i = 0; i < 7; i += 1) {
    let d = digitAt(digits, i);
    if (i % 2 === 0) {
      d *= 2;
      d = Math.floor(d / 10) + (d % 10);
    }
    sum += d;
  }
  const control = (10 - (sum % 10)) % 10;
  return last === String(control) || last === 'JABCDEFGHI'[control];
}

export function fiVatValid(digits: string): boolean {
  const rest = weightedSum(digits, [7, 9, 10, 5, 8, 4, 2]) % 11;
  if (rest === 1) return false;
  return (rest === 0 ? 0 : 11 - rest) === digitAt(digits, 7);
}

/** United Kingdom: weights 8..2 plus the last two digits, divisible by 97 (or with 55 added). */
export function gbVatValid(digits: string): boolean {
  const nine = digits.slice(0, 9);
  const total = weightedSum(nine, [8, 7, 6, 5, 4, 3, 2]) + Number(nine.slice(7, 9));
  return total % 97 === 0 || (total + 55) % 97 === 0;
}

export function hrVatValid(digits: string): boolean {
  return mod11x10Valid(digits);
}

export function huVatValid(digits: string): boolean {
  return (10 - (weightedSum(digits, [9, 7, 3, 1, 9, 7, 3]) % 10)) % 10 === digitAt(digits, 7);
}

/** Ireland: seven digits, a check letter (mod 23) and an optional second letter weighted 9. */
export function ieVatValid(body: string): boolean {
  let value = body;
  // The old layout (digit, letter, five digits, letter) re-orders into the new one.
  if (/^\d[A-Z+*]\d{5}[A-W]$/.test(value)) value = `0${value.slice(2, 7)}${value[0] ?? ''}${value[7] ?? ''}`;
  let sum = weightedSum(value, [8, 7, 6, 5, 4, 3, 2]);
  const extra = value[8];
  if (extra !== undefined) sum += (extra === 'W' ? 0 : extra.charCodeAt(0) - 64) * 9;
  return 'WABCDEFGHIJKLMNOPQRSTUV'[sum % 23] === value[7];
}

/** Lithuania: weights 1..n, falling back to 3..n+2 (cycled past 9) when the rest is 10. */
export function ltVatValid(digits: string): boolean {
  const n = digits.length - 1;
  const weights = (offset: number): number[] => Array.from({ length: n }, (_, i) => ((i + offset) % 9) + 1);
  let check = weightedSum(digits, weights(0)) % 11;
  if (check === 10) check = (weightedSum(digits, weights(2)) % 11) % 10;
  return check === digitAt(digits, n);
}

/** Latvia: legal entities (first digit above 3) have a weighted sum ≡ 3 mod 11; personal codes are format only. */
export function lvVatValid(digits: string): boolean {
  if (digitAt(digits, 0) <= 3) return true;
  return weightedSum(digits, [9, 1, 4, 8, 3, 10, 2, 5, 7, 6, 1]) % 11 === 3;
}

export function mtVatValid(digits: string): boolean {
  return 37 - (weightedSum(digits, [3, 4, 6, 7, 8, 9]) % 37) === Number(digits.slice(6));
}

/** Netherlands: the old mod-11 over the nine digits, or (since 2020) mod 97 over "NL" + body. */
export function nlVatValid(body: string): boolean {
  const digits = body.slice(0, 9);
  const rest = weightedSum(digits, [9, 8, 7, 6, 5, 4, 3, 2]) % 11;
  if (rest !== 10 && rest === digitAt(digits, 8)) return true;
  return mod97(`NL${body}`) === 1;
}

/** Romania: 2–10 digits, right-aligned weights 7,5,3,2,1,7,5,3,2; (10·sum mod 11) mod 10. */
export function roVatValid(digits: string): boolean {
  const padded = digits.padStart(10, '0');
  return ((weightedSum(padded, [7, 5, 3, 2, 1, 7, 5, 3, 2]) * 10) % 11) % 10 === digitAt(padded, 9);
}

/** Sweden: the ten-digit organisation number passes Luhn, then the suffix 01. */
export function seVatValid(digits: string): boolean {
  return luhnValid(digits.slice(0, 10));
}

export function siVatValid(digits: string): boolean {
  const check = 11 - (weightedSum(digits, [8, 7, 6, 5, 4, 3, 2]) % 11);
  if (check === 11) return false;
  return (check === 10 ? 0 : check) === digitAt(digits, 7);
}

/** Slovakia: the ten-digit number is divisible by 11. */
export function skVatValid(digits: string): boolean {
  return Number(digits) % 11 === 0;
}

/** EU VAT body shapes per member-state prefix (after the two-letter prefix, no separators). */
const VAT_SHAPES: Readonly<Record<string, RegExp>> = {
  AT: /^U\d{8}$/,
  BE: /^[01]\d{9}$/,
  BG: /^\d{9,10}$/,
  CY: /^[013-59]\d{7}[A-Z]$/,
  CZ: /^\d{8,10}$/,
  DE: /^[1-9]\d{8}$/,
  DK: /^\d{8}$/,
  EE: /^10\d{7}$/,
  EL: /^\d{9}$/,
  ES: /^[A-Z0-9]\d{7}[A-Z0-9]$/,
  FI: /^\d{8}$/,
  FR: /^[A-HJ-NP-Z0-9]{2}\d{9}$/,
  GB: /^(?:\d{9}|\d{12})$/,
  HR: /^\d{11}$/,
  HU: /^\d{8}$/,
  IE: /^(?:\d{7}[A-W][A-IW]?|\d[A-Z+*]\d{5}[A-W])$/,
  IT: /^\d{11}$/,
  LT: /^(?:\d{9}|\d{12})$/,
  LU: /^\d{8}$/,
  LV: /^\d{11}$/,
  MT: /^[1-9]\d{7}$/,
  NL: /^\d{9}B\d{2}$/,
  PL: /^\d{10}$/,
  PT: /^\d{9}$/,
  RO: /^[1-9]\d{1,9}$/,
  SE: /^\d{10}01$/,
  SI: /^[1-9]\d{7}$/,
  SK: /^[1-9]\d{9}$/,
};

const VAT_CHECKSUMS: Readonly<Record<string, (body: string) => boolean>> = {
  AT: atVatValid,
  BE: beVatValid,
  BG: bgVatValid,
  CY: cyVatValid,
  CZ: czVatValid,
  DE: deVatValid,
  DK: dkVatValid,
  EE: eeVatValid,
  EL: elVatValid,
  ES: esVatValid,
  FI: fiVatValid,
  FR: frVatValid,
  GB: gbVatValid,
  HR: hrVatValid,
  HU: huVatValid,
  IE: ieVatValid,
  IT: itVatValid,
  LT: ltVatValid,
  LU: luVatValid,
  LV: lvVatValid,
  MT: mtVatValid,
  NL: nlVatValid,
  PL: plVatValid,
  PT: ptVatValid,
  RO: roVatValid,
  SE: seVatValid,
  SI: siVatValid,
  SK: skVatValid,
};

/** Prefixes in use besides the member-state codes: Greece's ISO code, Northern Ireland. */
const VAT_PREFIX_ALIASES: Readonly<Record<string, string>> = { GR: 'EL', XI: 'GB' };

/** Restores leading zeros that are often dropped in print (BE 9 digits, NL short, EL 8 digits). */
function padVatBody(prefix: string, body: string): string {
  if (prefix === 'BE' && /^\d{9}$/.test(body)) return `0${body}`;
  if (prefix === 'EL' && /^\d{8}$/.test(body)) return `0${body}`;
  if (prefix === 'NL' && /^\d{7,8}B\d{2}$/.test(body)) return body.padStart(12, '0');
  return body;
}

export type VatVerdict = 'checksum-ok' | 'checksum-failed' | 'format-only' | 'bad-format';

/**
 * An EU (or UK) VAT number given as prefix + compact upper-case body. `format-only` where no check
 * digit can be verified (French keys with letters, personal numbers of some states).
 */
export function euVatVerdict(rawPrefix: string, rawBody: string): VatVerdict {
  const prefix = VAT_PREFIX_ALIASES[rawPrefix] ?? rawPrefix;
  const body = padVatBody(prefix, rawBody);
  const shape = VAT_SHAPES[prefix];
  if (shape === undefined || !shape.test(body)) return 'bad-format';
  const checksum = VAT_CHECKSUMS[prefix];
  // French keys with letters use a scheme that is not public: the format is all we can check.
  const uncheckable = prefix === 'FR' && !/^\d{2}/.test(body);
  if (checksum === undefined || uncheckable) return 'format-only';
  return checksum(body) ? 'checksum-ok' : 'checksum-failed';
}

/** Whether day/month/year form a real calendar date in a plausible birth-year range. */
export function plausibleBirthDate(day: number, month: number, year: number, currentYear: number): boolean {
  if (!Number.isInteger(day) || !Number.isInteger(month) || !Number.isInteger(year)) return false;
  if (year < 1880 || year > currentYear) return false;
  if (month < 1 || month > 12 || day < 1) return false;
  const daysInMonth = [31, year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return day <= (daysInMonth[month - 1] ?? 0);
}
