// tools: the tool registry (impact, argument schema, output trust), keyed by key. Applied through
// ToolService.register, which keeps fields left out: a field cannot be cleared, and a tool cannot
// be removed, through the API.
import { Type } from 'typebox';
import { RegisterToolBody } from '../../tools/schemas.js';
import type { RegisterToolBody as RegisterTool } from '../../tools/schemas.js';
import type { WorkspaceTargets } from './targets.js';
import { byKey, NO_DELETE, withoutEmpty, type ResourceKind } from './types.js';

export const ToolItem = Type.Object(
  { ...RegisterToolBody.properties, comment: Type.Optional(Type.String({ maxLength: 2000 })) },
  { additionalProperties: false },
);

export function toolsKind(targets: WorkspaceTargets): ResourceKind {
  const kind: ResourceKind = {
    name: 'tools',
    itemSchema: ToolItem,
    description: 'registered tools, keyed by key',
    key: (item) => String(item.key),

    async current() {
      const { items } = await targets.tools.list();
      return byKey(
        kind,
        items.map((tool) =>
          withoutEmpty({ key: tool.key, name: tool.name, kind: tool.kind, impact: tool.impact, description: tool.description, json_schema: tool.json_schema, output_trust: tool.output_trust }),
        ),
      );
    },

    blocked(change) {
      if (change.action === 'delete') return NO_DELETE('a registered tool', 'leave it in the document');
      const cleared = change.fields.filter((field) => field.to === null && !field.path.includes('.')).map((field) => field.path);
      if (cleared.length > 0) return `${cleared.join(', ')} of a tool cannot be cleared through the API (only replaced)`;
      return null;
    },

    async apply(change, { caller }) {
      const { comment: _comment, ...fields } = change.desired ?? {};
      await targets.tools.register(caller, withoutEmpty(fields) as RegisterTool);
    },
  };
  return kind;
}
