// Wire shapes of the source registry: GET/PUT /api/sources, DELETE /api/sources/{key},
// GET /api/sources/health, POST /api/sources/connections, POST /api/sources/{key}/validate.
import { Type, type Static } from 'typebox';
import { Body, Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../infra/http/schemas.js';

export const SOURCE_TIERS = ['system_of_record', 'approved', 'unverified', 'external'] as const;
export type SourceTier = (typeof SOURCE_TIERS)[number];
export const CONNECTION_KINDS = ['database', 'api'] as const;
export type ConnectionKind = (typeof CONNECTION_KINDS)[number];
export const DATABASE_DIALECTS = ['postgres', 'mysql', 'mariadb', 'sqlite'] as const;
export type DatabaseDialect = (typeof DATABASE_DIALECTS)[number];
export const HEALTH_PROBLEMS = ['stale', 'deprecated_cited', 'unvalidated', 'connection_failing', 'validation_failed'] as const;
export type HealthProblemCode = (typeof HEALTH_PROBLEMS)[number];

/** The bounds on `metadata`: serialised size and nesting depth (checked by the service: 400). */
export const MAX_METADATA_BYTES = 16_384;
export const MAX_METADATA_DEPTH = 6;
export const MAX_CREDENTIAL_LENGTH = 4096;

export const SOURCE_KEY_PATTERN = '^[a-z0-9][a-z0-9._:-]{0,127}$';
/** A table, optionally schema-qualified; quoted by the connector, never interpolated raw. */
const TABLE_PATTERN = '^[A-Za-z_][A-Za-z0-9_.]{0,127}$';
const COLUMN_PATTERN = '^[A-Za-z_][A-Za-z0-9_]{0,127}$';
/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME_PATTERN = "^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$";
/** No control characters: a value that goes into a header, a host name or a path. */
const NO_CONTROL = '^[^\\u0000-\\u001f\\u007f]*$';

const TierSchema = StringEnum(SOURCE_TIERS, {
  description: 'system_of_record: the authoritative record; approved: vetted; unverified: not vetted (default); external: outside the organisation',
});

export const SourceKey = Type.String({ pattern: SOURCE_KEY_PATTERN, description: 'lower-case letters, digits and . _ : -; at most 128 characters' });
export const KeyParams = Type.Object({ key: SourceKey });

export const ListSourcesQuery = Type.Object({
  tier: Type.Optional(TierSchema),
  domain: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
});
export type ListSourcesQuery = Static<typeof ListSourcesQuery>;

export const PutSourceBody = Body({
  key: SourceKey,
  title: Type.Optional(Type.String({ minLength: 1, maxLength: 300, description: 'default: the key' })),
  tier: Type.Optional(TierSchema),
  owner: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  domain: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  updated_at_source: Type.Optional(Nullable(Type.String({ format: 'date-time', maxLength: 64, description: 'when the content last changed at the source' }))),
  freshness_sla_hours: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 87_600, description: 'stale when updated_at_source is older than this' }))),
  deprecated: Type.Optional(Type.Boolean()),
  metadata: Type.Optional(
    Type.Object({}, { additionalProperties: true, maxProperties: 200, description: `at most ${MAX_METADATA_BYTES} bytes as JSON and ${MAX_METADATA_DEPTH} levels deep` }),
  ),
});
export type PutSourceBody = Static<typeof PutSourceBody>;

export const DeleteSourceQuery = Type.Object({
  hard: Type.Optional(Type.Boolean({ default: false, description: 'true: delete the source and its connection; else deprecate it' })),
});

export const ConnectionConfigSchema = Type.Object(
  {
    dialect: Type.Optional(StringEnum(DATABASE_DIALECTS, { description: 'database only' })),
    host: Type.Optional(Type.String({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9._:\\[\\]-]+$', description: 'database (not sqlite)' })),
    port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65_535, description: 'database (not sqlite); default 5432 or 3306' })),
    database: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: NO_CONTROL, description: 'database (not sqlite)' })),
    username: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: NO_CONTROL, description: 'database (not sqlite)' })),
    check_table: Type.Optional(Type.String({ pattern: TABLE_PATTERN, description: 'database: the table counted (schema.table allowed)' })),
    freshness_column: Type.Optional(Type.String({ pattern: COLUMN_PATTERN, description: 'database: a timestamp column of check_table; its max() is the freshest content' })),
    path: Type.Optional(
      Type.String({ minLength: 1, maxLength: 1024, pattern: NO_CONTROL, description: 'sqlite: the absolute path of the database file; api: the path after base_url (starts with /)' }),
    ),
    base_url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, pattern: NO_CONTROL, description: 'api: http or https URL, without user:password' })),
    auth_header: Type.Optional(Type.String({ pattern: HEADER_NAME_PATTERN, description: "api: default 'Authorization'" })),
    auth_prefix: Type.Optional(Type.String({ maxLength: 100, pattern: NO_CONTROL, description: "api: default 'Bearer '" })),
  },
  { additionalProperties: false },
);
export type ConnectionConfig = Static<typeof ConnectionConfigSchema>;

export const SaveConnectionBody = Body({
  key: SourceKey,
  kind: StringEnum(CONNECTION_KINDS),
  config: Type.Optional(ConnectionConfigSchema),
  credential: Type.Optional(
    Nullable(
      Type.String({
        minLength: 1,
        maxLength: MAX_CREDENTIAL_LENGTH,
        description: 'database password or API token; sealed at once, never answered; left out: the stored one is kept; null: removed',
      }),
    ),
  ),
});
export type SaveConnectionBody = Static<typeof SaveConnectionBody>;

export const ConnectionSchema = Type.Object({
  key: Type.String(),
  kind: StringEnum(CONNECTION_KINDS),
  config: Type.Object({}, { additionalProperties: true, description: 'no secret' }),
  credential_set: Type.Boolean({ description: 'a credential is stored (sealed); it is never answered' }),
  last_error: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type ConnectionView = Static<typeof ConnectionSchema>;

export const ValidationSawSchema = Type.Object({
  kind: StringEnum(CONNECTION_KINDS),
  dialect: Type.Optional(StringEnum(DATABASE_DIALECTS)),
  connected: Type.Boolean({ description: 'the database answered, or the API answered with any HTTP status' }),
  row_count: Type.Optional(Type.Integer({ description: 'select count(*) on check_table' })),
  freshest: Type.Optional(NullableTimestamp),
  status: Type.Optional(Type.Integer({ description: 'api: the HTTP status' })),
  content_type: Type.Optional(Nullable(Type.String())),
  bytes: Type.Optional(Type.Integer({ description: 'api: bytes read (at most 1 MiB)' })),
  truncated: Type.Optional(Type.Boolean({ description: 'api: the body was longer than 1 MiB' })),
  duration_ms: Type.Integer(),
  reason: Nullable(Type.String({ description: 'why ok is false; null when ok' })),
});
export type ValidationSaw = Static<typeof ValidationSawSchema>;

export const SourceSchema = Type.Object({
  key: Type.String(),
  title: Type.String(),
  tier: TierSchema,
  owner: Nullable(Type.String()),
  domain: Nullable(Type.String()),
  updated_at_source: NullableTimestamp,
  freshness_sla_hours: Nullable(Type.Integer()),
  deprecated: Type.Boolean(),
  metadata: Type.Object({}, { additionalProperties: true }),
  created_by: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  last_cited_at: NullableTimestamp,
  validated_at: NullableTimestamp,
  validation: Nullable(ValidationSawSchema),
  validation_ok: Nullable(Type.Boolean()),
  stale: Type.Boolean({ description: 'freshness_sla_hours is set and updated_at_source is unknown or older than it' }),
  connection: Nullable(ConnectionSchema),
});
export type SourceView = Static<typeof SourceSchema>;

export const SourceListSchema = Type.Object({ items: Type.Array(SourceSchema, { description: 'by key' }) });
export type SourceList = Static<typeof SourceListSchema>;

export const DeletedSchema = Type.Object({ key: Type.String(), deleted: Type.Literal(true) });

export const HealthSchema = Type.Object({
  items: Type.Array(
    Type.Object({
      key: Type.String(),
      tier: TierSchema,
      problems: Type.Array(Type.Object({ code: StringEnum(HEALTH_PROBLEMS), detail: Type.String() })),
    }),
    { description: 'the sources with at least one problem, by key' },
  ),
  counts: Type.Object({
    sources: Type.Integer(),
    healthy: Type.Integer(),
    stale: Type.Integer(),
    deprecated_cited: Type.Integer(),
    unvalidated: Type.Integer(),
    connection_failing: Type.Integer(),
    validation_failed: Type.Integer(),
  }),
});
export type Health = Static<typeof HealthSchema>;

export const ValidateResultSchema = Type.Object({
  key: Type.String(),
  ok: Type.Boolean(),
  saw: ValidationSawSchema,
  validated_at: Timestamp,
});
export type ValidateResult = Static<typeof ValidateResultSchema>;
