import { describe, expect, it } from 'vitest';
import type { DetectContext, Surface } from '../types.js';
import { checkJson, looksLikeJson } from './json.js';

const on = (surface: Surface): DetectContext => ({ surface, settings: { pii_packs: [] } });

describe('rails.catalog.valid_json', () => {
  it.each([
    ['output', '{"a": 1,}'],
    ['output', '  [{"a": 1}'],
    ['output', '{"unterminated": "x'],
    ['tool_args', '{"path": "/tmp/x", "mode": }'],
    ['tool_args', 'path=/tmp/x'],
    ['tool_result', "{'single': 'quotes'}"],
  ] as const)('flags %s text that should be JSON and does not parse: %s', (surface, text) => {
    const found = checkJson(text, on(surface));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ entity: 'SCHEMA.JSON_INVALID', start: 0, end: text.length, validator: 'JSON.parse: failed' });
  });

  it.each([
    ['output', '{"a": [1, 2, {"b": null}]}'],
    ['output', '[1] See the first reference below.'],
    ['output', '[Note] the build is green.'],
    ['output', 'Here is the answer: {not json but prose}'],
    ['output', 'Plain prose with no JSON at all.'],
    ['tool_args', '{"query": "select 1"}'],
    ['tool_args', ''],
    ['tool_args', '  '],
  ] as const)('leaves valid JSON and prose alone (%s): %s', (surface, text) => {
    expect(checkJson(text, on(surface))).toEqual([]);
  });

  it('checks ```json fenced blocks inside prose and points at the block', () => {
    const text = 'Result:\n```json\n{"ok": true}\n```\nand\n```json\n{"ok": tru}\n```\n';
    const found = checkJson(text, on('output'));
    expect(found).toHaveLength(1);
    expect(text.slice(found[0]!.start, found[0]!.end)).toBe('{"ok": tru}');
  });

  it('tells a JSON array from a bracketed note', () => {
    expect(looksLikeJson('[ "a", "b" ]')).toBe(true);
    expect(looksLikeJson('[-1, 2]')).toBe(true);
    expect(looksLikeJson('[citation needed]')).toBe(false);
  });

  it('stays fast on 1 MB adversarial inputs', () => {
    for (const text of ['['.repeat(1 << 20), '{"a":'.repeat(200_000), '```json\n'.repeat(120_000), `{"blob":"${'QUJD'.repeat(250_000)}`]) {
      const started = performance.now();
      checkJson(text, on('output'));
      expect(performance.now() - started).toBeLessThan(1500);
    }
  });
});
