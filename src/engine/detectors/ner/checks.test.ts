// The checksums behind PII.CRYPTO_WALLET and PII.MEDICAL_LICENSE: published test vectors, and the
// same values with one character changed.
import { describe, expect, it } from 'vitest';
import { bitcoinBase58Valid, bitcoinBech32Valid, deaValid, ethereumChecksumValid, npiValid } from './checks.js';

describe('wallet checksums', () => {
  it('checks base58check Bitcoin addresses (P2PKH and P2SH)', () => {
    expect(bitcoinBase58Valid('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa')).toBe(true);
    expect(bitcoinBase58Valid('3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy')).toBe(true);
    expect(bitcoinBase58Valid('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb')).toBe(false);
    expect(bitcoinBase58Valid('1A1zP1eP5QGefi2DMPTfTL5SLmv7Divf0a')).toBe(false);
  });
  it('checks bech32 (witness v0) and bech32m (v1+) addresses', () => {
    expect(bitcoinBech32Valid('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4')).toBe(true);
    expect(bitcoinBech32Valid('BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4')).toBe(true);
    expect(bitcoinBech32Valid('bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0')).toBe(true);
    expect(bitcoinBech32Valid('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5')).toBe(false);
    expect(bitcoinBech32Valid('bc1Qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4')).toBe(false);
  });
  it('checks EIP-55 mixed-case Ethereum addresses', () => {
    expect(ethereumChecksumValid('5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')).toBe(true);
    expect(ethereumChecksumValid('fB6916095ca1df60bB79Ce92cE3Ea74c37c5d359')).toBe(true);
    expect(ethereumChecksumValid('5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD')).toBe(false);
  });
});

describe('medical licence checksums', () => {
  it('checks DEA numbers', () => {
    expect(deaValid('AB1234563')).toBe(true);
    expect(deaValid('F91234563')).toBe(true);
    expect(deaValid('AB1234564')).toBe(false);
    expect(deaValid('AB123456')).toBe(false);
  });
  it('checks NPI numbers (Luhn with the 80840 prefix)', () => {
    expect(npiValid('1234567893')).toBe(true);
    expect(npiValid('1234567894')).toBe(false);
    expect(npiValid('3234567893')).toBe(false);
  });
});
