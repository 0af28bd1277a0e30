// Wire shapes of discovery: POST /api/discovery/scan, GET /api/discovery/shadow,
// POST /api/discovery/submit.
import { Type, type Static } from 'typebox';
import { Body, Nullable, StringEnum, Timestamp } from '../../infra/http/schemas.js';

export const SITE_KINDS = ['framework', 'model_client', 'mcp_server', 'tool', 'prompt', 'secret', 'agent'] as const;
export const SEEN_IN = ['traffic', 'spans', 'code', 'submitted'] as const;
export type SeenIn = (typeof SEEN_IN)[number];

export const MAX_SITES = 5000;
/** A site's `detail`, serialised (checked by the service: 400). */
export const MAX_SITE_DETAIL_BYTES = 4096;
/** A submission of 5,000 sites with their details is larger than the gateway-wide body limit. */
export const SUBMIT_BODY_LIMIT = 8 * 1024 * 1024;

export const ShadowQuery = Type.Object({
  window_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, default: 30, description: 'how far back traffic, spans and code sites are read' })),
});
export type ShadowQuery = Static<typeof ShadowQuery>;

export const LocationSchema = Type.Object({
  origin: Type.String({ description: 'codehost or submit' }),
  location: Type.String({ description: 'the repository (codehost) or the submission source (submit)' }),
  path: Nullable(Type.String()),
  line: Nullable(Type.Integer()),
  kind: Type.String(),
  name: Type.String(),
});

export const ShadowAgentSchema = Type.Object({
  agent: Type.String({ description: 'the name it was seen under: an agent name, or a repository when code names no agent' }),
  seen_in: Type.Array(StringEnum(SEEN_IN)),
  calls: Type.Integer({ description: 'decisions in traffic (guard and proxy) within the window' }),
  spans: Type.Integer({ description: 'OTLP spans within the window' }),
  sites: Type.Integer({ description: 'code sites (code host scans and submissions) within the window' }),
  tools: Type.Array(Type.String(), { description: 'tools called in traffic, most used first (at most 50)' }),
  surfaces: Type.Array(Type.String(), { description: 'surfaces seen in traffic' }),
  first_seen_at: Timestamp,
  last_seen_at: Timestamp,
  locations: Type.Array(LocationSchema, { description: 'code sites, latest first (at most 20)' }),
  register: Type.Object(
    {
      method: Type.Literal('POST'),
      path: Type.Literal('/api/agents'),
      body: Type.Object({ slug: Type.String(), name: Type.String() }),
    },
    { description: 'the request that registers this agent' },
  ),
});
export type ShadowAgent = Static<typeof ShadowAgentSchema>;

export const ShadowListSchema = Type.Object({
  window_days: Type.Integer(),
  since: Timestamp,
  items: Type.Array(ShadowAgentSchema, { description: 'latest seen first, at most 500' }),
  truncated: Type.Boolean({ description: 'more than 500 shadow agents: the earliest seen are left out' }),
});
export type ShadowList = Static<typeof ShadowListSchema>;

export const DiscoveryScanSchema = Type.Object({
  codehost: Type.Object({
    connected: Type.Boolean(),
    queued: Type.Array(Type.Object({ repo_full_name: Type.String(), scan_id: Type.String() })),
    failed: Type.Array(Type.Object({ repo_full_name: Type.String(), reason: Type.String() }), { description: 'repositories whose scan could not be queued' }),
    error: Nullable(Type.String({ description: 'why the repositories could not be listed' })),
  }),
  shadow_agents: Type.Integer({ description: 'shadow agents in the last 30 days' }),
  findings_raised: Type.Integer({ description: 'shadow_agent findings raised now (agents that had none)' }),
});
export type DiscoveryScan = Static<typeof DiscoveryScanSchema>;

const Text = (maxLength: number, description?: string) => Type.String({ maxLength, ...(description === undefined ? {} : { description }) });

export const SiteSchema = Type.Object(
  {
    path: Type.Optional(Nullable(Text(1000, 'the file, relative to the source'))),
    line: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 100_000_000 }))),
    kind: StringEnum(SITE_KINDS),
    name: Type.String({ minLength: 1, maxLength: 300 }),
    agent: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200, description: 'the agent this site is or belongs to' }))),
    detail: Type.Optional(Type.Object({}, { additionalProperties: true, maxProperties: 50, description: `at most ${MAX_SITE_DETAIL_BYTES} bytes as JSON` })),
  },
  { additionalProperties: false },
);

export const SubmitBody = Body(
  {
    source: Type.String({ minLength: 1, maxLength: 500, description: 'what was scanned (a repository, a host, a path): the sites are stored under it' }),
    label: Type.Optional(Nullable(Text(200))),
    files_scanned: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 1_000_000_000 }))),
    frameworks: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 })),
    coverage: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1, description: 'share of the source scanned' }))),
    counts: Type.Optional(
      Type.Record(Type.String({ maxLength: 100 }), Type.Integer({ minimum: -1_000_000_000, maximum: 1_000_000_000 }), {
        maxProperties: 100,
        propertyNames: { maxLength: 100 },
      }),
    ),
    sites: Type.Optional(Type.Array(SiteSchema, { maxItems: MAX_SITES })),
  },
  { bodyLimit: SUBMIT_BODY_LIMIT },
);
export type SubmitBody = Static<typeof SubmitBody>;

export const SubmittedSchema = Type.Object({ id: Type.String(), sites: Type.Integer() });
