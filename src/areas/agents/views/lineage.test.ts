import { describe, expect, it } from 'vitest';
import { MAX_CHAINS, walkLineage, type DelegationEdge } from './lineage.js';
import { scorePosture, type PostureFacts } from './posture.js';

const edges = (...pairs: Array<[string, string]>): DelegationEdge[] =>
  pairs.map(([from, to]) => ({ from, to, messages: 1, last_at: '2026-11-21T00:00:00.000Z' }));

describe('walkLineage', () => {
  it('reports a self-delegation and a loop downstream that does not pass through the agent', () => {
    const lineage = walkLineage('a', edges(['a', 'a'], ['a', 'b'], ['b', 'c'], ['c', 'b']), 5);
    expect(lineage.cycles).toEqual([
      ['a', 'a'],
      ['b', 'c', 'b'],
    ]);
    expect(lineage.downstream).toEqual([['a', 'b', 'c']]);
    expect(lineage.max_depth).toBe(2);
  });

  it('joins the deepest upstream and downstream chains into the deepest chain through the agent', () => {
    const lineage = walkLineage('m', edges(['u2', 'u1'], ['u1', 'm'], ['m', 'd1'], ['x', 'm']), 5);
    expect(lineage.deepest).toEqual(['u2', 'u1', 'm', 'd1']);
    expect(lineage.max_depth).toBe(3);
    expect(lineage.upstream).toEqual([
      ['u2', 'u1', 'm'],
      ['x', 'm'],
    ]);
  });

  it('stays bounded on a dense graph: chains listed up to MAX_CHAINS, the walk cut short and said so', () => {
    const nodes = Array.from({ length: 30 }, (_, i) => `n${i}`);
    const dense: Array<[string, string]> = [];
    for (const from of nodes) for (const to of nodes) if (from !== to) dense.push([from, to]);
    const started = performance.now();
    const lineage = walkLineage('n0', edges(...dense), 10);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(lineage.truncated).toBe(true);
    expect(lineage.downstream.length).toBeLessThanOrEqual(MAX_CHAINS);
    expect(lineage.max_depth).toBeGreaterThan(4);
  });
});

describe('scorePosture', () => {
  const clean: PostureFacts = {
    registered: true,
    control: 'active',
    owner: 'a@example.com',
    wildcardGrants: 0,
    highImpactWithoutMaxTaint: [],
    openCritical: 0,
    openHigh: 0,
    signingKey: false,
    sendsMessages: false,
  };

  it('caps the finding deductions and floors the score at 0', () => {
    expect(scorePosture({ ...clean, openCritical: 5, openHigh: 5 })).toMatchObject({ score: 30, grade: 'F' });
    const worst = scorePosture({
      ...clean,
      owner: null,
      wildcardGrants: 2,
      openCritical: 3,
      openHigh: 4,
      highImpactWithoutMaxTaint: ['a', 'b', 'c'],
      sendsMessages: true,
      control: 'killed',
      registered: false,
    });
    expect(worst.score).toBe(0);
    expect(worst.gaps).toHaveLength(10);
    expect(worst.gaps.slice(-2)).toEqual(['killed (no deduction)', 'not registered (no deduction)']);
  });

  it.each([
    [100, 'A'],
    [90, 'A'],
    [85, 'B'],
    [70, 'C'],
    [60, 'D'],
    [55, 'F'],
  ])('grades %i as %s', (score, grade) => {
    const highs = (100 - score) / 5;
    expect(scorePosture({ ...clean, highImpactWithoutMaxTaint: Array.from({ length: highs }, (_, i) => `t${i}`) })).toMatchObject({ score, grade });
  });
});
