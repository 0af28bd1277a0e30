// The `answerability.boundary` detector: on `input`, a question outside the agent's answerability
// boundary is reported as ANSWERABILITY.OUT_OF_BOUNDS (boundary in enforce: the shipped
// `answerability` pack blocks it) or ANSWERABILITY.OUT_OF_BOUNDS_OBSERVED (boundary in observe, or a
// question only partly out of bounds: reported, never blocked). On `output`, an answer that is itself
// wholly outside the boundary (dates, out-of-scope topics, stale sources) is reported as
// ANSWERABILITY.BOUNDARY_BREACH in either mode, for the `boundary_breach` finding. The answerability service feeds it
// the boundaries and the freshness of their systems of record; detect() only reads memory.
import type { DetectContext, Detection, Detector, Surface } from '../../engine/detectors/types.js';
import { checkQuestion, describeReasons, type Boundary, type SourceFreshness } from './check.js';

export const ANSWERABILITY_DETECTOR_KEY = 'answerability.boundary';
export const OUT_OF_BOUNDS = 'ANSWERABILITY.OUT_OF_BOUNDS';
export const OUT_OF_BOUNDS_OBSERVED = 'ANSWERABILITY.OUT_OF_BOUNDS_OBSERVED';
export const BOUNDARY_BREACH = 'ANSWERABILITY.BOUNDARY_BREACH';

const NO_SOURCES: ReadonlyMap<string, SourceFreshness> = new Map();
const SERVED: readonly Surface[] = ['input', 'output'];

export class AnswerabilityDetector implements Detector {
  readonly key = ANSWERABILITY_DETECTOR_KEY;
  readonly costRank = 5;
  /** Boundaries are per agent: the detection cache keys the text by agent while this detector serves. */
  readonly agentScoped = true;
  /** Coverage windows move with the date and sources go stale: a cached answer is re-judged after a minute. */
  readonly cacheForMs = 60_000;
  /**
   * Set by the composition root: rebuilds the registry's per-surface lists, which also keeps the
   * detection cache from answering from before a boundary changed.
   */
  onChanged: () => void = () => {};
  private signature = '';
  readonly entityTypes: readonly string[] = [OUT_OF_BOUNDS, OUT_OF_BOUNDS_OBSERVED, BOUNDARY_BREACH];
  // Not wholeText: a question fits in one piece of the runner's scan; a text longer than that is
  // judged piece by piece, which keeps a 1 MB prompt from holding the event loop.

  private boundaries = new Map<string, { boundary: Boundary; sources: ReadonlyMap<string, SourceFreshness> }>();
  private now: () => Date = () => new Date();

  /**
   * No surface while no boundary exists, so that without one the detector never runs and adds
   * nothing to a decision's explanation (as custom rules do).
   */
  get surfaces(): readonly Surface[] {
    return this.boundaries.size === 0 ? [] : SERVED;
  }

  available() {
    return { available: true };
  }

  /** The clock checks are made against (the service's, so that tests can move it). */
  useClock(now: () => Date): void {
    this.now = now;
  }

  /** Replaces every boundary (a sync from the store). */
  replaceAll(entries: ReadonlyArray<{ boundary: Boundary; sources: ReadonlyMap<string, SourceFreshness> }>): void {
    // A sync every second reads the same boundaries: only a real change rebuilds (and empties the cache).
    const signature = JSON.stringify(entries.map(({ boundary, sources }) => [boundary, [...sources]]));
    if (signature === this.signature) return;
    this.signature = signature;
    this.boundaries = new Map(entries.map((entry) => [entry.boundary.agent, entry]));
    this.onChanged();
  }

  /** Sets one agent's boundary (a change made in this process: seen at once). */
  set(boundary: Boundary, sources: ReadonlyMap<string, SourceFreshness>): void {
    const next = new Map(this.boundaries);
    next.set(boundary.agent, { boundary, sources });
    this.boundaries = next;
    this.signature = '';
    this.onChanged();
  }

  boundaryOf(agent: string): Boundary | null {
    return this.boundaries.get(agent)?.boundary ?? null;
  }

  detect(text: string, context: DetectContext): Detection[] {
    if (this.boundaries.size === 0) return [];
    const entry = context.agent === undefined ? undefined : this.boundaries.get(context.agent);
    if (entry === undefined) return [];
    const result = checkQuestion({ question: text, knownEntityTypes: [], boundary: entry.boundary, sources: entry.sources ?? NO_SOURCES, now: this.now() });
    if (result.outcome === 'answerable') return [];
    if (context.surface === 'output') {
      // An answer that is only partly outside (or only on a stale source) is not a breach.
      if (result.outcome !== 'not_answerable') return [];
      const at = result.span ?? { start: 0, end: text.length };
      return [
        {
          entity: BOUNDARY_BREACH,
          score: 1,
          start: at.start,
          end: at.end,
          explanation: `the answer lies outside the answerability boundary of agent ${entry.boundary.agent}: ${describeReasons(result.reasons)}`,
          pattern: 'answerability.boundary',
        },
      ];
    }
    const blocking = result.outcome === 'not_answerable' && entry.boundary.mode === 'enforce';
    const span = result.span ?? { start: 0, end: text.length };
    const partly = result.outcome === 'partial' ? ' (partly: another part of the question is inside the boundary)' : '';
    return [
      {
        entity: blocking ? OUT_OF_BOUNDS : OUT_OF_BOUNDS_OBSERVED,
        score: 1,
        start: span.start,
        end: span.end,
        explanation: `outside the answerability boundary of agent ${entry.boundary.agent} (${entry.boundary.mode})${partly}: ${describeReasons(result.reasons)}`,
        pattern: 'answerability.boundary',
        // A refusal says which part of the boundary the question falls outside.
        explainsVerdict: true,
      },
    ];
  }
}
