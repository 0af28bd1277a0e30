// Wire shapes of /api/workspace (plan, apply, export) and the workspace document itself, version
// parapet/v1: one list per resource kind. schemas/workspace.v1.json is generated from
// WorkspaceDocument (workspaceJsonSchema) and checked current by a test.
import { Type, type Static, type TSchema } from 'typebox';
import { Body, StringEnum } from '../../infra/http/schemas.js';
import { AgentItem } from './kinds/agents.js';
import { BoundaryItem } from './kinds/answerability.js';
import { BusinessRuleItem } from './kinds/business-rules.js';
import { CustomRuleItem } from './kinds/custom-rules.js';
import { EntitlementGrantItem, PrincipalItem } from './kinds/entitlement.js';
import { EscalationPolicyItem } from './kinds/escalation.js';
import { EvalSuiteItem } from './kinds/eval-suites.js';
import { GrantItem } from './kinds/grants.js';
import { McpServerItem } from './kinds/mcp-servers.js';
import { MonitorItem } from './kinds/monitors.js';
import { PolicyItem } from './kinds/policies.js';
import { SloItem } from './kinds/slos.js';
import { SourceItem } from './kinds/sources.js';
import { ToolItem } from './kinds/tools.js';

export const API_VERSION = 'parapet/v1';
/** A document, or all the files of a directory together: YAML or JSON text. */
export const MAX_SOURCE_CHARS = 2 * 1_048_576;
export const MAX_FILES = 100;
/** JSON escaping can double a text: the body may be larger than the source it carries. */
export const WORKSPACE_BODY_LIMIT = 6 * 1_048_576;
const MAX_ITEMS = 10_000;

/** Each kind's item, in the document's order (the order apply makes changes in). */
export const KIND_ITEMS = {
  agents: AgentItem,
  grants: GrantItem,
  tools: ToolItem,
  mcp_servers: McpServerItem,
  policies: PolicyItem,
  custom_rules: CustomRuleItem,
  business_rules: BusinessRuleItem,
  sources: SourceItem,
  entitlement_principals: PrincipalItem,
  entitlement_grants: EntitlementGrantItem,
  answerability: BoundaryItem,
  eval_suites: EvalSuiteItem,
  slos: SloItem,
  monitors: MonitorItem,
  escalation_policies: EscalationPolicyItem,
} as const;
export type KindName = keyof typeof KIND_ITEMS;
export const KIND_NAMES = Object.keys(KIND_ITEMS) as KindName[];

const kindLists = Object.fromEntries(
  KIND_NAMES.map((name) => [name, Type.Optional(Type.Array(KIND_ITEMS[name] as TSchema, { maxItems: MAX_ITEMS, description: `${name}: listed, the kind is managed (see prune)` }))]),
);

export const WorkspaceDocument = Type.Object(
  {
    apiVersion: Type.Literal(API_VERSION),
    kind: Type.Literal('Workspace'),
    prune: Type.Optional(
      Type.Boolean({ description: 'default true: a resource of a listed kind that the document does not name is deleted; false: nothing is deleted' }),
    ),
    comment: Type.Optional(Type.String({ maxLength: 2000 })),
    ...kindLists,
  },
  { additionalProperties: false, title: 'Parapet workspace', description: 'The whole gateway configuration as code (docs/workspace.md). Secrets are referenced by environment variable name, never written.' },
);
export type WorkspaceDocument = Static<typeof WorkspaceDocument>;

/** The JSON Schema (draft 2020-12) of the document, as schemas/workspace.v1.json holds it. */
export function workspaceJsonSchema(): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://parapet.dev/schemas/workspace.v1.json',
    ...(JSON.parse(JSON.stringify(WorkspaceDocument)) as Record<string, unknown>),
  };
}

const FileName = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '^[A-Za-z0-9_][A-Za-z0-9._/-]*\\.(yaml|yml|json)$',
  description: 'a relative file name ending in .yaml, .yml or .json',
});

export const SourceSchema = Type.Union([
  Type.String({ minLength: 1, maxLength: MAX_SOURCE_CHARS, description: 'one workspace document, YAML or JSON' }),
  Type.Object(
    {
      files: Type.Record(FileName, Type.String({ maxLength: MAX_SOURCE_CHARS }), {
        minProperties: 1,
        maxProperties: MAX_FILES,
        additionalProperties: false,
        description: 'a directory of workspace documents by file name, merged (the same resource in two files is refused)',
      }),
    },
    { additionalProperties: false },
  ),
]);
export type WorkspaceSource = Static<typeof SourceSchema>;

export const SourceBody = Body({ source: SourceSchema }, { bodyLimit: WORKSPACE_BODY_LIMIT });
export type SourceBody = Static<typeof SourceBody>;

const Actions = StringEnum(['create', 'change', 'delete'] as const);
const KindNameSchema = StringEnum(KIND_NAMES as [KindName, ...KindName[]]);

export const PlannedChangeSchema = Type.Object({
  kind: KindNameSchema,
  key: Type.String(),
  action: Actions,
  fields: Type.Array(Type.Object({ path: Type.String(), from: Type.Unknown(), to: Type.Unknown() }), { description: 'each field that changes, from its current to its desired value' }),
  blocked: Type.Optional(Type.String({ description: 'why the gateway cannot make this change; apply reports it failed' })),
});

const Counts = Type.Object({ create: Type.Integer(), change: Type.Integer(), delete: Type.Integer(), blocked: Type.Integer() });

export const PlanSchema = Type.Object({
  changes: Type.Array(PlannedChangeSchema, { description: 'in the order apply makes them' }),
  counts: Counts,
  unchanged: Type.Integer({ description: 'resources named in the document that already match' }),
  kinds: Type.Array(KindNameSchema, { description: 'the kinds the document lists (the others are left alone)' }),
  prune: Type.Boolean(),
});
export type Plan = Static<typeof PlanSchema>;

const Done = Type.Object({ kind: KindNameSchema, key: Type.String(), action: Actions });

export const ApplySchema = Type.Object({
  applied: Type.Array(Done),
  failed: Type.Array(
    Type.Object({
      ...Done.properties,
      reason: Type.String(),
      attempted: Type.Boolean({ description: 'false: blocked, or not tried after an earlier change of its kind failed' }),
    }),
  ),
  counts: Type.Object({ applied: Type.Integer(), failed: Type.Integer() }),
  unchanged: Type.Integer(),
});
export type ApplyResult = Static<typeof ApplySchema>;

export const ExportQuery = Type.Object({
  format: Type.Optional(StringEnum(['json', 'yaml'] as const, { default: 'json', description: 'json: the document as JSON; yaml: as YAML text (application/yaml)' })),
});
export type ExportQuery = Static<typeof ExportQuery>;

/** The exported document as the JSON answer: checked against WorkspaceDocument by the tests, loosely here. */
export const ExportedDocumentSchema = Type.Object(
  { apiVersion: Type.Literal(API_VERSION), kind: Type.Literal('Workspace') },
  { additionalProperties: true, description: 'a workspace document (schemas/workspace.v1.json)' },
);
