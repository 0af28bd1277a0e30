// Wire shapes of POST /api/integrations/hosted-api/scan.
import { Type, type Static } from 'typebox';
import { Body, Nullable, StringEnum, Timestamp } from '../../../infra/http/schemas.js';

/** No control characters: a URL with one is not called. */
const NO_CONTROL = '^[^\\u0000-\\u001f\\u007f]*$';
const Url = (description: string) => Type.String({ minLength: 1, maxLength: 2048, pattern: NO_CONTROL, description });

export const ScanBody = Body({
  endpoint_url: Url('the API base URL; the document is read from <endpoint_url>/openapi.json unless openapi_spec_url is given'),
  docs_url: Type.Optional(Nullable(Url('where people read the API docs (recorded, not fetched)'))),
  openapi_spec_url: Type.Optional(Nullable(Url('the OpenAPI 3.x or Swagger 2.0 document, JSON or YAML'))),
  purpose: Type.Optional(Nullable(Type.String({ maxLength: 500, description: 'what the API is used for' }))),
});
export type ScanBody = Static<typeof ScanBody>;

const DATA_CLASSES = ['personal', 'financial', 'credentials', 'health'] as const;

export const ScanResultSchema = Type.Object({
  document_url: Type.String(),
  format: StringEnum(['json', 'yaml'] as const),
  bytes: Type.Integer(),
  spec_version: Type.String({ description: '3.x.y or 2.0' }),
  title: Nullable(Type.String()),
  api_version: Nullable(Type.String()),
  operations_count: Type.Integer(),
  operations: Type.Array(Type.String(), { description: '`METHOD /path`, sorted (at most 5,000)' }),
  model_serving: Type.Array(
    Type.Object({
      operation: Type.String(),
      kind: Type.String({ description: 'chat_completions, completions, embeddings, messages, generate, predict, invocations, inference or model_request' }),
      signals: Type.Array(Type.String(), { description: 'path:<kind>, operation:<kind>, request:<field>' }),
    }),
  ),
  auth: Type.Object({
    schemes: Type.Array(Type.Object({ name: Type.String(), type: Type.String(), descriptor: Type.String({ description: 'http:bearer, apiKey:header:<name>, oauth2, openIdConnect…' }) })),
    summary: Type.Array(Type.String(), { description: 'the scheme descriptors, sorted, and `none` when an operation needs no credential' }),
    unauthenticated_operations: Type.Integer(),
    risks: Type.Array(
      Type.Object({
        code: Type.String({ description: 'no_authentication_declared, unauthenticated_operations, unauthenticated_model_serving, api_key_in_query, http_basic, undeclared_scheme' }),
        detail: Type.String(),
        operations: Type.Array(Type.String()),
      }),
    ),
  }),
  exposed_data: Type.Array(
    Type.Object({
      class: StringEnum(DATA_CLASSES),
      field: Type.String(),
      in_request: Type.Boolean(),
      in_response: Type.Boolean(),
      operations: Type.Array(Type.String(), { description: 'at most 20' }),
    }),
  ),
  data_classes: Type.Array(StringEnum(DATA_CLASSES)),
  truncated: Type.Boolean({ description: 'a ceiling was reached (paths, operations, schema nodes, listed fields)' }),
});
export type ScanResult = Static<typeof ScanResultSchema>;

export const ScanSchema = Type.Object({
  id: Type.String(),
  status: StringEnum(['completed', 'failed'] as const),
  endpoint_url: Type.String(),
  docs_url: Nullable(Type.String()),
  openapi_spec_url: Nullable(Type.String()),
  purpose: Nullable(Type.String()),
  document_url: Type.String({ description: 'the URL the document was read from' }),
  document_sha256: Nullable(Type.String({ description: 'of the bytes read; null when nothing was read' })),
  result: Nullable(ScanResultSchema),
  error: Nullable(Type.String({ description: 'why the document could not be read; null when completed' })),
  created_by: Type.String(),
  created_at: Timestamp,
});
export type ScanView = Static<typeof ScanSchema>;
