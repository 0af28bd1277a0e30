// The glob matcher of grants: its syntax, and that its work grows linearly with the source even on
// patterns that make a backtracking matcher explode (counted in visited positions, not timed).
import { describe, expect, it } from 'vitest';
import { EntitlementIndex } from './decide.js';
import { compileGlob, GlobError } from './match.js';

describe('compileGlob', () => {
  it.each([
    ['crm/**', 'crm/a/b/c', true],
    ['crm/**', 'crm', false],
    ['crm/*', 'crm/a', true],
    ['crm/*', 'crm/a/b', false],
    ['finance:*', 'finance:ledger', true],
    ['finance:*', 'finance:ledger:2024', false],
    ['doc-?', 'doc-1', true],
    ['doc-?', 'doc-12', false],
    ['doc-?', 'doc-/', false],
    ['**/faq', 'faq', true],
    ['**/faq', 'a/b/faq', true],
    ['a/**/b', 'a/b', true],
    ['a/**/b', 'a/x/y/b', true],
    ['a/**/b', 'a/xb', false],
    ['a**b', 'a/x:y/b', true],
    ['**', 'anything/at:all', true],
    ['exact', 'exact', true],
    ['exact', 'exactly', false],
    ['lit\\*', 'lit*', true],
    ['lit\\*', 'litx', false],
    ['*', '', true],
    ['*.md', 'readme.md', true],
  ])('%s against %s → %s', (pattern, source, expected) => {
    expect(compileGlob(pattern).matches(source)).toBe(expected);
  });

  it('refuses three stars, a trailing backslash and an empty glob', () => {
    for (const pattern of ['a***', '', 'a\\']) expect(() => compileGlob(pattern)).toThrow(GlobError);
  });

  it('does work linear in the source on adversarial patterns', () => {
    const glob = compileGlob('*a*a*a*a*a*a*a*a*a*a*b');
    const work = (length: number) => {
      expect(glob.matches('a'.repeat(length))).toBe(false);
      return glob.lastWork;
    };
    const small = work(10_000);
    const large = work(20_000);
    // At most one visit per program position per character, and doubling the source doubles the work.
    expect(large).toBeLessThanOrEqual((20_000 + 1) * 22);
    expect(large / small).toBeGreaterThan(1.9);
    expect(large / small).toBeLessThan(2.1);
    const globstar = compileGlob('**/**/**/**/x');
    expect(globstar.matches('a/'.repeat(5_000) + 'y')).toBe(false);
    expect(globstar.lastWork).toBeLessThanOrEqual((10_001 + 1) * 14);
  });
});

describe('EntitlementIndex', () => {
  it('decides 1,000 chunks over 500 grants with each distinct source globbed once per grant', () => {
    const grants = Array.from({ length: 500 }, (_, i) => ({
      id: `egr_${i}`,
      resource: i % 2 === 0 ? `kb/team-${i}/**` : `kb/team-${i}/*.md`,
      principal: i < 250 ? 'staff' : `user-${i}`,
      principal_kind: i < 250 ? 'group' : 'subject',
      classes: i % 3 === 0 ? ['pii'] : [],
      purposes: [],
      residency: null,
    }));
    const index = new EntitlementIndex(grants, [{ subject: 'u', agent: null, groups: ['staff'], clearances: ['pii'], purposes: [], residency: null }]);
    const chunks = Array.from({ length: 1000 }, (_, i) => ({ source: `kb/team-${i % 300}/doc-${i % 7}.md`, classes: i % 5 === 0 ? ['pii'] : [] }));
    const decision = index.decide({ subject: 'u', agent: null, purpose: null, chunks });
    // Teams below 250 are granted to the group; a pii chunk passes only on teams whose grant lists pii (i % 3 === 0) or none.
    const expected = chunks.filter((chunk, i) => {
      const team = (i % 300);
      if (team >= 250) return false;
      const grantClasses = team % 3 === 0 ? ['pii'] : [];
      return grantClasses.length === 0 || chunk.classes.every((c) => grantClasses.includes(c));
    }).length;
    expect(decision.allowed.length).toBe(expected);
    expect(decision.allowed.length + decision.withheld.length).toBe(1000);
    expect(new Set(decision.withheld.map((item) => item.reason))).toEqual(new Set(['no_grant']));
  });
});
