// The rules of assess: lexical support of an answer by its chunks, chunk flags from the source
// registry, and context checks (registry facts plus injection found by the one pipeline).
import type { Pipeline } from '../../../engine/pipeline/decide.js';
import type { Clock } from '../../../infra/lib/clock.js';
import type { Store } from '../../../infra/store/db.js';
import { SOURCE_TIERS, type Assessment, type AssessBody, type Chunk, type ChunkFlag, type ContextCheck, type ContextCheckBody, type SourceTier } from './schemas.js';
import { markCited, sourcesByKey, type SourceFacts } from './store.js';
import { SUPPORT_METHOD, assessSupport } from './support.js';

export interface AssessServiceDeps {
  store: Store;
  clock: Clock;
  /** Injection in chunks is found by the one pipeline (a trial on surface retrieved). */
  pipeline: Pipeline;
}

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
    const now = this.deps.clock.now();
    const registry = await sourcesByKey(this.deps.store.db, chunks.map((chunk) => chunk.source));
    const support = assessSupport(body.answer, chunks.map((chunk) => chunk.text));
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
      method: SUPPORT_METHOD,
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
