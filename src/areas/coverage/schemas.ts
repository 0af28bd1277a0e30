// Wire shapes of GET /api/coverage/threats and of the threat catalogue file (catalogue/threats.yaml).
import { Type, type Static } from 'typebox';
import { Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../infra/http/schemas.js';

export const THREAT_FRAMEWORKS = ['owasp-llm-2025', 'mitre-atlas'] as const;
export const COVERAGE_STATUSES = ['uncovered', 'observed_only', 'covered'] as const;
export type CoverageStatus = (typeof COVERAGE_STATUSES)[number];

const Key = Type.String({ minLength: 1, maxLength: 200 });

export const ThreatsFile = Type.Object({
  threats: Type.Array(
    Type.Object({
      id: Key,
      framework: StringEnum(THREAT_FRAMEWORKS),
      title: Type.String({ minLength: 1 }),
      summary: Type.String({ minLength: 1 }),
      scope: Type.String({ minLength: 1 }),
      detectors: Type.Array(Key),
      entity_prefixes: Type.Array(Key),
      rules: Type.Array(Key),
      conditions: Type.Array(Type.String()),
    }),
    { minItems: 1 },
  ),
});
export type ThreatsFile = Static<typeof ThreatsFile>;
export type Threat = ThreatsFile['threats'][number];

export const CoverageQuery = Type.Object({
  window_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, default: 30, description: 'days back from now for the fired counts' })),
});
export type CoverageQuery = Static<typeof CoverageQuery>;

export const ThreatCoverageSchema = Type.Object({
  id: Type.String({ description: 'LLM01:2025 … or a MITRE ATLAS technique id' }),
  framework: StringEnum(THREAT_FRAMEWORKS),
  title: Type.String(),
  summary: Type.String(),
  scope: Type.String({ description: 'how much of the threat a gateway can address' }),
  status: StringEnum(COVERAGE_STATUSES),
  reasons: Type.Array(Type.String(), { description: 'why the status is what it is' }),
  detectors: Type.Array(
    Type.Object({ key: Type.String(), known: Type.Boolean(), enabled: Type.Boolean(), available: Type.Boolean(), reason: Nullable(Type.String()) }),
  ),
  entity_prefixes: Type.Array(Type.Object({ prefix: Type.String(), seen: Type.Integer({ description: 'in the window, decisions per entity type of this prefix, summed' }) })),
  rules: Type.Array(
    Type.Object({
      rule_id: Type.String(),
      bound: Type.Array(
        Type.Object({ policy: Type.String(), level: Type.String(), scope_id: Type.String(), mode: StringEnum(['observe', 'enforce'] as const), enabled: Type.Boolean() }),
        { description: 'every policy that holds the rule, at any scope' },
      ),
      fired: Type.Integer({ description: 'decisions in the window where the rule fired' }),
      last_fired_at: NullableTimestamp,
    }),
  ),
  conditions: Type.Array(Type.String()),
  fired: Type.Integer({ description: "the mapped rules' fired counts in the window, summed" }),
  red_team: Type.Object({ status: StringEnum(['not_run'] as const), detail: Type.String() }),
});
export type ThreatCoverage = Static<typeof ThreatCoverageSchema>;

export const CoverageSchema = Type.Object({
  window_days: Type.Integer(),
  from: Timestamp,
  to: Timestamp,
  sampled: Type.Boolean({ description: 'the window held more decisions than were read for the counts' }),
  summary: Type.Object({ uncovered: Type.Integer(), observed_only: Type.Integer(), covered: Type.Integer() }),
  items: Type.Array(ThreatCoverageSchema),
});
export type CoverageView = Static<typeof CoverageSchema>;
