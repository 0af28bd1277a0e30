// The statistical tests evaluations state in their answers: exact McNemar on paired cases (run vs
// baseline), the pooled two-proportion z test and the two-sample Kolmogorov–Smirnov test (drift).
// Written here rather than taken from a package: three small, well-known formulas, computed in log
// space or with series that stay accurate where the naive forms underflow.

const SQRT2 = Math.SQRT2;
const SQRT_PI = Math.sqrt(Math.PI);

function assertCount(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
}

/**
 * Exact two-sided McNemar test on the discordant pairs of a paired comparison: b cases passed
 * before and fail now (regressed), c failed before and pass now (improved). Under the null
 * hypothesis each discordant pair goes either way with probability 1/2, so with n = b + c,
 * p = min(1, 2·P(X ≤ min(b, c))) for X ~ Binomial(n, 1/2); n = 0 gives 1. The binomial terms are
 * summed in log space (relative to the largest), so n up to 10^5 and beyond neither underflows nor
 * loses precision.
 * @example mcnemarExact(0, 6) // 0.03125 (= 2 / 2^6)
 */
export function mcnemarExact(b: number, c: number): number {
  assertCount('b', b);
  assertCount('c', c);
  const n = b + c;
  if (n === 0) return 1;
  const k = Math.min(b, c);
  // log C(n, i) for i = 0..k; the terms grow with i up to n/2, so the last is the largest.
  const logTerms: number[] = [0];
  for (let i = 0; i < k; i += 1) logTerms.push((logTerms[i] as number) + Math.log(n - i) - Math.log(i + 1));
  const largest = logTerms[k] as number;
  let scaled = 0;
  for (const logTerm of logTerms) scaled += Math.exp(logTerm - largest);
  const logTail = largest + Math.log(scaled) - n * Math.LN2;
  return Math.min(1, 2 * Math.exp(logTail));
}

/**
 * erfc(x) for x ≥ 0: from the series of erf below 2.5 (positive terms, no cancellation), else the
 * continued fraction (Lentz), accurate in relative terms far into the tail.
 */
function erfcNonNegative(x: number): number {
  if (x < 2.5) {
    // erf(x) = 2/√π · e^{-x²} · Σ 2^n x^{2n+1} / (1·3·…·(2n+1))
    let term = x;
    let sum = x;
    for (let n = 1; n < 200; n += 1) {
      term *= (2 * x * x) / (2 * n + 1);
      sum += term;
      if (term < sum * 1e-17) break;
    }
    return 1 - ((2 / SQRT_PI) * Math.exp(-x * x) * sum);
  }
  // erfc(x) = e^{-x²}/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + …)))))
  const tiny = 1e-300;
  let f = x;
  let c = x;
  let d = 0;
  for (let n = 1; n < 500; n += 1) {
    const a = n / 2;
    d = x + a * d;
    d = Math.abs(d) < tiny ? tiny : d;
    c = x + a / c;
    c = Math.abs(c) < tiny ? tiny : c;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-x * x) / (SQRT_PI * f);
}

/** The error function, accurate to well under 1e-7 (about 1e-15) over the whole line. */
export function erf(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  return x >= 0 ? 1 - erfcNonNegative(x) : erfcNonNegative(-x) - 1;
}

/** The complementary error function 1 − erf(x), accurate in the tails. */
export function erfc(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  return x >= 0 ? erfcNonNegative(x) : 2 - erfcNonNegative(-x);
}

/** The standard normal cumulative distribution function Φ(z). */
export function normalCdf(z: number): number {
  return 0.5 * erfc(-z / SQRT2);
}

/**
 * Pooled two-proportion z test of x1/n1 against x2/n2: z = (p1 − p2) / √(p̂(1−p̂)(1/n1 + 1/n2))
 * with p̂ = (x1 + x2)/(n1 + n2); two-sided p = 2·(1 − Φ(|z|)). With n1 or n2 = 0, or a pooled
 * proportion of 0 or 1 (no variance), there is nothing to test: z 0, p 1.
 * @example twoProportionZ(30, 100, 50, 100) // { z: -2.8868, p: 0.003892 }
 */
export function twoProportionZ(x1: number, n1: number, x2: number, n2: number): { z: number; p: number } {
  for (const [name, value] of [['x1', x1], ['n1', n1], ['x2', x2], ['n2', n2]] as const) assertCount(name, value);
  if (x1 > n1 || x2 > n2) throw new RangeError('a count of successes exceeds its number of trials');
  if (n1 === 0 || n2 === 0) return { z: 0, p: 1 };
  const pooled = (x1 + x2) / (n1 + n2);
  if (pooled === 0 || pooled === 1) return { z: 0, p: 1 };
  const z = (x1 / n1 - x2 / n2) / Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  return { z, p: Math.min(1, erfc(Math.abs(z) / SQRT2)) };
}

/**
 * The Kolmogorov distribution's survival function Q(λ) = P(K > λ) = 2 Σ_{j≥1} (−1)^{j−1} e^{−2j²λ²};
 * for small λ that series converges slowly and the dual form is used:
 * 1 − (√(2π)/λ) Σ_{j≥1} e^{−(2j−1)²π²/(8λ²)}.
 */
export function kolmogorovSurvival(lambda: number): number {
  if (!(lambda > 0)) return 1;
  if (lambda < 1.18) {
    const factor = -(Math.PI * Math.PI) / (8 * lambda * lambda);
    let sum = 0;
    for (let j = 1; j < 100; j += 1) {
      const term = Math.exp((2 * j - 1) * (2 * j - 1) * factor);
      sum += term;
      if (term < 1e-17 * sum) break;
    }
    return Math.min(1, Math.max(0, 1 - (Math.sqrt(2 * Math.PI) / lambda) * sum));
  }
  let sum = 0;
  for (let j = 1; j < 100; j += 1) {
    const term = Math.exp(-2 * j * j * lambda * lambda);
    sum += j % 2 === 1 ? term : -term;
    if (term < 1e-17) break;
  }
  return Math.min(1, Math.max(0, 2 * sum));
}

/**
 * Two-sample Kolmogorov–Smirnov test: D = sup |F_a(x) − F_b(x)| over the empirical distribution
 * functions (ties handled: both samples step past a shared value together), and the asymptotic p
 * = Q((√nₑ + 0.12 + 0.11/√nₑ)·D) with nₑ = n·m/(n + m) — Stephens' small-sample correction, as in
 * Numerical Recipes. Values that are not finite numbers are left out; an empty sample gives d 0, p 1.
 */
export function ksTwoSample(a: readonly number[], b: readonly number[]): { d: number; p: number } {
  const left = a.filter(Number.isFinite).sort((x, y) => x - y);
  const right = b.filter(Number.isFinite).sort((x, y) => x - y);
  const n = left.length;
  const m = right.length;
  if (n === 0 || m === 0) return { d: 0, p: 1 };
  let i = 0;
  let j = 0;
  let d = 0;
  while (i < n && j < m) {
    const value = Math.min(left[i] as number, right[j] as number);
    while (i < n && left[i] === value) i += 1;
    while (j < m && right[j] === value) j += 1;
    d = Math.max(d, Math.abs(i / n - j / m));
  }
  const effective = Math.sqrt((n * m) / (n + m));
  return { d, p: kolmogorovSurvival((effective + 0.12 + 0.11 / effective) * d) };
}
