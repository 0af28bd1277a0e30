// The statistical tests against reference values. Where the values come from:
// - McNemar: exact binomial sums, 2·Σ_{i≤k} C(n,i) / 2^n, computed with integer arithmetic
//   (Python's math.comb; e.g. (0, 6) → 2/64 = 0.03125, (1, 9) → 2·11/1024 = 0.021484375).
// - erf/erfc/Φ: the standard tables (erf 1 = 0.8427007929497149, Φ(1.96) = 0.9750021048517795,
//   erfc 3 = 2.2090496998585438e-5, erfc 5 = 1.5374597944280351e-12).
// - Two-proportion z: worked by hand, e.g. 30/100 vs 50/100: p̂ = 0.4, SE = √(0.4·0.6·0.02) =
//   0.0692820, z = −0.2/0.0692820 = −2.8867513, p = erfc(2.8867513/√2) = 0.0038924.
// - Kolmogorov: Q(1) = 0.26999967, Q(1.36) = 0.0494859 (the 5 % critical value 1.358 of the
//   tables), Q(0.5) = 0.96394524; KS samples worked by hand (D) and Q of Stephens' λ.
import { describe, expect, it } from 'vitest';
import { erf, erfc, kolmogorovSurvival, ksTwoSample, mcnemarExact, normalCdf, twoProportionZ } from './stats.js';

describe('mcnemarExact', () => {
  it('matches exact binomial tails', () => {
    expect(mcnemarExact(0, 0)).toBe(1);
    expect(mcnemarExact(0, 6)).toBeCloseTo(0.03125, 14);
    expect(mcnemarExact(6, 0)).toBeCloseTo(0.03125, 14);
    expect(mcnemarExact(1, 9)).toBeCloseTo(0.021484375, 14);
    expect(mcnemarExact(3, 7)).toBeCloseTo(0.34375, 14);
    expect(mcnemarExact(5, 5)).toBe(1);
    expect(mcnemarExact(2, 0)).toBeCloseTo(0.5, 14);
    expect(mcnemarExact(10, 25)).toBeCloseTo(0.01667384780012071, 12);
    expect(mcnemarExact(40, 60)).toBeCloseTo(0.05688793364098079, 12);
  });

  it('stays accurate for n up to 10^5 (log space, no underflow)', () => {
    expect(mcnemarExact(4900, 5100) / 0.04658552770494739).toBeCloseTo(1, 8);
    expect(mcnemarExact(49_500, 50_500) / 0.0015823598788515956).toBeCloseTo(1, 7);
    expect(mcnemarExact(49_000, 51_000) / 2.588716038346898e-10).toBeCloseTo(1, 6);
    expect(mcnemarExact(50_000, 50_000)).toBe(1);
    const started = performance.now();
    expect(mcnemarExact(0, 100_000)).toBe(0);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('refuses counts that are not counts', () => {
    expect(() => mcnemarExact(-1, 3)).toThrow(RangeError);
    expect(() => mcnemarExact(1.5, 3)).toThrow(RangeError);
  });
});

describe('erf and the normal CDF', () => {
  it('agree with tables to 1e-7 and better', () => {
    expect(erf(0)).toBe(0);
    expect(erf(1)).toBeCloseTo(0.8427007929497149, 12);
    expect(erf(-1)).toBeCloseTo(-0.8427007929497149, 12);
    expect(erf(0.3)).toBeCloseTo(0.3286267594591274, 12);
    expect(erf(2.4)).toBeCloseTo(0.999311486103355, 12);
    expect(normalCdf(1.96)).toBeCloseTo(0.9750021048517795, 10);
    expect(normalCdf(-1.96)).toBeCloseTo(0.0249978951482205, 10);
    expect(normalCdf(0)).toBe(0.5);
  });

  it('keeps relative accuracy in the tails (continued fraction)', () => {
    expect(erfc(2.6) / 0.00023603441652934908).toBeCloseTo(1, 10);
    expect(erfc(3) / 2.2090496998585438e-5).toBeCloseTo(1, 10);
    expect(erfc(5) / 1.5374597944280351e-12).toBeCloseTo(1, 10);
    expect(erfc(10) / 2.088487583762545e-45).toBeCloseTo(1, 10);
    expect(erfc(-3)).toBeCloseTo(2 - 2.2090496998585438e-5, 12);
    expect(erfc(40)).toBe(0);
    expect(Number.isNaN(erf(Number.NaN))).toBe(true);
  });

  it('is continuous where the method changes (x = 2.5)', () => {
    expect(Math.abs(erfc(2.4999999) - erfc(2.5000001))).toBeLessThan(1e-9);
  });
});

describe('twoProportionZ', () => {
  it('matches worked examples', () => {
    const first = twoProportionZ(30, 100, 50, 100);
    expect(first.z).toBeCloseTo(-2.886751345948129, 10);
    expect(first.p).toBeCloseTo(0.003892417122778627, 10);
    const second = twoProportionZ(45, 100, 55, 100);
    expect(second.z).toBeCloseTo(-1.4142135623730956, 10);
    expect(second.p).toBeCloseTo(0.15729920705028505, 10);
    const third = twoProportionZ(120, 1000, 80, 1000);
    expect(third.z).toBeCloseTo(2.9814239699997187, 10);
    expect(third.p).toBeCloseTo(0.0028691127920766257, 10);
    const fourth = twoProportionZ(5, 40, 20, 40);
    expect(fourth.z).toBeCloseTo(-3.6181361349331636, 10);
    expect(fourth.p / 0.00029673231129314064).toBeCloseTo(1, 8);
  });

  it('has nothing to test without trials or without variance', () => {
    expect(twoProportionZ(0, 0, 3, 10)).toEqual({ z: 0, p: 1 });
    expect(twoProportionZ(3, 10, 0, 0)).toEqual({ z: 0, p: 1 });
    expect(twoProportionZ(0, 10, 0, 20)).toEqual({ z: 0, p: 1 });
    expect(twoProportionZ(10, 10, 20, 20)).toEqual({ z: 0, p: 1 });
    expect(twoProportionZ(7, 20, 7, 20)).toEqual({ z: 0, p: 1 });
  });

  it('refuses impossible counts', () => {
    expect(() => twoProportionZ(11, 10, 1, 10)).toThrow(RangeError);
    expect(() => twoProportionZ(-1, 10, 1, 10)).toThrow(RangeError);
  });
});

describe('Kolmogorov–Smirnov', () => {
  it('the Kolmogorov survival function matches its table, on both forms', () => {
    expect(kolmogorovSurvival(0.5)).toBeCloseTo(0.9639452436648751, 10);
    expect(kolmogorovSurvival(1.0)).toBeCloseTo(0.26999967167735456, 10);
    expect(kolmogorovSurvival(1.17)).toBeCloseTo(0.12939004218561884, 10);
    expect(kolmogorovSurvival(1.2)).toBeCloseTo(0.11224966667072496, 10);
    expect(kolmogorovSurvival(1.36)).toBeCloseTo(0.049485876755377876, 10);
    expect(kolmogorovSurvival(2.0)).toBeCloseTo(0.0006709252557796953, 12);
    expect(kolmogorovSurvival(0)).toBe(1);
    expect(kolmogorovSurvival(0.05)).toBe(1);
  });

  it('computes D with ties stepped together and the corrected asymptotic p', () => {
    // a = 1..10, b = 6..15: F_a − F_b peaks at 0.5 (x = 5 … 10); λ = (√5 + 0.12 + 0.11/√5)·0.5.
    const shifted = ksTwoSample([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
    expect(shifted.d).toBeCloseTo(0.5, 12);
    expect(shifted.p).toBeCloseTo(0.11084033741322809, 10);
    // a = 1..4, b = 3..8: D = 2/3 at x = 2 … 4 (with the ties at 3 and 4 counted together); λ ≈ 1.16.
    const small = ksTwoSample([4, 3, 2, 1], [8, 3, 5, 4, 7, 6]);
    expect(small.d).toBeCloseTo(2 / 3, 12);
    expect(small.p).toBeCloseTo(0.13547386007256804, 10);
    // Identical samples with ties: D 0, not the artefact of stepping one sample before the other.
    expect(ksTwoSample([1, 1, 2, 2], [2, 1, 2, 1])).toEqual({ d: 0, p: 1 });
  });

  it('empty samples and values that are not numbers', () => {
    expect(ksTwoSample([], [1, 2])).toEqual({ d: 0, p: 1 });
    expect(ksTwoSample([1, 2], [])).toEqual({ d: 0, p: 1 });
    expect(ksTwoSample([Number.NaN, Number.POSITIVE_INFINITY], [1])).toEqual({ d: 0, p: 1 });
    expect(ksTwoSample([1, Number.NaN, 2], [1, 2]).d).toBe(0);
  });

  it('separates clearly different large samples fast', () => {
    const a = Array.from({ length: 50_000 }, (_, index) => index / 50_000);
    const b = Array.from({ length: 50_000 }, (_, index) => 0.1 + index / 50_000);
    const started = performance.now();
    const result = ksTwoSample(a, b);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(result.d).toBeCloseTo(0.1, 3);
    expect(result.p).toBeLessThan(1e-10);
  });
});
