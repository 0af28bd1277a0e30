// escalation_policies: when a conversation is handed to a person (conditions, owner role, SLA,
// mode), per agent or `*` for the default, keyed by agent. Applied through
// EscalationService.putPolicy, which keeps fields left out; the API has no delete.
import { Type } from 'typebox';
import { parseConditions } from '../../escalation/conditions.js';
import { PutPolicyBody } from '../../escalation/schemas.js';
import type { PutPolicyBody as PutEscalationPolicy } from '../../escalation/schemas.js';
import { listPolicies } from '../../escalation/store.js';
import type { WorkspaceTargets } from './targets.js';
import { byKey, NO_DELETE, type Item, type ResourceKind } from './types.js';

export const EscalationPolicyItem = Type.Object(
  { ...PutPolicyBody.properties, agent: Type.String({ minLength: 1, maxLength: 200, description: "an agent slug, or '*' for the default policy" }), comment: Type.Optional(Type.String({ maxLength: 2000 })) },
  { additionalProperties: false },
);

export function escalationPoliciesKind(targets: WorkspaceTargets): ResourceKind {
  const kind: ResourceKind = {
    name: 'escalation_policies',
    itemSchema: EscalationPolicyItem,
    description: "escalation policies, keyed by agent ('*': the default)",
    key: (item) => String(item.agent),

    async current() {
      const items: Item[] = [];
      for (const row of await listPolicies(targets.store.db)) {
        const policy = await targets.escalation.policy(row.agent);
        items.push({ agent: row.agent, conditions: policy.conditions, owner_role: policy.owner_role, sla_minutes: policy.sla_minutes, mode: policy.mode });
      }
      return byKey(kind, items);
    },

    check(item) {
      if (item.conditions === undefined) return [];
      return parseConditions(item.conditions as Record<string, unknown>).errors.map((error) => ({ field: `/conditions${error.field.replace(/^\/body\/conditions/, '')}`, message: error.message }));
    },

    // Conditions are compared as the service stores them: each with all its parameters.
    normalise: (item) => (item.conditions === undefined ? item : { ...item, conditions: parseConditions(item.conditions as Record<string, unknown>).settings }),

    blocked: (change) => (change.action === 'delete' ? NO_DELETE('an escalation policy', 'set it to observe instead') : null),

    async apply(change, { caller }) {
      const { comment: _comment, ...body } = change.desired as Item;
      await targets.escalation.putPolicy(caller, body as PutEscalationPolicy);
    },
  };
  return kind;
}
