// TypeBox helpers shared by the wire schemas and the policy language.
import { Type, type Static, type TSchema } from 'typebox';

/**
 * A string from a fixed set. Response schemas avoid `anyOf`: fast-json-stringify would validate
 * every answer against each branch to pick one, which costs more than the rest of a request.
 */
export const StringEnum = <const T extends readonly string[]>(values: T, options: { description?: string; default?: T[number] } = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/** A value or null, written as a JSON Schema type list (OpenAPI 3.1) rather than `anyOf`. */
export const Nullable = <T extends TSchema>(schema: T) => {
  const base = schema as TSchema & { type?: string; enum?: unknown[] };
  const nullable: Record<string, unknown> = { ...base, type: [base.type, 'null'] };
  if (base.enum !== undefined) nullable.enum = [...base.enum, null];
  return Type.Unsafe<Static<T> | null>(nullable);
};
