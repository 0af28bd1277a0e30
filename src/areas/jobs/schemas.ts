// Wire shapes of the job queue (spec 02 "GET /api/jobs", spec 01 §3 "Job").
import { Type, type Static } from 'typebox';
import { EmptyBody, ListOf, ListQuery, Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../infra/http/schemas.js';

export const JOB_STATUSES = ['queued', 'running', 'done', 'dead'] as const;

/** A JSON object of any shape (a job's payload or result). */
const AnyObject = Type.Object({}, { additionalProperties: true });

export const JobSchema = Type.Object({
  id: Type.String(),
  kind: Type.String(),
  status: StringEnum(JOB_STATUSES, { description: 'dead: failed permanently or after its last attempt; retry requeues it' }),
  attempts: Type.Integer({ description: 'attempts started so far' }),
  max_attempts: Type.Integer(),
  run_after: Timestamp,
  locked_by: Nullable(Type.String({ description: 'the worker holding it while running' })),
  locked_until: NullableTimestamp,
  last_error: Nullable(Type.String()),
  result: Nullable(AnyObject),
  payload: AnyObject,
  created_by: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  finished_at: NullableTimestamp,
});
export type Job = Static<typeof JobSchema>;

export const ListJobsQuery = Type.Object({
  ...ListQuery.properties,
  kind: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  status: Type.Optional(StringEnum(JOB_STATUSES, { description: 'every status, dead included, when not given' })),
});
export type ListJobsQuery = Static<typeof ListJobsQuery>;
export const JobList = ListOf(JobSchema);
export const JobIdParams = Type.Object({ job_id: Type.String({ minLength: 1, maxLength: 100 }) });
export const RetryJobBody = EmptyBody;
