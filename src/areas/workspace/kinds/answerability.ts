// answerability: each agent's answerability boundary (systems of record, coverage, entity types,
// out-of-scope topics, freshness, mode), keyed by agent. The service replaces a boundary on every
// save, so fields left out take their defaults. The API has no delete.
import { Type } from 'typebox';
import { BoundaryBody } from '../../answerability/schemas.js';
import type { BoundaryBody as AnswerabilityBoundaryBody } from '../../answerability/schemas.js';
import type { WorkspaceTargets } from './targets.js';
import { byKey, NO_DELETE, sortedStrings, withoutEmpty, type Item, type ResourceKind } from './types.js';

export const BoundaryItem = Type.Object({ ...BoundaryBody.properties, comment: Type.Optional(Type.String({ maxLength: 2000 })) }, { additionalProperties: false });

const LISTS = ['systems_of_record', 'entity_types', 'answerable_types', 'out_of_scope_topics'] as const;

export function answerabilityKind(targets: WorkspaceTargets): ResourceKind {
  const kind: ResourceKind = {
    name: 'answerability',
    itemSchema: BoundaryItem,
    description: 'answerability boundaries, keyed by agent',
    key: (item) => String(item.agent),

    async current() {
      const { items } = await targets.answerability.boundaries({});
      return byKey(
        kind,
        items.map(({ updated_by: _by, updated_at: _at, ...boundary }) => {
          const item: Item = { ...boundary };
          for (const list of LISTS) item[list] = sortedStrings(boundary[list]);
          return withoutEmpty(item);
        }),
      );
    },

    normalise(item) {
      const normalised: Item = { ...item, coverage_months: item.coverage_months ?? null, coverage_start: item.coverage_start ?? null, freshness_hours: item.freshness_hours ?? null, mode: item.mode ?? 'observe' };
      for (const list of LISTS) normalised[list] = sortedStrings(item[list] ?? []);
      return normalised;
    },

    blocked: (change) => (change.action === 'delete' ? NO_DELETE('an answerability boundary', 'set its mode to observe instead') : null),

    async apply(change, { caller }) {
      const { comment: _comment, ...body } = change.desired as Item;
      await targets.answerability.putBoundary(caller, withoutEmpty(body) as AnswerabilityBoundaryBody);
    },
  };
  return kind;
}
