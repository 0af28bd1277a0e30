// Schemas shared by every area: the problem body, list envelopes and paging queries.
import { Type, type Static, type TProperties, type TSchema } from 'typebox';
import { Nullable, StringEnum } from '../lib/typebox.js';

export { Nullable, StringEnum };

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    instance: Type.Optional(Type.String()),
    errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
  },
  { $id: 'Problem', description: 'An RFC 9457 problem (application/problem+json)' },
);

/** A reference to the shared problem schema, for response maps. */
export const ProblemRef = Type.Unsafe<Static<typeof ProblemSchema>>({ $ref: 'Problem#' });

export const Timestamp = Type.String({ format: 'date-time' });
export const NullableTimestamp = Nullable(Timestamp);

export const ListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
});
export type ListQuery = Static<typeof ListQuery>;

/** `{"items": [...], "next_cursor": "..." | null}`, newest first (CONTRACT.md "Answers"). */
export const ListOf = <T extends TSchema>(item: T) =>
  Type.Object({ items: Type.Array(item), next_cursor: Nullable(Type.String()) });


/**
 * A request body: unknown fields are refused (400) rather than ignored, so that a misspelt
 * setting never passes silently. An absent body is read as `{}` (see app.ts).
 */
export const Body = <T extends TProperties>(properties: T, options: { bodyLimit?: number } = {}) =>
  Type.Object(properties, {
    additionalProperties: false,
    // Routes that take more than the gateway-wide body limit say so in the API description.
    ...(options.bodyLimit === undefined ? {} : { 'x-body-limit': options.bodyLimit }),
  });

/** The body of a route that takes none. */
export const EmptyBody = Body({});
