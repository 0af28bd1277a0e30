// Wire shapes of annotation: GET /api/eval/annotations/queue and POST /api/eval/results/{result_id}/annotate.
import { Type, type Static } from 'typebox';
import { Body, Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../../infra/http/schemas.js';
import { CaseSchema, SUITE_KEY_PATTERN } from '../suites/schemas.js';

export const ANNOTATION_VERDICTS = ['pass', 'fail'] as const;
export const QUEUE_REASONS = ['near_threshold', 'scorers_disagree'] as const;
/** How much of a case's input and an output the queue shows. */
export const QUEUE_TEXT_CHARS = 2000;

export const QueueQuery = Type.Object({
  run_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'one run; without it, results of every run, newest first' })),
  band: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: 1,
      default: 0.1,
      description: 'how near the threshold counts: |score - threshold| ≤ band for 0..1 scorers, ≤ band × threshold for latency and cost',
    }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
});
export type QueueQuery = Static<typeof QueueQuery>;

export const QueueItemSchema = Type.Object({
  result_id: Type.String(),
  run_id: Type.String(),
  case_id: Nullable(Type.String()),
  decision_id: Nullable(Type.String({ description: 'online results: the recorded decision scored' })),
  agent: Nullable(Type.String()),
  scorer: Type.String(),
  score: Nullable(Type.Number()),
  threshold: Nullable(Type.Number()),
  passed: Type.Boolean({ description: "the scorer's call" }),
  reason: Type.String(),
  why: StringEnum(QUEUE_REASONS, { description: "near_threshold: the score is within band of the threshold; scorers_disagree: the output's other scorers decided otherwise" }),
  input: Nullable(Type.String({ description: `the case's input text (online: the recorded content), cut to ${QUEUE_TEXT_CHARS} characters` })),
  output: Nullable(Type.String({ description: `cut to ${QUEUE_TEXT_CHARS} characters` })),
});
export type QueueItem = Static<typeof QueueItemSchema>;
export const QueueSchema = Type.Object({ items: Type.Array(QueueItemSchema) });
export type Queue = Static<typeof QueueSchema>;

export const ResultIdParams = Type.Object({ result_id: Type.String({ minLength: 1, maxLength: 200 }) });

export const AnnotateBody = Body({
  verdict: Type.Optional(
    StringEnum(ANNOTATION_VERDICTS, { description: "a person's call, counted instead of the scorer's in pass rates; without it the annotation records the note only" }),
  ),
  note: Type.String({ minLength: 1, maxLength: 2000, description: 'required, not blank: why' }),
  add_to_suite: Type.Optional(
    Type.String({
      pattern: SUITE_KEY_PATTERN,
      maxLength: 64,
      description: "a suite key: the result's case (online: the decision's recorded input) becomes a new case there",
    }),
  ),
});
export type AnnotateBody = Static<typeof AnnotateBody>;

export const ResultSchema = Type.Object({
  id: Type.String(),
  run_id: Type.String(),
  output_id: Type.String(),
  case_id: Nullable(Type.String()),
  decision_id: Nullable(Type.String()),
  agent: Nullable(Type.String()),
  at: Timestamp,
  scorer: Type.String(),
  score: Nullable(Type.Number()),
  passed: Type.Boolean({ description: "the scorer's call" }),
  threshold: Nullable(Type.Number()),
  reason: Type.String(),
  annotation: Nullable(StringEnum(ANNOTATION_VERDICTS)),
  annotation_note: Nullable(Type.String()),
  annotated_by: Nullable(Type.String()),
  annotated_at: NullableTimestamp,
  effective_passed: Type.Boolean({ description: 'what pass rates count: the annotation when there is one, else the scorer' }),
});
export type EvalResult = Static<typeof ResultSchema>;

export const AnnotatedSchema = Type.Object({
  result: ResultSchema,
  case: Nullable(CaseSchema),
});
export type Annotated = Static<typeof AnnotatedSchema>;
