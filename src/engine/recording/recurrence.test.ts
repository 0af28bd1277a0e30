import { describe, expect, it } from 'vitest';
import type { FindingParams } from './writer-protocol.js';
import { fingerprint } from '../findings/fingerprint.js';
import { chunks, falseResolutionParams, raisedRank, recurrenceSteps } from './recurrence.js';

describe('severity by recurrence', () => {
  it.each([
    [1, 0],
    [9, 0],
    [10, 1],
    [99, 1],
    [100, 2],
    [1_000_000, 2],
  ])('%i occurrences raise severity %i level(s)', (occurrences, steps) => {
    expect(recurrenceSteps(occurrences)).toBe(steps);
  });

  it.each([
    [1, 10, 2],
    [1, 100, 3],
    [3, 10, 4],
    [3, 100, 4],
    [4, 1, 4],
  ])('rank %i at %i occurrences becomes %i, never above critical', (base, occurrences, rank) => {
    expect(raisedRank(base, occurrences)).toBe(rank);
  });
});

describe('false_resolution', () => {
  it('is one finding per original, naming it, its resolution note and when it was resolved', () => {
    const original = {
      id: 'fnd_01',
      fingerprint: 'a'.repeat(64),
      type: 'containment',
      title: 'send_email blocked by capability.denied (contained)',
      subject: 'agent:mailer',
      agent: 'mailer',
      resolution_note: 'granted it',
      status_changed_at: '2026-11-01T00:00:00.000Z',
      status_changed_by: 'ops (tok_1)',
    };
    const recurrence = { at: '2026-11-02T00:00:00.000Z', decision_id: 'dec_9' } as FindingParams;
    const raised = falseResolutionParams(original, recurrence);
    expect(raised).toMatchObject({
      type: 'false_resolution',
      severity: 'medium',
      subject: 'agent:mailer',
      agent: 'mailer',
      at: recurrence.at,
      count: 1,
      decision_id: 'dec_9',
      fingerprint: fingerprint('false_resolution', 'agent:mailer', [original.fingerprint]),
    });
    expect(JSON.parse(raised.evidence)).toEqual({
      finding_id: 'fnd_01',
      finding_type: 'containment',
      finding_fingerprint: original.fingerprint,
      resolution_note: 'granted it',
      resolved_at: '2026-11-01T00:00:00.000Z',
      resolved_by: 'ops (tok_1)',
      recurred_at: recurrence.at,
      decision_id: 'dec_9',
    });
    expect(falseResolutionParams(original, recurrence).fingerprint).toBe(raised.fingerprint);
  });

  it('splits fingerprints into bounded chunks', () => {
    expect(chunks([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunks([], 2)).toEqual([]);
  });
});
