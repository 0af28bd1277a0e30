// policies: policy packs and their modes, keyed by key. Shipped packs carry only their mode; other
// packs carry their live text and binding (level, scope_id, compose). Applied through
// PolicyService: a new text is saved as the next version (its proposal opens) and made live in the
// desired mode; a version that loosens the policy needs its approvals first, so that change fails
// and says so. The packs built from custom and business rules are their own kinds.
import { Type } from 'typebox';
import { StringEnum } from '../../../infra/http/schemas.js';
import { canonicalJson } from '../../../infra/lib/canonical-json.js';
import { PackInvalid, parsePack } from '../../../engine/policy/parse.js';
import { MODES } from '../../../engine/policy/schema.js';
import type { SetModeBody, UpsertBody } from '../../policies/schemas.js';
import type { WorkspaceTargets } from './targets.js';
import { byKey, fieldDiff, NO_DELETE, touches, withoutEmpty, type Item, type ResourceKind } from './types.js';

const NOTE = 'applied from the workspace document';
const BINDING = ['level', 'scope_id', 'compose'];

export const PolicyItem = Type.Object(
  {
    key: Type.String({ pattern: '^[a-z][a-z0-9_-]*$', maxLength: 100 }),
    mode: Type.Optional(StringEnum(MODES)),
    level: Type.Optional(StringEnum(['org', 'team', 'agent', 'environment'])),
    scope_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'the team, agent or environment a non-org policy applies to' })),
    compose: Type.Optional(StringEnum(['merge', 'override'])),
    text: Type.Optional(Type.String({ minLength: 1, maxLength: 262_144, description: 'the pack (YAML); not for shipped packs, which carry only their mode' })),
    comment: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);

/** The pack a text says, without the version and mode the gateway numbers and binds itself. */
function packSignature(text: unknown): string | null {
  if (typeof text !== 'string') return null;
  try {
    const { version: _version, mode: _mode, ...pack } = parsePack(text);
    return canonicalJson(pack);
  } catch {
    return null;
  }
}

export function policiesKind(targets: WorkspaceTargets): ResourceKind {
  const shipped = new Set<string>();
  const kind: ResourceKind = {
    name: 'policies',
    itemSchema: PolicyItem,
    description: 'policy packs with their mode (shipped packs: only the mode), keyed by key',
    key: (item) => String(item.key),

    async current() {
      const store = targets.policies.policyStore;
      const items: Item[] = [];
      for (const row of await store.policies()) {
        if (row.origin === 'shipped') {
          shipped.add(row.key);
          items.push({ key: row.key, mode: row.mode });
          continue;
        }
        // Only a live version is configuration; a saved one waits for its review.
        if (row.bound !== 1 || row.live_version === null) continue;
        const live = await store.version(row.key, row.live_version);
        if (live === undefined) continue;
        items.push(withoutEmpty({ key: row.key, mode: row.mode, level: row.level, scope_id: row.scope_id === '' ? null : row.scope_id, compose: row.compose, text: live.text }));
      }
      return byKey(kind, items);
    },

    check(item) {
      if (item.text === undefined) return [];
      try {
        const pack = parsePack(String(item.text));
        return pack.key === item.key ? [] : [{ field: '/text', message: `the pack's key is ${pack.key}, not ${String(item.key)}` }];
      } catch (error) {
        if (!(error instanceof PackInvalid)) throw error;
        return error.errors.slice(0, 10).map((entry) => ({ field: `/text${entry.path}`, message: entry.line === undefined ? entry.message : `line ${entry.line}: ${entry.message}` }));
      }
    },

    diff(desired, current) {
      const { text, ...rest } = desired;
      const changes = fieldDiff(rest, current);
      if (text !== undefined && packSignature(text) !== packSignature(current.text)) changes.push({ path: 'text', from: current.text ?? null, to: text });
      return changes;
    },

    // Shipped packs come with the gateway: a document that leaves one out leaves it as it is.
    prunable: (current) => !shipped.has(String(current.key)),

    blocked(change, desired) {
      if (change.action === 'delete') return NO_DELETE('a policy', 'set it to observe instead');
      if (change.action === 'create' && desired?.text === undefined) return 'a new policy needs its text';
      if (shipped.has(change.key) && touches(change.fields, ['text', ...BINDING]).length > 0) return 'a shipped pack changes only its mode';
      return null;
    },

    async apply(change, { caller }) {
      const desired = change.desired as Item;
      const binding = withoutEmpty({ level: desired.level, scope_id: desired.scope_id, compose: desired.compose }) as Pick<SetModeBody, 'level' | 'scope_id' | 'compose'>;
      const mode = (desired.mode ?? change.current?.mode ?? 'observe') as SetModeBody['mode'];
      let version: number | undefined;
      if (touches(change.fields, ['text']).length > 0) {
        const body: UpsertBody = { body: String(desired.text), notes: NOTE, mode, ...(change.action === 'create' ? binding : {}) };
        version = (await targets.policies.upsert(caller, body)).version;
      }
      await targets.policies.setMode(caller, change.key, { mode, ...binding, ...(version === undefined ? {} : { version }) });
    },
  };
  return kind;
}
