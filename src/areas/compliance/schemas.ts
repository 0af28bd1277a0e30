// Wire shapes of /api/controls, /api/compliance and /api/frameworks, and the TypeBox shapes the
// catalogue files (catalogue/*.yaml) are validated with.
import { Type, type Static } from 'typebox';
import { Body, Nullable, StringEnum, Timestamp } from '../../infra/http/schemas.js';

export const CONTROL_STATUSES = ['pass', 'fail', 'not_evidenced'] as const;
export type ControlStatus = (typeof CONTROL_STATUSES)[number];
export const FRAMEWORK_KEYS = ['eu-ai-act', 'iso-42001', 'nist-ai-rmf', 'owasp-llm-2025'] as const;

// ---- catalogue files ----
export const PassWhenSchema = Type.Object(
  { min: Type.Optional(Type.Number()), max: Type.Optional(Type.Number()) },
  { additionalProperties: false, description: 'the value passes when it is at least min and at most max' },
);
export const ControlFileEntry = Type.Object(
  {
    key: Type.String({ minLength: 1 }),
    title: Type.String({ minLength: 1 }),
    checks: Type.String({ minLength: 1 }),
    metric: Type.String({ minLength: 1 }),
    pass_when: PassWhenSchema,
    window: Type.Boolean(),
  },
  { additionalProperties: false },
);
export type ControlDefinition = Static<typeof ControlFileEntry>;
export const ControlsFile = Type.Object({ version: Type.Integer(), controls: Type.Array(ControlFileEntry, { minItems: 1 }) }, { additionalProperties: false });
export const ClauseSchema = Type.Object(
  {
    ref: Type.String({ minLength: 1 }),
    title: Type.String({ minLength: 1 }),
    summary: Type.String({ minLength: 1 }),
    controls: Type.Array(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);
export type Clause = Static<typeof ClauseSchema>;
export const FrameworkFile = Type.Object(
  { key: Type.String({ minLength: 1 }), title: Type.String(), source: Type.String(), clauses: Type.Array(ClauseSchema, { minItems: 1 }) },
  { additionalProperties: false },
);
export type Framework = Static<typeof FrameworkFile>;
export const ObligationsFile = Type.Object(
  {
    obligations: Type.Array(
      Type.Object(
        {
          key: Type.String({ minLength: 1 }),
          title: Type.String({ minLength: 1 }),
          due_at: Type.String({ minLength: 10 }),
          source: Type.String({ minLength: 1 }),
          recurring: Type.Boolean(),
          detail: Type.Record(Type.String(), Type.Unknown()),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type ObligationsFile = Static<typeof ObligationsFile>;

// ---- wire ----
const Evidence = Type.Object({
  ids: Type.Array(Type.String(), { description: 'ids of the records behind the value (at most 50)' }),
  counts: Type.Record(Type.String(), Type.Number()),
});
export const ControlResultSchema = Type.Object({
  id: Type.String(),
  key: Type.String(),
  computed_at: Timestamp,
  window_days: Type.Integer(),
  status: StringEnum(CONTROL_STATUSES),
  value: Nullable(Type.Number()),
  evidence: Evidence,
});
export type ControlResult = Static<typeof ControlResultSchema>;

export const SyncResultSchema = Type.Object({
  version: Type.Integer({ description: 'the catalogue version now loaded' }),
  changed: Type.Boolean({ description: 'false: the files were the ones already loaded, nothing was written' }),
  controls: Type.Integer(),
  frameworks: Type.Integer(),
  obligations: Type.Integer(),
});
export type SyncResult = Static<typeof SyncResultSchema>;

export const ComputeQuery = Type.Object({ window_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, default: 30 })) });
export const ComputeResultSchema = Type.Object({ computed_at: Timestamp, window_days: Type.Integer(), catalogue_version: Type.Integer(), results: Type.Array(ControlResultSchema) });
export type ComputeResult = Static<typeof ComputeResultSchema>;

const ClauseRef = Type.Object({ framework: Type.String(), ref: Type.String(), title: Type.String() });
export const ControlViewSchema = Type.Object({
  key: Type.String(),
  title: Type.String(),
  checks: Type.String(),
  metric: Type.String(),
  pass_when: PassWhenSchema,
  window: Type.Boolean(),
  clauses: Type.Array(ClauseRef),
  latest: Nullable(ControlResultSchema),
  history: Type.Array(ControlResultSchema, { description: 'newest first, the latest included' }),
});
export const ControlListQuery = Type.Object({ history: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'results per control' })) });
export const ControlListSchema = Type.Object({ catalogue_version: Type.Integer(), items: Type.Array(ControlViewSchema) });
export type ControlList = Static<typeof ControlListSchema>;

const RollupCounts = {
  clauses: Type.Integer(),
  covered: Type.Integer({ description: 'clauses whose mapped controls all pass' }),
  failing: Type.Integer({ description: 'clauses with a failing control' }),
  not_evidenced: Type.Integer({ description: 'clauses with no failing control but one not evidenced (or never computed)' }),
  pass_rate: Type.Number({ description: 'covered / clauses' }),
};
export const FrameworkStatusSchema = Type.Object({
  key: Type.String(),
  title: Type.String(),
  ...RollupCounts,
  failing_controls: Type.Array(Type.String(), { description: 'controls that fail, each once' }),
  clauses_detail: Type.Array(
    Type.Object({ ref: Type.String(), title: Type.String(), status: StringEnum(['covered', 'failing', 'not_evidenced'] as const), failing_controls: Type.Array(Type.String()), controls: Type.Array(Type.String()) }),
    { description: 'failing first, then not evidenced, then covered' },
  ),
});
export type FrameworkStatus = Static<typeof FrameworkStatusSchema>;
export const ComplianceStatusQuery = Type.Object({ framework: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) });
export const ComplianceStatusSchema = Type.Object({ computed_at: Nullable(Timestamp), frameworks: Type.Array(FrameworkStatusSchema) });
export type ComplianceStatus = Static<typeof ComplianceStatusSchema>;

export const FrameworkSummarySchema = Type.Object({ key: Type.String(), title: Type.String(), source: Type.String(), ...RollupCounts });
export const FrameworkListSchema = Type.Object({ items: Type.Array(FrameworkSummarySchema) });
export const FrameworkKeyParams = Type.Object({ key: Type.String({ minLength: 1, maxLength: 100 }) });
export const ReviewSchema = Type.Object({
  id: Type.String(),
  framework: Type.String(),
  control_key: Type.String(),
  reference: Nullable(Type.String()),
  reviewer: Type.String(),
  reviewed_at: Timestamp,
  note: Nullable(Type.String()),
});
export type Review = Static<typeof ReviewSchema>;
export const FrameworkDetailSchema = Type.Object({
  key: Type.String(),
  title: Type.String(),
  source: Type.String(),
  status: FrameworkStatusSchema,
  clauses: Type.Array(
    Type.Object({
      ref: Type.String(),
      title: Type.String(),
      summary: Type.String(),
      status: StringEnum(['covered', 'failing', 'not_evidenced'] as const),
      controls: Type.Array(Type.Object({ key: Type.String(), title: Type.String(), status: StringEnum([...CONTROL_STATUSES, 'never_computed'] as const), value: Nullable(Type.Number()), computed_at: Nullable(Timestamp) })),
    }),
  ),
  reviews: Type.Array(ReviewSchema),
});
export type FrameworkDetail = Static<typeof FrameworkDetailSchema>;
export const ReviewBody = Body({
  control_key: Type.String({ minLength: 1, maxLength: 200 }),
  framework: Type.String({ minLength: 1, maxLength: 100 }),
  reference: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'the clause ref reviewed, e.g. Art. 14; it must map the control' })),
  note: Type.Optional(Type.String({ minLength: 1, maxLength: 5000 })),
});
export type ReviewBody = Static<typeof ReviewBody>;
