// slos: service-level objectives over online evaluation results, keyed by
// agent/scorer/objective/window; the target is what changes. Applied through OnlineService.saveSlo.
// The API has no delete.
import { Type } from 'typebox';
import { SloBody } from '../../eval/online/schemas.js';
import type { SloBody as SaveSlo } from '../../eval/online/schemas.js';
import type { WorkspaceTargets } from './targets.js';
import { byKey, NO_DELETE, type Item, type ResourceKind } from './types.js';

export const SloItem = Type.Object({ ...SloBody.properties, comment: Type.Optional(Type.String({ maxLength: 2000 })) }, { additionalProperties: false });

/** How an SLO reads once stored: a window like 7d, the pass_rate objective and the 0.95 target by default. */
function stored(item: Item): Item {
  return { ...item, objective: item.objective ?? 'pass_rate', window: `${Number.parseInt(String(item.window ?? '28d'), 10)}d`, target: item.target ?? 0.95 };
}

export function slosKind(targets: WorkspaceTargets): ResourceKind {
  const online = targets.evaluations.online;
  const kind: ResourceKind = {
    name: 'slos',
    itemSchema: SloItem,
    description: 'evaluation SLOs, keyed by agent/scorer/objective/window',
    key: (item) => {
      const { agent, scorer, objective, window } = stored(item);
      return `${String(agent)}/${String(scorer)}/${String(objective)}/${String(window)}`;
    },

    async current() {
      const { items } = await online.listSlos({});
      return byKey(
        kind,
        items.map((slo) => ({ agent: slo.agent, scorer: slo.scorer, objective: slo.objective, window: slo.window, target: slo.target })),
      );
    },

    normalise: stored,

    blocked: (change) => (change.action === 'delete' ? NO_DELETE('an SLO', 'leave it in the document') : null),

    async apply(change, { caller }) {
      const { comment: _comment, ...body } = change.desired as Item;
      await online.saveSlo(caller, body as SaveSlo);
    },
  };
  return kind;
}
