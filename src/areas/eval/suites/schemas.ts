// Wire shapes of eval suites and cases: GET|POST /api/eval/suites, GET /api/eval/suites/{key},
// POST /api/eval/suites/{key}/cases and POST /api/eval/suites/{key}/cases/from-trace.
import { Type, type Static } from 'typebox';
import { Body, EmptyBody, Nullable, StringEnum, Timestamp } from '../../../infra/http/schemas.js';

export const SUITE_KEY_PATTERN = '^[a-z0-9][a-z0-9._-]{0,63}$';
/** A case's own name within its suite (suite files name every case; `file-<index>` when they do not). */
export const CASE_KEY_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$';
export const SPLIT_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';
export const RUN_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
export const CASE_SOURCES = ['api', 'file', 'trace', 'annotation'] as const;
export type CaseSource = (typeof CASE_SOURCES)[number];

const AnyObject = (description: string) => Type.Object({}, { additionalProperties: true, maxProperties: 200, description });
const Labels = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  maxItems: 32,
  description: '`benign` marks a case over_refusal scores',
});

export const SuiteKeyParams = Type.Object({ key: Type.String({ pattern: SUITE_KEY_PATTERN, maxLength: 64 }) });

export const CreateSuiteBody = Body({
  key: Type.String({ pattern: SUITE_KEY_PATTERN, maxLength: 64, description: 'lower case letters, digits, `.`, `_`, `-`; 1 to 64 characters' }),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'default: the key' })),
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 32 })),
});
export type CreateSuiteBody = Static<typeof CreateSuiteBody>;

export const AddCaseBody = Body({
  input: AnyObject(
    '`text` (string) or `messages` (array of {role: system|user|assistant|tool, content}); guard targets also read `surface`, `tool`, `arguments`. At most 64 KiB as JSON, 8 levels deep',
  ),
  expected: Type.Optional(
    AnyObject('what scorers assert: verdict, entities, output, contains, regex, json_schema, refusal, canary. At most 16 KiB as JSON, 8 levels deep'),
  ),
  context: Type.Optional(AnyObject('anything the case carries along (at most 16 KiB as JSON, 8 levels deep)')),
  labels: Type.Optional(Labels),
  split: Type.Optional(Type.String({ pattern: SPLIT_PATTERN, maxLength: 64, default: 'test' })),
  key: Type.Optional(
    Type.String({ pattern: CASE_KEY_PATTERN, maxLength: 128, description: 'the case key within the suite: a case with the same key is replaced (200, same id)' }),
  ),
  source: Type.Optional(StringEnum(['api', 'file'] as const, { description: 'file: pushed from a suite file (parapet eval push); default api' })),
});
export type AddCaseBody = Static<typeof AddCaseBody>;

export const FromTraceQuery = Type.Object({
  trace_id: Type.String({
    minLength: 1,
    maxLength: 200,
    description: "a decision id, or a request's trace id (then its earliest decision on the input surface, else its earliest decision)",
  }),
});
export const FromTraceBody = EmptyBody;

export const CaseSchema = Type.Object({
  id: Type.String(),
  suite: Type.String(),
  key: Nullable(Type.String()),
  position: Type.Integer({ description: 'order within the suite' }),
  input: Type.Object({}, { additionalProperties: true }),
  expected: Type.Object({}, { additionalProperties: true }),
  context: Type.Object({}, { additionalProperties: true }),
  labels: Type.Array(Type.String()),
  split: Type.String(),
  source: StringEnum(CASE_SOURCES),
  source_ref: Nullable(Type.String({ description: 'the decision (trace) or result (annotation) the case was made from' })),
  created_at: Timestamp,
});
export type EvalCase = Static<typeof CaseSchema>;

export const LastRunSchema = Type.Object({
  id: Type.String(),
  status: StringEnum(RUN_STATUSES),
  pass_rate: Nullable(Type.Number({ description: 'cases passing every applicable scorer (annotations counted) / cases; null until completed' })),
  created_at: Timestamp,
});

const suiteFields = {
  key: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  tags: Type.Array(Type.String()),
  version: Type.Integer({ description: 'grows by one with every case added or replaced' }),
  created_at: Timestamp,
  updated_at: Timestamp,
  last_run: Nullable(LastRunSchema),
};

export const SuiteSchema = Type.Object({ ...suiteFields, cases: Type.Integer({ description: 'how many cases the suite holds' }) });
export type Suite = Static<typeof SuiteSchema>;
export const SuiteList = Type.Object({ items: Type.Array(SuiteSchema, { description: 'by key' }) });
export type SuiteList = Static<typeof SuiteList>;
export const SuiteDetailSchema = Type.Object({ ...suiteFields, cases: Type.Array(CaseSchema, { description: 'in position order' }) });
export type SuiteDetail = Static<typeof SuiteDetailSchema>;
