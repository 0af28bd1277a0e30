// Schemas shared by every area: the problem body, list envelopes and paging queries.
import { Type, type Static, type TProperties, type TSchema } from 'typebox';

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

/**
 * A string from a fixed set. Response schemas avoid `anyOf`: fast-json-stringify would validate
 * every answer against each branch to pick one, which costs more than the rest of a request.
 */
export const StringEnum = <const T extends readonly string[]>(values: T, options: { description?: string } = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/** A value or null, written as a JSON Schema type list (OpenAPI 3.1) rather than `anyOf`. */
export const Nullable = <T extends TSchema>(schema: T) => {
  const base = schema as TSchema & { type?: string; enum?: unknown[] };
  const nullable: Record<string, unknown> = { ...base, type: [base.type, 'null'] };
  if (base.enum !== undefined) nullable.enum = [...base.enum, null];
  return Type.Unsafe<Static<T> | null>(nullable);
};

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
export const Body = <T extends TProperties>(properties: T) => Type.Object(properties, { additionalProperties: false });

/** The body of a route that takes none. */
export const EmptyBody = Body({});
