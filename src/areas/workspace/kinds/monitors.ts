// monitors: what the gateway watches on a schedule (MCP servers, hosted APIs, repositories, source
// freshness), keyed by kind:target. Applied through MonitorService: create, update (a new config
// clears the baseline), remove (the findings it raised stay). Two monitors of one kind and target
// are one entry of the document: the oldest stands for both.
import { Type } from 'typebox';
import { notFound } from '../../../infra/http/problems.js';
import { CreateMonitorBody } from '../../monitors/schemas.js';
import type { CreateMonitorBody as CreateMonitor, Monitor, UpdateMonitorBody } from '../../monitors/schemas.js';
import type { WorkspaceTargets } from './targets.js';
import { allPages, byKey, touches, withoutEmpty, type Item, type ResourceKind } from './types.js';

export const MonitorItem = Type.Object({ ...CreateMonitorBody.properties, comment: Type.Optional(Type.String({ maxLength: 2000 })) }, { additionalProperties: false });

const keyOf = (item: { kind: unknown; target: unknown }) => `${String(item.kind)}:${String(item.target)}`;

export function monitorsKind(targets: WorkspaceTargets): ResourceKind {
  const all = () => allPages((cursor) => targets.monitors.list({ limit: 500, ...(cursor === undefined ? {} : { cursor }) }));
  const oldestFirst = (monitors: Monitor[]) => [...monitors].sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : 1));
  const find = async (key: string) => {
    const found = oldestFirst(await all()).find((monitor) => keyOf(monitor) === key);
    if (found === undefined) throw notFound('monitor', key);
    return found;
  };

  const kind: ResourceKind = {
    name: 'monitors',
    itemSchema: MonitorItem,
    description: 'monitors, keyed by kind:target',
    key: keyOf,

    async current() {
      const seen = new Set<string>();
      const items: Item[] = [];
      for (const monitor of oldestFirst(await all())) {
        if (seen.has(keyOf(monitor))) continue;
        seen.add(keyOf(monitor));
        items.push({ kind: monitor.kind, target: monitor.target, name: monitor.name, interval_seconds: monitor.interval_seconds, config: monitor.config, enabled: monitor.enabled });
      }
      return byKey(kind, items);
    },

    async apply(change, { caller }) {
      if (change.action === 'delete') {
        await targets.monitors.remove(caller, (await find(change.key)).id);
        return;
      }
      const { comment: _comment, ...body } = change.desired as Item;
      if (change.action === 'create') {
        await targets.monitors.create(caller, withoutEmpty(body) as CreateMonitor);
        return;
      }
      const update: Record<string, unknown> = {};
      for (const field of ['name', 'interval_seconds', 'enabled', 'config']) if (touches(change.fields, [field]).length > 0) update[field] = body[field];
      await targets.monitors.update(caller, (await find(change.key)).id, update as UpdateMonitorBody);
    },
  };
  return kind;
}
