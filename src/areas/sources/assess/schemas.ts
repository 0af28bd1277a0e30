// Wire shapes of POST /api/sources/assess and POST /api/sources/context-check, and the chunk shape
// they take (the same everywhere in knowledge governance).
import { Type, type Static } from 'typebox';
import { Body, Nullable, StringEnum } from '../../../infra/http/schemas.js';

export const SOURCE_TIERS = ['system_of_record', 'approved', 'unverified', 'external'] as const;
export type SourceTier = (typeof SOURCE_TIERS)[number];

export const CHUNK_FLAGS = ['stale', 'deprecated', 'unverified', 'external', 'off_domain', 'unregistered'] as const;
export type ChunkFlag = (typeof CHUNK_FLAGS)[number];

export const MAX_CHUNKS = 1000;
/** Sentences judged per call, the judged ones in answer order: later ones keep the lexical verdict. */
export const MAX_JUDGED_SENTENCES = 20;
export const JUDGED_DEADLINE_S = 20;
export const MAX_CHUNK_CHARS = 32_768;
export const MAX_ANSWER_CHARS = 65_536;
export const MAX_CHECK_TEXT_CHARS = 1_048_576;
/** 1000 chunks of 32 KiB do not fit; this bounds the whole call (JSON escaping included). */
export const ASSESS_BODY_LIMIT = 8 * 1_048_576;

const Key = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });
const Label = Type.String({ minLength: 1, maxLength: 100 });

export const ChunkSchema = Type.Object(
  {
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "the chunk's id in the caller's index" })),
    source: Key('the key of the knowledge source the chunk came from'),
    text: Type.String({ maxLength: MAX_CHUNK_CHARS }),
    classes: Type.Optional(Type.Array(Label, { maxItems: 50, description: 'data classes, e.g. pii, financial' })),
    purpose: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    residency: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    updated_at: Type.Optional(Type.String({ format: 'date-time', maxLength: 64, description: 'when the chunk was last updated at its source; also counts for staleness' })),
  },
  { additionalProperties: false },
);
export type Chunk = Static<typeof ChunkSchema>;

const Chunks = Type.Array(ChunkSchema, { maxItems: MAX_CHUNKS, description: `at most ${MAX_CHUNKS} chunks, text at most 32 KiB each` });
const TierSchema = Nullable(StringEnum(SOURCE_TIERS, { description: 'the registry tier; null for an unregistered source' }));
const FlagsSchema = Type.Array(StringEnum(CHUNK_FLAGS), {
  description:
    'stale: older than the source\'s freshness_sla_hours (updated_at_source or the chunk\'s updated_at); deprecated; ' +
    'unverified / external: the tier; off_domain: the source\'s domain differs from agent_domain; unregistered: no such source',
});

export const AssessBody = Body(
  {
    answer: Type.String({ maxLength: MAX_ANSWER_CHARS, description: 'the answer to assess, at most 64 KiB' }),
    chunks: Type.Optional(Chunks),
    agent_domain: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "the agent's domain; chunks from sources of another domain are flagged off_domain" })),
    judge: Type.Optional(
      Type.Boolean({
        description: `also ask the judgment tier whether each sentence is supported (at most ${MAX_JUDGED_SENTENCES} sentences, ${JUDGED_DEADLINE_S} s in all); where it answers, its verdict decides \`supported\`. 422 when no judgment tier is configured`,
      }),
    ),
  },
  { bodyLimit: ASSESS_BODY_LIMIT },
);
export type AssessBody = Static<typeof AssessBody>;

export const AssessmentSchema = Type.Object({
  supported_ratio: Type.Number({ minimum: 0, maximum: 1, description: 'supported sentences / assessed sentences; 1 when no sentence has content words' }),
  sentences: Type.Array(
    Type.Object({
      text: Type.String(),
      start: Type.Integer({ description: 'offset into answer (UTF-16 code units)' }),
      end: Type.Integer({ description: 'exclusive' }),
      supported: Type.Boolean(),
      best_chunk: Nullable(Type.Integer({ description: 'index into chunks' })),
      score: Nullable(Type.Number({ description: 'the best chunk\'s score, 0..1; null: no content words, not assessed' })),
      judged: Nullable(
        Type.Object(
          { score: Type.Number({ minimum: 0, maximum: 1 }), reason: Type.String() },
          { description: 'the judgment tier\'s answer (supported when score ≥ method.judgment.threshold); null when not asked or it did not answer' },
        ),
      ),
    }),
  ),
  unsupported: Type.Array(Type.String(), { description: 'the texts of the unsupported sentences, in order' }),
  chunks: Type.Array(
    Type.Object({
      index: Type.Integer(),
      id: Nullable(Type.String()),
      source: Type.String(),
      flags: FlagsSchema,
      tier: TierSchema,
    }),
  ),
  method: Type.Object({
    name: Type.Literal('lexical_overlap'),
    threshold: Type.Number(),
    description: Type.String(),
    judgment: Nullable(
      Type.Object(
        {
          threshold: Type.Number(),
          judged: Type.Integer({ description: 'sentences the tier answered for' }),
          unanswered: Type.Integer({ description: 'sentences asked that got no answer (tier failures, time out): the lexical verdict stands' }),
          not_asked: Type.Integer({ description: `sentences beyond the first ${MAX_JUDGED_SENTENCES} with content words` }),
          errors: Type.Array(Type.String(), { maxItems: 5 }),
        },
        { description: 'present when the call asked for judgment (judge: true)' },
      ),
    ),
  }),
});
export type Assessment = Static<typeof AssessmentSchema>;

export const ContextCheckBody = Body(
  {
    text: Type.Optional(Type.String({ maxLength: MAX_CHECK_TEXT_CHARS, description: 'retrieved text to check for injection, at most 1 MiB' })),
    chunks: Type.Optional(Chunks),
    source_key: Type.Optional(Key('the source `text` came from: checked against the registry')),
  },
  { bodyLimit: ASSESS_BODY_LIMIT },
);
export type ContextCheckBody = Static<typeof ContextCheckBody>;

const InjectionSchema = Type.Object({
  found: Type.Boolean(),
  entities: Type.Array(Type.String(), { description: 'INJECTION.* entities the pipeline detected' }),
  score: Nullable(Type.Number({ description: 'the highest score of a policy rule that fired on one; null when none did' })),
});

export const ContextCheckSchema = Type.Object({
  source: Nullable(
    Type.Object({
      key: Type.String(),
      registered: Type.Boolean(),
      tier: TierSchema,
      stale: Type.Boolean(),
      deprecated: Type.Boolean(),
    }, { description: 'the registry facts of source_key; null without source_key' }),
  ),
  chunks: Type.Array(Type.Object({ index: Type.Integer(), source: Type.String(), flags: FlagsSchema, injection: InjectionSchema })),
  text_injection: Nullable(InjectionSchema),
  ok: Type.Boolean({ description: 'no injection found, and no source (source_key or a chunk\'s) unregistered, stale or deprecated' }),
});
export type ContextCheck = Static<typeof ContextCheckSchema>;
