// Checksums for the pii.ner identifier types: crypto wallet addresses (Bitcoin base58check and
// bech32/bech32m, Ethereum EIP-55) and medical licence numbers (DEA, NPI). Pure functions over
// the matched characters; no I/O.
import { createHash } from 'node:crypto';
import { keccak_256 } from '@noble/hashes/sha3';
import { bytesToHex } from '@noble/hashes/utils';
import { luhnValid } from '../pii/validators.js';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BASE58_INDEX = new Map([...BASE58].map((char, index) => [char, index] as const));

function sha256(bytes: Uint8Array): Buffer {
  return createHash('sha256').update(bytes).digest();
}

/** Base58 text to bytes (leading "1"s are zero bytes), or undefined on a foreign character. */
function base58Decode(text: string): Uint8Array | undefined {
  let value = 0n;
  for (const char of text) {
    const digit = BASE58_INDEX.get(char);
    if (digit === undefined) return undefined;
    value = value * 58n + BigInt(digit);
  }
  const bytes: number[] = [];
  while (value > 0n) {
    bytes.unshift(Number(value & 0xffn));
    value >>= 8n;
  }
  for (let i = 0; i < text.length && text[i] === '1'; i += 1) bytes.unshift(0);
  return Uint8Array.from(bytes);
}

/** A legacy Bitcoin address: version 0 (P2PKH, "1…") or 5 (P2SH, "3…"), 20-byte hash, double-SHA-256 checksum. */
export function bitcoinBase58Valid(address: string): boolean {
  const bytes = base58Decode(address);
  if (bytes === undefined || bytes.length !== 25) return false;
  if (bytes[0] !== 0x00 && bytes[0] !== 0x05) return false;
  const checksum = sha256(sha256(bytes.subarray(0, 21)));
  for (let i = 0; i < 4; i += 1) if (checksum[i] !== bytes[21 + i]) return false;
  return true;
}

const BECH32_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const BECH32_GENERATOR = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
const BECH32_CONSTANT = 1;
const BECH32M_CONSTANT = 0x2bc830a3;

function bech32Polymod(values: readonly number[]): number {
  let checksum = 1;
  for (const value of values) {
    const top = checksum >>> 25;
    checksum = ((checksum & 0x1ffffff) << 5) ^ value;
    for (let i = 0; i < 5; i += 1) if (((top >>> i) & 1) === 1) checksum ^= BECH32_GENERATOR[i] ?? 0;
  }
  return checksum >>> 0;
}

/**
 * A segwit address ("bc1…", testnet "tb1…"): bech32 for witness version 0, bech32m for 1–16
 * (BIP 173 / BIP 350). Mixed case is invalid by the format.
 */
export function bitcoinBech32Valid(address: string): boolean {
  if (address !== address.toLowerCase() && address !== address.toUpperCase()) return false;
  const lower = address.toLowerCase();
  const separator = lower.lastIndexOf('1');
  const hrp = lower.slice(0, separator);
  if (hrp !== 'bc' && hrp !== 'tb') return false;
  const data: number[] = [];
  for (const char of lower.slice(separator + 1)) {
    const value = BECH32_CHARSET.indexOf(char);
    if (value === -1) return false;
    data.push(value);
  }
  if (data.length < 7) return false;
  const expanded = [...[...hrp].map((char) => char.charCodeAt(0) >> 5), 0, ...[...hrp].map((char) => char.charCodeAt(0) & 31)];
  const residue = bech32Polymod([...expanded, ...data]);
  const version = data[0] ?? -1;
  if (version > 16) return false;
  return residue === (version === 0 ? BECH32_CONSTANT : BECH32M_CONSTANT);
}

/** Ethereum EIP-55: a letter is upper case exactly when its nibble of keccak256(lower-case hex) is ≥ 8. */
export function ethereumChecksumValid(hex40: string): boolean {
  const lower = hex40.toLowerCase();
  const hash = bytesToHex(keccak_256(new TextEncoder().encode(lower)));
  for (let i = 0; i < 40; i += 1) {
    const char = hex40[i] ?? '';
    if (char >= '0' && char <= '9') continue;
    const upper = parseInt(hash[i] ?? '0', 16) >= 8;
    if (upper !== (char !== char.toLowerCase())) return false;
  }
  return true;
}

/**
 * US DEA registration number: two letters then seven digits; (d1 + d3 + d5) + 2·(d2 + d4 + d6)
 * ends in the seventh digit.
 */
export function deaValid(value: string): boolean {
  if (!/^[A-Z][A-Z9]\d{7}$/i.test(value)) return false;
  const d = value.slice(2);
  const digit = (i: number): number => d.charCodeAt(i) - 48;
  const sum = digit(0) + digit(2) + digit(4) + 2 * (digit(1) + digit(3) + digit(5));
  return sum % 10 === digit(6);
}

/** US NPI: ten digits starting 1 or 2; Luhn over the number prefixed with the card issuer 80840. */
export function npiValid(digits: string): boolean {
  if (!/^[12]\d{9}$/.test(digits)) return false;
  return luhnValid(`80840${digits}`);
}
