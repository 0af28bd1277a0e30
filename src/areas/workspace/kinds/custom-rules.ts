// custom_rules: operators' keyword, pattern and sequence rules, keyed by key. The service replaces
// the whole rule on every save, so a field left out of the document takes its default. Applied
// through CustomRuleService.upsert and remove (its own checks, examples included, run there).
import { Type } from 'typebox';
import { toDefinition } from '../../custom-rules/definition.js';
import { UpsertCustomRuleBody } from '../../custom-rules/schemas.js';
import type { UpsertCustomRuleBody as UpsertCustomRule } from '../../custom-rules/schemas.js';
import type { WorkspaceTargets } from './targets.js';
import { allPages, byKey, withoutEmpty, type Item, type ResourceKind } from './types.js';

export const CustomRuleItem = Type.Object({ ...UpsertCustomRuleBody.properties, comment: Type.Optional(Type.String({ maxLength: 2000 })) }, { additionalProperties: false });

export function customRulesKind(targets: WorkspaceTargets): ResourceKind {
  const kind: ResourceKind = {
    name: 'custom_rules',
    itemSchema: CustomRuleItem,
    description: 'custom rules, keyed by key',
    key: (item) => String(item.key),

    async current() {
      const rules = await allPages((cursor) => targets.customRules.list({ limit: 500, ...(cursor === undefined ? {} : { cursor }) }));
      return byKey(
        kind,
        rules.map(({ rule_id: _id, entity: _entity, created_by: _by, created_at: _created, updated_at: _updated, ...definition }) => withoutEmpty(definition)),
      );
    },

    normalise(item) {
      const { comment, ...body } = item;
      return { ...toDefinition(body as UpsertCustomRule), ...(comment === undefined ? {} : { comment }) };
    },

    async apply(change, { caller }) {
      if (change.action === 'delete') {
        await targets.customRules.remove(caller, change.key);
        return;
      }
      const { comment: _comment, ...body } = change.desired as Item;
      await targets.customRules.upsert(caller, withoutEmpty(body) as UpsertCustomRule);
    },
  };
  return kind;
}
