// business_rules: plain-language rules about tool calls in their compiled form, keyed by key, with
// the agent they apply to and their mode. Applied through BusinessRuleService.save (a save replaces
// the definition and sets the mode); the API has no delete.
import { Type } from 'typebox';
import { Nullable } from '../../../infra/http/schemas.js';
import { BusinessDefinitionSchema, BusinessRuleKey } from '../../business/schemas.js';
import type { BusinessDefinition } from '../../business/schemas.js';
import type { WorkspaceTargets } from './targets.js';
import { allPages, byKey, NO_DELETE, withoutEmpty, type Item, type ResourceKind } from './types.js';

const { key: _key, ...definitionFields } = BusinessDefinitionSchema.properties;

export const BusinessRuleItem = Type.Object(
  {
    key: BusinessRuleKey,
    ...definitionFields,
    agent: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200, description: 'the agent slug it applies to; absent: every agent' }))),
    comment: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);

export function businessRulesKind(targets: WorkspaceTargets): ResourceKind {
  const kind: ResourceKind = {
    name: 'business_rules',
    itemSchema: BusinessRuleItem,
    description: 'business rules, keyed by key',
    key: (item) => String(item.key),

    async current() {
      const rules = await allPages((cursor) => targets.businessRules.list({ limit: 500, ...(cursor === undefined ? {} : { cursor }) }));
      return byKey(
        kind,
        rules.map((rule) => {
          const { key: _stored, mode: _mode, ...definition } = rule.definition;
          return withoutEmpty({ key: rule.key, ...definition, agent: rule.agent, mode: rule.mode });
        }),
      );
    },

    // A save replaces the definition: fields left out are gone, the agent is every agent.
    normalise: (item) => ({ ...item, agent: item.agent ?? null }),

    blocked: (change) => (change.action === 'delete' ? NO_DELETE('a business rule', 'set its mode to observe instead') : null),

    async apply(change, { caller }) {
      const { key, agent, comment: _comment, ...definition } = change.desired as Item;
      await targets.businessRules.save(caller, {
        definition: { ...(withoutEmpty(definition) as BusinessDefinition), key: key as string },
        ...(agent === null || agent === undefined ? {} : { agent: agent as string }),
      });
    },
  };
  return kind;
}
