// Request validation: bodies are checked strictly (a number is not a string), while query strings,
// path parameters and headers, which arrive as text, are coerced to their declared types.
import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

// ajv-formats is CommonJS; its default export arrives nested under ESM interop.
const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv) => Ajv }).default;

const common: Options = { allErrors: false, useDefaults: true, removeAdditional: false, strict: false };

export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const strict = new Ajv({ ...common, coerceTypes: false });
  const coercing = new Ajv({ ...common, coerceTypes: 'array' });
  for (const ajv of [strict, coercing]) addFormats(ajv);
  return ({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema as object);
}
