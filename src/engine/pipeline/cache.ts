// Detection results by exact content, per surface. Applications resend the same system prompt,
// tool descriptions and conversation history on every turn; the default detectors are
// deterministic, so an identical text on the same surface with the same detector set gives the
// same detections and need not be scanned again. Policy is always evaluated afresh: the cache
// holds detections, never verdicts.
import type { Detector, Surface } from '../detectors/types.js';
import type { RunResult } from './runner.js';

interface Entry {
  /** The exact detector list the result came from; a changed list (switch, setting) misses. */
  detectors: readonly Detector[];
  result: RunResult;
  /** What the entry counts against the budget: its text and its detections. */
  size: number;
  /** When a time-dependent detector's answer goes out of date (Infinity: never). */
  expiresAt: number;
}

/** Rough characters a detection holds besides its explanation (fields, offsets, object overhead). */
const DETECTION_OVERHEAD = 64;

export interface DetectionCacheOptions {
  /** Characters of cached text and detections in all; 0 turns the cache off. */
  maxChars: number;
  /** Texts longer than this are not cached (they are rarely repeated and cost the most memory). */
  maxTextChars: number;
  /** The clock entries age by (the gateway's, so that tests can move it); Date.now by default. */
  now?: () => number;
}

// Kept over lru-cache: one cache under one budget needs a surface-and-text key, and building and
// hashing that key made lookups 8–20x slower (bench/caches.ts).
export class DetectionCache {
  private readonly bySurface = new Map<Surface, Map<string, Entry>>();
  private chars = 0;
  readonly stats = { hits: 0, misses: 0 };

  private readonly now: () => number;

  constructor(private readonly options: DetectionCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  get enabled(): boolean {
    return this.options.maxChars > 0;
  }

  get(surface: Surface, text: string, detectors: readonly Detector[]): RunResult | undefined {
    if (!this.enabled || text.length > this.options.maxTextChars) return undefined;
    const entries = this.bySurface.get(surface);
    const entry = entries?.get(text);
    if (entry === undefined || entry.detectors !== detectors) {
      this.stats.misses += 1;
      return undefined;
    }
    if (entry.expiresAt <= this.now()) {
      entries!.delete(text);
      this.chars -= entry.size;
      this.stats.misses += 1;
      return undefined;
    }
    // Least recently used goes first: a hit moves the entry to the end of the insertion order.
    entries!.delete(text);
    entries!.set(text, entry);
    this.stats.hits += 1;
    return entry.result;
  }

  /** Keeps a clean result (every detector `ok`); a degraded one must be retried next time. */
  set(surface: Surface, text: string, detectors: readonly Detector[], result: RunResult): void {
    if (!this.enabled || text.length > this.options.maxTextChars || result.degraded.length > 0 || result.uncacheable === true) return;
    let entries = this.bySurface.get(surface);
    if (entries === undefined) {
      entries = new Map();
      this.bySurface.set(surface, entries);
    }
    // An entry from an earlier detector list is replaced.
    const previous = entries.get(text);
    if (previous !== undefined) {
      entries.delete(text);
      this.chars -= previous.size;
    }
    const size = text.length + result.detections.reduce((sum, d) => sum + d.explanation.length + DETECTION_OVERHEAD, 0);
    let ttl = Infinity;
    for (const detector of detectors) if (detector.cacheForMs !== undefined && detector.cacheForMs < ttl) ttl = detector.cacheForMs;
    entries.set(text, { detectors, result: freeze(result), size, expiresAt: this.now() + ttl });
    this.chars += size;
    while (this.chars > this.options.maxChars) this.evictOne();
  }

  private evictOne(): void {
    // The surface map with the oldest entry is not tracked; evicting from the largest keeps it simple and bounded.
    let largest: Map<string, Entry> | undefined;
    for (const entries of this.bySurface.values()) if (largest === undefined || entries.size > largest.size) largest = entries;
    const oldest = largest?.entries().next();
    if (largest === undefined || oldest === undefined || oldest.done === true) {
      this.chars = 0;
      return;
    }
    const [text, entry] = oldest.value;
    largest.delete(text);
    this.chars -= entry.size;
  }
}

/** Cached detections are shared by every later decision on the same text: nobody may change them. */
function freeze(result: RunResult): RunResult {
  for (const detection of result.detections) Object.freeze(detection);
  Object.freeze(result.detections);
  for (const run of result.runs) Object.freeze(run);
  Object.freeze(result.runs);
  Object.freeze(result.degraded);
  return Object.freeze(result);
}
