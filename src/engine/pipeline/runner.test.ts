// The runner's budgets for large texts: timeouts grow with the scanned size up to the ceiling, a
// scan cut short has seen the head and the tail, and content is reported too large when it is
// longer than maxChars after condensing or when a large text's scan did not finish in its time.
import { describe, expect, it } from 'vitest';
import { SURFACES, type Detection, type Detector } from '../detectors/types.js';
import { PIECE_CHARS, runDetectors, type BudgetScaling } from './runner.js';

const context = { surface: 'input' as const, settings: { pii_packs: [] } };
const scaling: BudgetScaling = { timeoutPerKbMs: 1, budgetPerKbMs: 1, ceilingMs: 2000, maxChars: 200_000 };

/** Text that condensing cannot shrink (no repeats, no runs). */
const diverse = (length: number) => Array.from({ length }, (_, i) => String.fromCharCode(0x4e00 + ((i * 7919) % 20_000))).join('');

function finder(key: string, needle: string, seen: number[] = [], delayMs = 0): Detector {
  return {
    key,
    surfaces: SURFACES,
    entityTypes: ['TEST.FOUND'],
    costRank: 1,
    available: () => ({ available: true }),
    async detect(text, detectContext): Promise<Detection[]> {
      seen.push(text.length);
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      void detectContext;
      const found: Detection[] = [];
      for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
        found.push({ entity: 'TEST.FOUND', score: 1, start: at, end: at + needle.length, explanation: 'found' });
      }
      return found;
    },
  };
}

describe('runDetectors on large texts', () => {
  it('maps detections in condensed padding back to the original offsets', async () => {
    const text = 'a'.repeat(500_000) + ' NEEDLE ' + 'b'.repeat(500_000) + ' NEEDLE';
    const result = await runDetectors([finder('test.find', 'NEEDLE')], text, context, { budgetMs: 300, defaultTimeoutMs: 40, scaling });
    expect(result.degraded).toEqual([]);
    expect(result.contentTooLarge).toBeUndefined();
    expect(result.detections.map((d) => text.slice(d.start, d.end))).toEqual(['NEEDLE', 'NEEDLE']);
    expect(result.detections.map((d) => d.start).sort((x, y) => x - y)).toEqual([500_001, text.length - 6]);
  });

  it('grows the timeout with the scanned size: a scan that the fixed timeout would cut short finishes', async () => {
    const text = diverse(100_000) + ' NEEDLE';
    // Seven pieces of at least 5 ms each do not fit in the 20 ms base; 10 ms per KB beyond 16 K gives them about 840 ms.
    const slow = finder('test.slow', 'NEEDLE', [], 5);
    const result = await runDetectors([slow], text, context, { budgetMs: 300, defaultTimeoutMs: 20, scaling: { ...scaling, timeoutPerKbMs: 10, budgetPerKbMs: 10 } });
    expect(result.runs[0]?.status).toBe('ok');
    expect(result.detections).toHaveLength(1);
  });

  it('scans the head and then the tail before the middle', async () => {
    const text = diverse(20 * PIECE_CHARS);
    const seen: number[] = [];
    const result = await runDetectors([finder('test.order', 'never there', seen)], text, context, {
      budgetMs: 300,
      defaultTimeoutMs: 40,
      scaling: { ...scaling, maxChars: 1_000_000 },
    });
    expect(result.runs[0]?.status).toBe('ok');
    // The second piece scanned is the last one (shorter: the rest of the text).
    expect(seen[1]).toBe(text.length % PIECE_CHARS || PIECE_CHARS);
  });

  it('reports a scan that ran out of time at the ceiling as too large', async () => {
    const text = diverse(20 * PIECE_CHARS);
    const stuck = finder('test.stuck', 'never there', [], 30);
    const result = await runDetectors([stuck], text, context, {
      budgetMs: 20,
      defaultTimeoutMs: 20,
      scaling: { ...scaling, ceilingMs: 40, maxChars: 1_000_000 },
    });
    expect(result.runs[0]?.status).toBe('timeout');
    expect(result.contentTooLarge).toEqual({ chars: text.length, scannedChars: text.length, reason: 'time' });
  });

  it('reports a large text whose scan did not finish as too large even below the ceiling (a busy machine, a short budget)', async () => {
    const text = diverse(2 * PIECE_CHARS);
    const stuck = finder('test.stuck', 'never there', [], 200);
    // A 2 s ceiling the scan never reaches: before, this was only a degraded check that fail_mode open lets through.
    const result = await runDetectors([stuck, finder('test.later', 'never there')], text, context, { budgetMs: 30, defaultTimeoutMs: 20, scaling });
    expect(result.runs.find((run) => run.key === 'test.stuck')?.status).toBe('timeout');
    expect(result.contentTooLarge).toEqual({ chars: text.length, scannedChars: text.length, reason: 'time' });
  });

  it('keeps a small text that times out on the ordinary degraded path (fail_mode decides)', async () => {
    const result = await runDetectors([finder('test.stuck', 'x', [], 100)], 'short text', context, { budgetMs: 30, defaultTimeoutMs: 20, scaling });
    expect(result.degraded).toEqual(['test.stuck']);
    expect(result.contentTooLarge).toBeUndefined();
  });

  it('checks the head and the tail of a text longer than maxChars and reports it too large', async () => {
    const text = 'HEAD ' + diverse(300_000) + ' MIDDLE ' + diverse(300_000) + ' TAIL';
    const detectors = ['HEAD', 'MIDDLE', 'TAIL'].map((needle) => finder(`test.${needle.toLowerCase()}`, needle));
    const result = await runDetectors(detectors, text, context, { budgetMs: 300, defaultTimeoutMs: 40, scaling: { ...scaling, maxChars: 100_000 } });
    expect(result.contentTooLarge).toEqual({ chars: text.length, scannedChars: 100_000, reason: 'size' });
    expect(result.detections.map((d) => text.slice(d.start, d.end)).sort()).toEqual(['HEAD', 'TAIL']);
  });

  it('keeps fixed limits and scans every character without scaling settings', async () => {
    const text = 'a'.repeat(100_000) + ' NEEDLE';
    const seen: number[] = [];
    const result = await runDetectors([finder('test.find', 'NEEDLE', seen)], text, context, { budgetMs: 300, defaultTimeoutMs: 40 });
    expect(result.detections).toHaveLength(1);
    expect(Math.max(...seen)).toBeGreaterThan(PIECE_CHARS);
  });
});

describe('runDetectors and unsure answers', () => {
  it('marks a result uncacheable when a detector says its answer holds for this call only', async () => {
    const unsureDetector: Detector = { ...finder('test.unsure', 'x'), detect: (_text, detectContext) => (detectContext.unsure?.(), []) };
    const marked = await runDetectors([finder('test.find', 'NEEDLE'), unsureDetector], 'a NEEDLE', context, { budgetMs: 300, defaultTimeoutMs: 40 });
    expect(marked.uncacheable).toBe(true);
    expect(marked.degraded).toEqual([]);
    const plain = await runDetectors([finder('test.find', 'NEEDLE')], 'a NEEDLE', context, { budgetMs: 300, defaultTimeoutMs: 40 });
    expect(plain.uncacheable).toBeUndefined();
  });
});
