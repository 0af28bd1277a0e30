// The rules of assess: lexical support of an answer by its chunks, chunk flags from the source
// registry, and context checks (registry facts plus injection found by the one pipeline).
import { DEFAULT_JUDGE_THRESHOLD, JUDGE_UNAVAILABLE, type RubricJudge } from '../../../engine/detectors/judgment/rubric.js';
import type { Pipeline } from '../../../engine/pipeline/decide.js';
import { problem } from '../../../infra/http/problems.js';
import type { Clock } from '../../../infra/lib/clock.js';
import type { Store } from '../../../infra/store/db.js';
import { JUDGED_DEADLINE_S, MAX_JUDGED_SENTENCES, SOURCE_TIERS, type Assessment, type AssessBody, type Chunk, type ChunkFlag, type ContextCheck, type ContextCheckBody, type SourceTier } from './schemas.js';
import { markCited, sourcesByKey, type SourceFacts } from './store.js';
import { SUPPORT_METHOD, assessSupport } from './support.js';

export interface AssessServiceDeps {
  store: Store;
  clock: Clock;
  /** Injection in chunks is found by the one pipeline (a trial on surface retrieved). */
  pipeline: Pipeline;
  /** The judgment tier as it stands now (the posture may change while the gateway runs); null: none usable. */
  judge: () => RubricJudge | null;
}

const SUPPORT_RUBRIC =
  'The answer is one sentence of a longer answer; the input holds the retrieved evidence it was written from. ' +
  'Score 1 when everything the sentence claims is stated in the evidence or follows directly from it, 0 when it is absent from or contradicted by the evidence, in between when only part of it is supported.';
/** Evidence shown to the judge per sentence: the lexically best chunk first, then the others in order. */
const MAX_JUDGE_EVIDENCE_CHARS = 6000;
const JUDGE_CONCURRENCY = 4;

/** The agent a context check runs as when the caller speaks for none. */
export const CONTEXT_CHECK_AGENT = 'context-check';

type Injection = ContextCheck['text_injection'] & {};

/** Flags that make a context check not ok; tier flags only inform. */
const BLOCKING_FLAGS: ReadonlySet<ChunkFlag> = new Set(['stale', 'deprecated', 'unregistered']);

const HOUR_MS = 3_600_000;

export class AssessService {
  constructor(readonly deps: AssessServiceDeps) {}

  async assess(body: AssessBody): Promise<Assessment> {
    const chunks = body.chunks ?? [];
    const judge = body.judge === true ? this.deps.judge() : null;
    if (body.judge === true && judge === null) throw problem('refused', `judge: ${JUDGE_UNAVAILABLE}`, [{ field: '/body/judge', message: JUDGE_UNAVAILABLE }]);
    const now = this.deps.clock.now();
    const registry = await sourcesByKey(this.deps.store.db, chunks.map((chunk) => chunk.source));
    const lexical = assessSupport(body.answer, chunks.map((chunk) => chunk.text));
    const sentences: Assessment['sentences'] = lexical.sentences.map((sentence) => ({ ...sentence, judged: null }));
    const judgment = judge === null ? null : await judgeSentences(judge, sentences, chunks);
    const assessed = sentences.filter((sentence) => sentence.score !== null);
    const support = {
      sentences,
      supported_ratio: judgment === null ? lexical.supported_ratio : assessed.length === 0 ? 1 : Math.round((assessed.filter((sentence) => sentence.supported).length / assessed.length) * 1000) / 1000,
    };
    // A source counts as cited when one of its chunks supports a sentence of the answer.
    const cited = new Set<string>();
    for (const sentence of support.sentences) {
      if (sentence.supported && sentence.best_chunk !== null) {
        const source = (chunks[sentence.best_chunk] as Chunk).source;
        if (registry.has(source)) cited.add(source);
      }
    }
    if (cited.size > 0) await markCited(this.deps.store.db, [...cited], now.toISOString());
    return {
      supported_ratio: support.supported_ratio,
      sentences: support.sentences,
      unsupported: support.sentences.filter((sentence) => !sentence.supported).map((sentence) => sentence.text),
      chunks: chunks.map((chunk, index) => {
        const source = registry.get(chunk.source);
        return { index, id: chunk.id ?? null, source: chunk.source, flags: chunkFlags(chunk, source, now, body.agent_domain), tier: source === undefined ? null : tierOf(source) };
      }),
      method: { ...SUPPORT_METHOD, judgment },
    };
  }

  /** Registry facts and injection for retrieved content; nothing live changes (trials only). */
  async contextCheck(body: ContextCheckBody, agent: string | null): Promise<ContextCheck> {
    const chunks = body.chunks ?? [];
    const now = this.deps.clock.now();
    const keys = chunks.map((chunk) => chunk.source);
    if (body.source_key !== undefined) keys.push(body.source_key);
    const registry = await sourcesByKey(this.deps.store.db, keys);
    const as = agent ?? CONTEXT_CHECK_AGENT;

    let ok = true;
    let source: ContextCheck['source'] = null;
    if (body.source_key !== undefined) {
      const facts = registry.get(body.source_key);
      source = {
        key: body.source_key,
        registered: facts !== undefined,
        tier: facts === undefined ? null : tierOf(facts),
        stale: facts !== undefined && isStale(facts, undefined, now),
        deprecated: facts !== undefined && facts.deprecated === 1,
      };
      if (!source.registered || source.stale || source.deprecated) ok = false;
    }
    const checked: ContextCheck['chunks'] = [];
    for (const [index, chunk] of chunks.entries()) {
      const flags = chunkFlags(chunk, registry.get(chunk.source), now, undefined);
      const injection = await this.injection(as, chunk.text);
      if (injection.found || flags.some((flag) => BLOCKING_FLAGS.has(flag))) ok = false;
      checked.push({ index, source: chunk.source, flags, injection });
    }
    const textInjection = body.text === undefined ? null : await this.injection(as, body.text);
    if (textInjection?.found === true) ok = false;
    return { source, chunks: checked, text_injection: textInjection, ok };
  }

  private async injection(agent: string, content: string): Promise<Injection> {
    if (content.trim() === '') return { found: false, entities: [], score: null };
    const decision = await this.deps.pipeline.trial({ agent, surface: 'retrieved', content });
    const entities = decision.entities.filter((entity) => entity.startsWith('INJECTION.'));
    let score: number | null = null;
    for (const rule of decision.rules_fired) {
      if (rule.entity?.startsWith('INJECTION.') === true && rule.score !== undefined) score = Math.max(score ?? 0, rule.score);
    }
    return { found: entities.length > 0, entities, score };
  }
}

/**
 * The judgment tier's verdict on each assessed sentence (in answer order, at most
 * MAX_JUDGED_SENTENCES, within JUDGED_DEADLINE_S): where it answers, it decides `supported`,
 * since it reads paraphrase the lexical score misses and contradictions it cannot see.
 */
async function judgeSentences(judge: RubricJudge, sentences: Assessment['sentences'], chunks: readonly Chunk[]): Promise<NonNullable<Assessment['method']['judgment']>> {
  const asked = sentences.filter((sentence) => sentence.score !== null);
  const batch = asked.slice(0, MAX_JUDGED_SENTENCES);
  const stop = AbortSignal.timeout(JUDGED_DEADLINE_S * 1000);
  const deadline = Date.now() + JUDGED_DEADLINE_S * 1000;
  const errors: string[] = [];
  let judged = 0;
  let next = 0;
  const worker = async () => {
    while (next < batch.length) {
      const sentence = batch[next++] as Assessment['sentences'][number];
      const left = deadline - Date.now();
      if (left <= 0 || stop.aborted) {
        if (errors.length < 5) errors.push('the judgment time ran out');
        continue;
      }
      try {
        const answer = await judge({ rubric: SUPPORT_RUBRIC, input: evidenceFor(sentence.best_chunk, chunks), output: sentence.text, signal: stop });
        sentence.judged = { score: answer.score, reason: answer.reason };
        sentence.supported = answer.score >= DEFAULT_JUDGE_THRESHOLD;
        judged += 1;
      } catch (error) {
        const message = (error as Error).message;
        if (errors.length < 5 && !errors.includes(message)) errors.push(message);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(JUDGE_CONCURRENCY, batch.length) }, worker));
  return { threshold: DEFAULT_JUDGE_THRESHOLD, judged, unanswered: batch.length - judged, not_asked: asked.length - batch.length, errors };
}

function evidenceFor(best: number | null, chunks: readonly Chunk[]): string {
  const order = best === null ? chunks : [chunks[best] as Chunk, ...chunks.filter((_, index) => index !== best)];
  let text = '';
  for (const chunk of order) {
    const piece = `[source ${chunk.source}] ${chunk.text}\n`;
    if (text.length + piece.length > MAX_JUDGE_EVIDENCE_CHARS) {
      if (text === '') text = piece.slice(0, MAX_JUDGE_EVIDENCE_CHARS);
      break;
    }
    text += piece;
  }
  return text === '' ? '(no evidence was retrieved)' : text;
}

function tierOf(source: SourceFacts): SourceTier {
  // A tier the registry does not know is trusted least.
  return (SOURCE_TIERS as readonly string[]).includes(source.tier) ? (source.tier as SourceTier) : 'unverified';
}

function chunkFlags(chunk: Chunk, source: SourceFacts | undefined, now: Date, agentDomain: string | undefined): ChunkFlag[] {
  if (source === undefined) return ['unregistered'];
  const flags: ChunkFlag[] = [];
  if (isStale(source, chunk.updated_at, now)) flags.push('stale');
  if (source.deprecated === 1) flags.push('deprecated');
  const tier = tierOf(source);
  if (tier === 'unverified' || tier === 'external') flags.push(tier);
  if (agentDomain !== undefined && source.domain !== null && source.domain.trim().toLowerCase() !== agentDomain.trim().toLowerCase()) flags.push('off_domain');
  return flags;
}

/** Older than the source's freshness SLA: the source's own update time, or the chunk's. */
function isStale(source: SourceFacts, chunkUpdatedAt: string | undefined, now: Date): boolean {
  if (source.freshness_sla_hours === null) return false;
  const oldest = now.getTime() - source.freshness_sla_hours * HOUR_MS;
  for (const at of [source.updated_at_source, chunkUpdatedAt]) {
    if (at === null || at === undefined) continue;
    const ms = Date.parse(at);
    if (Number.isFinite(ms) && ms < oldest) return true;
  }
  return false;
}
