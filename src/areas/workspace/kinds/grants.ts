// grants: which tools each registered agent may call, and how (approval, taint, constraints,
// actions). Keyed by agent/tool_key; applied through AgentService.grant and revokeGrant.
import { Type } from 'typebox';
import { Nullable } from '../../../infra/http/schemas.js';
import { listAllCapabilities } from '../../agents/store.js';
import type { GrantBody } from '../../agents/schemas.js';
import { GrantBody as GrantBodySchema, SLUG_PATTERN } from '../../agents/schemas.js';
import type { WorkspaceTargets } from './targets.js';
import { byKey, sortedStrings, type Item, type ResourceKind } from './types.js';
import { notFound } from '../../../infra/http/problems.js';

const grant = GrantBodySchema.properties;

export const GrantItem = Type.Object(
  {
    agent: Type.String({ pattern: SLUG_PATTERN, maxLength: 64, description: 'the agent slug' }),
    tool_key: grant.tool_key,
    requires_approval: Type.Optional(Type.Boolean({ description: 'default false' })),
    max_taint: Type.Optional(Nullable(Type.String({ maxLength: 20, pattern: '^(trusted|untrusted|hostile|0(\\.\\d+)?|1(\\.0+)?)$', description: 'trusted, untrusted, hostile or a number from 0 to 1' }))),
    constraints: grant.constraints,
    actions: grant.actions,
    comment: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);

export function grantsKind(targets: WorkspaceTargets): ResourceKind {
  const kind: ResourceKind = {
    name: 'grants',
    itemSchema: GrantItem,
    description: "agents' tool grants, keyed by agent/tool_key",
    key: (item) => `${String(item.agent)}/${String(item.tool_key)}`,

    async current() {
      const rows = await listAllCapabilities(targets.store.db);
      return byKey(
        kind,
        rows.map((row) => {
          const capability = targets.agents.capabilityToWire(row);
          return {
            agent: capability.agent,
            tool_key: capability.tool_key,
            requires_approval: capability.requires_approval,
            max_taint: capability.max_taint,
            constraints: capability.constraints,
            actions: sortedStrings(capability.actions),
          };
        }),
      );
    },

    // The grant route keeps fields left out, so every field is sent: a grant is what the document says.
    normalise: (item) => ({
      ...item,
      requires_approval: item.requires_approval ?? false,
      max_taint: item.max_taint ?? null,
      constraints: item.constraints ?? {},
      actions: sortedStrings(item.actions ?? []),
    }),

    async apply(change, { caller }) {
      const [agent, ...rest] = change.key.split('/');
      const toolKey = rest.join('/');
      if (change.action === 'delete') {
        const held = (await targets.agents.grants(agent as string)).find((capability) => capability.tool_key === toolKey);
        if (held === undefined) throw notFound('grant', change.key);
        await targets.agents.revokeGrant(caller, agent as string, held.id);
        return;
      }
      const desired = change.desired as Item;
      const body: GrantBody = {
        tool_key: toolKey,
        requires_approval: desired.requires_approval as boolean,
        max_taint: desired.max_taint as string | null,
        constraints: desired.constraints as Record<string, unknown>,
        actions: desired.actions as string[],
      };
      await targets.agents.grant(caller, agent as string, body);
    },
  };
  return kind;
}
