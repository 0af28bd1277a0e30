// Wire shapes of entitlement: principals, grants, POST /api/entitlement/filter and the
// over-permission report.
import { Type, type Static } from 'typebox';
import { Body, Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../infra/http/schemas.js';
import { PRINCIPAL_KINDS, WITHHOLD_REASONS } from './decide.js';
import { MAX_GLOB_LENGTH } from './match.js';

/** A filter call carries up to 1,000 chunks of up to 32 KiB: more than the gateway-wide body limit. */
export const FILTER_BODY_LIMIT = 8 * 1_048_576;
export const MAX_CHUNKS = 1000;
const MAX_CHUNK_TEXT = 32_768;

const Code = Type.String({ minLength: 1, maxLength: 100 });
const Codes = (description: string) => Type.Array(Code, { maxItems: 100, description });
const Subject = Type.String({ minLength: 1, maxLength: 256, description: 'the stable identity-provider id of the person or service' });
const AgentSlug = Type.String({ minLength: 1, maxLength: 200 });
const Residency = Type.String({ minLength: 1, maxLength: 64, description: 'a residency code such as eu or us; compared case-insensitively' });

export const PrincipalBody = Body({
  subject: Subject,
  agent: Type.Optional(Nullable(AgentSlug)),
  display: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
  groups: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 100 })),
  clearances: Type.Optional(Codes('data classes the subject may see (pii, financial, hr ...); a chunk with a class outside them is withheld')),
  purposes: Type.Optional(Codes('purposes the subject may retrieve for; empty: any purpose')),
  residency: Type.Optional(Nullable(Residency)),
});
export type PrincipalBody = Static<typeof PrincipalBody>;

export const PrincipalSchema = Type.Object({
  subject: Type.String(),
  agent: Nullable(Type.String()),
  display: Nullable(Type.String()),
  groups: Type.Array(Type.String()),
  clearances: Type.Array(Type.String()),
  purposes: Type.Array(Type.String()),
  residency: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type EntitlementPrincipal = Static<typeof PrincipalSchema>;

export const PrincipalsSchema = Type.Object({ items: Type.Array(PrincipalSchema, { description: 'by subject' }) });

export const GrantBody = Body({
  resource: Type.String({
    minLength: 1,
    maxLength: MAX_GLOB_LENGTH,
    description: 'a glob over chunk sources: * within a segment, ? one character, ** across segments (/ and : separate segments); \\ escapes',
  }),
  principal: Type.String({ minLength: 1, maxLength: 256, description: 'a subject, a group, an agent slug, or * with principal_kind *' }),
  principal_kind: Type.Optional(StringEnum(PRINCIPAL_KINDS, { default: 'subject', description: '*: everyone (raises over_privileged)' })),
  classes: Type.Optional(Codes('data classes the grant covers; empty: no restriction on classes')),
  purposes: Type.Optional(Codes('purposes the grant is for; empty: any purpose')),
  residency: Type.Optional(Nullable(Residency)),
});
export type GrantBody = Static<typeof GrantBody>;

export const GrantSchema = Type.Object({
  id: Type.String(),
  resource: Type.String(),
  principal: Type.String(),
  principal_kind: StringEnum(PRINCIPAL_KINDS),
  classes: Type.Array(Type.String()),
  purposes: Type.Array(Type.String()),
  residency: Nullable(Type.String()),
  created_by: Type.String(),
  created_at: Timestamp,
  last_used_at: NullableTimestamp,
});
export type EntitlementGrant = Static<typeof GrantSchema>;

export const GrantsSchema = Type.Object({ items: Type.Array(GrantSchema, { description: 'oldest first' }) });

export const ChunkSchema = Type.Object(
  {
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    source: Type.String({ minLength: 1, maxLength: 1024, description: 'a source key' }),
    text: Type.String({ maxLength: MAX_CHUNK_TEXT }),
    classes: Type.Optional(Codes('data classes of the chunk')),
    purpose: Type.Optional(Code),
    residency: Type.Optional(Residency),
    updated_at: Type.Optional(Type.String({ format: 'date-time', maxLength: 64 })),
  },
  { additionalProperties: false },
);
export type Chunk = Static<typeof ChunkSchema>;

export const FilterBody = Body(
  {
    subject: Subject,
    agent: Type.Optional(AgentSlug),
    chunks: Type.Optional(Type.Array(ChunkSchema, { maxItems: MAX_CHUNKS })),
    purpose: Type.Optional(Code),
    trace_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    record: Type.Optional(Type.Boolean({ default: false, description: 'true: each withheld chunk is stored with trace_id' })),
  },
  { bodyLimit: FILTER_BODY_LIMIT },
);
export type FilterBody = Static<typeof FilterBody>;

const ReasonSchema = StringEnum(WITHHOLD_REASONS);

export const FilterResultSchema = Type.Object({
  subject: Type.String(),
  agent: Nullable(Type.String({ description: 'the requesting agent, when one was named or the credential is an agent credential' })),
  allowed: Type.Array(ChunkSchema, { description: 'the chunks the subject may see, as given, in their order' }),
  withheld: Type.Array(
    Type.Object({
      index: Type.Integer({ description: 'position in the chunks given' }),
      id: Nullable(Type.String()),
      source: Type.String(),
      reason: ReasonSchema,
      detail: Type.String(),
    }),
  ),
  counts: Type.Object({
    chunks: Type.Integer(),
    allowed: Type.Integer(),
    withheld: Type.Integer(),
    by_reason: Type.Record(Type.String(), Type.Integer()),
  }),
  recorded: Type.Integer({ description: 'withholdings stored (record: true)' }),
});
export type FilterResult = Static<typeof FilterResultSchema>;

export const OverPermissionQuery = Type.Object({
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, default: 30 })),
});

export const OverPermissionSchema = Type.Object({
  days: Type.Integer(),
  since: Timestamp,
  retrieved_since: Timestamp,
  unused_grants: Type.Array(Type.Object({ grant: GrantSchema, never_used: Type.Boolean() }), { description: 'grants not used since `since`, oldest first' }),
  principals: Type.Array(
    Type.Object({
      subject: Type.String(),
      display: Nullable(Type.String()),
      visible_sources: Type.Integer({ description: 'registered sources a grant of the subject, its groups or its agent covers' }),
      retrieved_sources: Type.Integer({ description: 'distinct registered sources of chunks the subject was allowed since retrieved_since' }),
      ratio: Type.Number({ description: 'visible_sources / max(retrieved_sources, 1)' }),
      over_permitted: Type.Boolean({ description: 'at least 5 visible sources and a ratio of 5 or more' }),
    }),
    { description: 'highest ratio first' },
  ),
  wildcard_grants: Type.Array(
    Type.Object({
      grant: GrantSchema,
      wildcard: Type.Array(StringEnum(['principal', 'resource'] as const), { description: 'principal: granted to everyone; resource: covers every source' }),
    }),
  ),
  counts: Type.Object({ grants: Type.Integer(), unused_grants: Type.Integer(), over_permitted_principals: Type.Integer(), wildcard_grants: Type.Integer() }),
});
export type OverPermission = Static<typeof OverPermissionSchema>;
