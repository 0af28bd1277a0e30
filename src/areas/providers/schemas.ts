// Wire shape of GET /api/providers: where payloads go, never a key or token.
import { Type, type Static } from 'typebox';
import { Nullable, StringEnum } from '../../infra/http/schemas.js';
import { BACKENDS, PII_EGRESS } from '../../engine/detectors/judgment/posture.js';

const Where = StringEnum(['local', 'hosted'] as const, { description: 'local: loopback, private or link-local host; hosted: any other host' });

export const UpstreamSchema = Type.Object({
  api: StringEnum(['chat-completions', 'responses', 'messages'] as const),
  route: Type.String({ description: 'the gateway route agents call' }),
  base_url: Type.String({ description: 'scheme, host and path only' }),
  host: Type.String(),
  where: Where,
  key_setting: Type.String({ description: 'the setting that holds its key' }),
  key_set: Type.Boolean({ description: 'whether the gateway holds a key (never the key); without one the route answers 503' }),
});

export const JudgmentTierSchema = Type.Object({
  name: Type.String({ description: '`host/model`, or deterministic' }),
  kind: StringEnum(['local', 'hosted', 'deterministic'] as const),
  model: Nullable(Type.String()),
  host: Nullable(Type.String({ description: 'where its payloads go; null for the deterministic tier (nowhere)' })),
  key_env: Nullable(Type.String({ description: 'the environment variable named for its key (never the key)' })),
  key_set: Nullable(Type.Boolean({ description: 'whether that variable is set; null when none is named' })),
  used: Type.Boolean(),
  why_not: Nullable(Type.String()),
});

export const DetectorPlacementSchema = Type.Object({
  key: Type.String(),
  runs: StringEnum(['local', 'remote'] as const, { description: 'remote: it sends text to a hosted judgment tier' }),
  available: Type.Boolean(),
  sends_to: Type.Array(Type.String(), { description: 'hosts the detector sends text to (judgment tiers in use)' }),
});

export const ProvidersSchema = Type.Object({
  upstreams: Type.Array(UpstreamSchema),
  judgment: Type.Object({
    backend: StringEnum(BACKENDS),
    fail_closed: Type.Boolean(),
    source: StringEnum(['settings', 'operator'] as const),
    sends_off_machine: Type.Boolean(),
    tiers: Type.Array(JudgmentTierSchema, { description: 'in the order asked; deterministic last' }),
  }),
  egress: Type.Object({
    allow_egress: Type.Boolean({ description: 'the deployment setting: may payloads leave the machine' }),
    pii_egress: StringEnum(PII_EGRESS, { description: 'what personal data a hosted judgment tier may receive' }),
    hosted_destinations: Type.Array(Type.String({ description: 'hosts outside the machine payloads may reach: hosted upstreams and hosted judgment tiers in use' })),
  }),
  detectors: Type.Array(DetectorPlacementSchema, { description: 'enabled detectors' }),
  exports: Type.Object({
    targets: Type.Array(Type.Object({ kind: Type.String(), url: Type.String(), where: Where })),
    note: Type.String(),
  }),
});
export type Providers = Static<typeof ProvidersSchema>;
