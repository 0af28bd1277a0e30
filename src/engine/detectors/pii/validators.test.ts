// Unit tests for the PII validators: each checksum and range rule with valid and invalid values.
import { describe, expect, it } from 'vitest';
import {
  aadhaarValid,
  beVatValid,
  cardBrand,
  creditCardValid,
  deVatValid,
  dkVatValid,
  euVatVerdict,
  frVatValid,
  ibanValid,
  ipv4Valid,
  ipv6Valid,
  itVatValid,
  luhnValid,
  nhsValid,
  ninoValid,
  panValid,
  plausibleBirthDate,
  plVatValid,
  ssnValid,
  verhoeffValid,
} from './validators.js';

describe('luhn and card issuer ranges', () => {
  it.each(['4111111111111111', '5555555555554444', '378282246310005', '6011111111111117', '30569309025904', '3530111333300000'])(
    'accepts %s',
    (digits) => {
      expect(luhnValid(digits)).toBe(true);
      expect(creditCardValid(digits)).toBe(true);
    },
  );
  it.each(['4111111111111112', '5555555555554445', '378282246310006'])('rejects the Luhn failure %s', (digits) => {
    expect(luhnValid(digits)).toBe(false);
    expect(creditCardValid(digits)).toBe(false);
  });
  it('rejects Luhn-valid numbers outside every issuer range or length', () => {
    expect(luhnValid('9999999999999995')).toBe(true);
    expect(creditCardValid('9999999999999995')).toBe(false);
    // Visa never issues 15 digits.
    expect(cardBrand('411111111111116')).toBeUndefined();
    expect(creditCardValid('0000000000000000')).toBe(false);
  });
  it('names the network', () => {
    expect(cardBrand('4111111111111111')).toBe('visa');
    expect(cardBrand('2221000000000009')).toBe('mastercard');
    expect(cardBrand('378282246310005')).toBe('amex');
  });
});

describe('IBAN mod-97', () => {
  it.each(['GB82WEST12345698765432', 'DE89370400440532013000', 'FR1420041010050500013M02606', 'ES9121000418450200051332', 'NL91ABNA0417164300'])(
    'accepts %s',
    (iban) => expect(ibanValid(iban)).toBe(true),
  );
  it('rejects a wrong check, a wrong length and an unknown country', () => {
    expect(ibanValid('GB82WEST12345698765433')).toBe(false);
    expect(ibanValid('GB82WEST1234569876543')).toBe(false);
    expect(ibanValid('XX82WEST12345698765432')).toBe(false);
  });
});

describe('UK NHS mod-11', () => {
  it('accepts valid numbers', () => {
    expect(nhsValid('9434765919')).toBe(true);
    expect(nhsValid('4010232137')).toBe(true);
  });
  it('rejects a wrong check digit, a check value of 10 and repeated digits', () => {
    expect(nhsValid('9434765918')).toBe(false);
    // 123456789x: the check computes to 10, which no NHS number may have.
    expect(nhsValid('1234567890')).toBe(false);
    expect(nhsValid('0000000000')).toBe(false);
    expect(nhsValid('943476591')).toBe(false);
  });
});

describe('Verhoeff and Aadhaar', () => {
  it('computes the textbook Verhoeff example', () => {
    expect(verhoeffValid('2363')).toBe(true);
    expect(verhoeffValid('2364')).toBe(false);
  });
  it('accepts Verhoeff-valid 12-digit numbers not starting with 0 or 1', () => {
    expect(aadhaarValid('234567890124')).toBe(true);
    expect(aadhaarValid('491827364507')).toBe(true);
  });
  it('rejects a wrong check digit, a leading 0/1 and wrong lengths', () => {
    expect(aadhaarValid('234567890123')).toBe(false);
    expect(aadhaarValid('134567890124')).toBe(false);
    expect(aadhaarValid('23456789012')).toBe(false);
  });
});

describe('US SSN ranges', () => {
  it('accepts issued ranges', () => {
    expect(ssnValid('460899847')).toBe(true);
    expect(ssnValid('853371694')).toBe(true);
  });
  it.each(['000123456', '666123456', '900123456', '999123456', '123001234', '123450000', '078051120'])('rejects %s', (digits) => {
    expect(ssnValid(digits)).toBe(false);
  });
});

describe('UK National Insurance number rules', () => {
  it('accepts allowed prefixes with suffix A-D', () => {
    expect(ninoValid('AB123456C')).toBe(true);
    expect(ninoValid('JG103759A')).toBe(true);
  });
  it.each(['DA123456A', 'AD123456A', 'AO123456A', 'QQ123456A', 'GB123456A', 'NK123456A', 'ZZ123456A', 'AB123456E', 'AB12345XC'])(
    'rejects %s',
    (value) => expect(ninoValid(value)).toBe(false),
  );
});

describe('Indian PAN', () => {
  it('accepts known holder types and rejects others', () => {
    expect(panValid('ABCPE1234F')).toBe(true);
    expect(panValid('AAACB1234C')).toBe(true);
    expect(panValid('ABCXE1234F')).toBe(false);
    expect(panValid('ABCPE12345')).toBe(false);
  });
});

describe('IP addresses', () => {
  it('checks IPv4 octets', () => {
    expect(ipv4Valid('192.168.1.20')).toBe(true);
    expect(ipv4Valid('256.1.1.1')).toBe(false);
    expect(ipv4Valid('01.2.3.4')).toBe(false);
    expect(ipv4Valid('1.2.3')).toBe(false);
  });
  it('accepts full and compressed IPv6', () => {
    expect(ipv6Valid('2001:0db8:85a3:0000:0000:8a2e:0370:7334')).toBe(true);
    expect(ipv6Valid('2001:db8::1')).toBe(true);
    expect(ipv6Valid('::1')).toBe(true);
    expect(ipv6Valid('::ffff:192.168.1.1')).toBe(true);
  });
  it('rejects clock times, MAC addresses and doubled "::"', () => {
    expect(ipv6Valid('12:30:45')).toBe(false);
    expect(ipv6Valid('de:ad:be:ef:00:11')).toBe(false);
    expect(ipv6Valid('2001::db8::1')).toBe(false);
    expect(ipv6Valid('::')).toBe(false);
    expect(ipv6Valid('12345::1')).toBe(false);
  });
});

describe('EU VAT checksums', () => {
  it('checks Germany (ISO 7064 mod 11,10)', () => {
    expect(deVatValid('136695976')).toBe(true);
    expect(deVatValid('811356601')).toBe(true);
    expect(deVatValid('136695977')).toBe(false);
  });
  it('checks Italy (Luhn)', () => {
    expect(itVatValid('00743110157')).toBe(true);
    expect(itVatValid('00743110158')).toBe(false);
  });
  it('checks Belgium, Poland, Denmark and France', () => {
    expect(beVatValid('0403170701')).toBe(true);
    expect(beVatValid('0403170702')).toBe(false);
    expect(plVatValid('5260250274')).toBe(true);
    expect(plVatValid('5260250275')).toBe(false);
    expect(dkVatValid('13585628')).toBe(true);
    expect(dkVatValid('13585627')).toBe(false);
    expect(frVatValid('83404833048')).toBe(true);
    expect(frVatValid('84404833048')).toBe(false);
  });
  it('gives a verdict per member state', () => {
    expect(euVatVerdict('DE', '136695976')).toBe('checksum-ok');
    expect(euVatVerdict('DE', '136695977')).toBe('checksum-failed');
    expect(euVatVerdict('AT', 'U13585627')).toBe('checksum-ok');
    expect(euVatVerdict('AT', 'U13585628')).toBe('checksum-failed');
    expect(euVatVerdict('NL', '123456789B01')).toBe('checksum-failed');
    expect(euVatVerdict('NL', '135792460B01')).toBe('checksum-ok');
    expect(euVatVerdict('AT', '13585627')).toBe('bad-format');
    expect(euVatVerdict('FR', 'K7404833048')).toBe('format-only');
  });
});

describe('birth dates', () => {
  it('accepts real past dates and rejects impossible ones', () => {
    expect(plausibleBirthDate(29, 2, 2000, 2026)).toBe(true);
    expect(plausibleBirthDate(29, 2, 1900, 2026)).toBe(false);
    expect(plausibleBirthDate(31, 4, 1980, 2026)).toBe(false);
    expect(plausibleBirthDate(1, 13, 1980, 2026)).toBe(false);
    expect(plausibleBirthDate(1, 1, 2030, 2026)).toBe(false);
  });
});

describe('EU VAT checksums of the other member states', () => {
  // Bodies built for these tests: each check digit computed from an arbitrary base, and the same
  // body with the check digit changed must fail.
  const VALID: Array<[string, string]> = [
    ['AT', 'U24680138'], ['BG', '246813579'], ['CY', '12468135X'], ['CZ', '24681351'], ['DE', '246813573'],
    ['EE', '102468139'], ['EL', '246813570'], ['ES', 'B24681355'], ['ES', 'B2468135E'], ['FI', '24681357'],
    ['GB', '135792450'], ['HR', '24681357913'], ['HU', '24681353'], ['IE', '2468135E'], ['LT', '246813579'],
    ['LV', '44681357913'], ['MT', '24681336'], ['NL', '864201357B01'], ['RO', '24681350'], ['SE', '246813579901'],
    ['SI', '13579240'], ['SK', '2468135791'],
  ];
  it.each(VALID)('%s %s passes and a changed check digit fails', (prefix, body) => {
    expect(euVatVerdict(prefix, body)).toBe('checksum-ok');
    const last = body.length - (prefix === 'NL' ? 4 : prefix === 'SE' ? 3 : 1);
    const char = body[last] ?? '0';
    const changed = /\d/.test(char) ? String((Number(char) + 1) % 10) : char === 'A' ? 'B' : 'A';
    expect(euVatVerdict(prefix, body.slice(0, last) + changed + body.slice(last + 1))).not.toBe('checksum-ok');
  });
  it('reads Spanish personal numbers (DNI, NIE) and the Greek and Northern Irish prefixes', () => {
    expect(euVatVerdict('ES', '12345678Z')).toBe('checksum-ok');
    expect(euVatVerdict('ES', 'X1234567L')).toBe('checksum-ok');
    expect(euVatVerdict('ES', '12345678A')).toBe('checksum-failed');
    expect(euVatVerdict('GR', '246813570')).toBe('checksum-ok');
    expect(euVatVerdict('XI', '135792450')).toBe('checksum-ok');
  });
  it('restores dropped leading zeros', () => {
    expect(euVatVerdict('BE', '403170701')).toBe('checksum-ok');
    expect(euVatVerdict('EL', '46813570')).not.toBe('bad-format');
  });
});
