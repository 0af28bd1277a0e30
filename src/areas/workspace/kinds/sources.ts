// sources: the knowledge-source registry and each source's connection, keyed by key. A connection's
// credential is never in the document: `credential_env` names the variable of the gateway's
// environment it is read from when the connection is applied; export writes a name of that form.
// Applied through SourceService (put, saveConnection, remove: a delete removes the source and its
// connection). `updated_at_source` is what the source says, not configuration: not managed here.
import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../../infra/http/schemas.js';
import { problem } from '../../../infra/http/problems.js';
import { normaliseConfig } from '../../sources/connectors.js';
import { CONNECTION_KINDS, ConnectionConfigSchema, PutSourceBody } from '../../sources/schemas.js';
import type { ConnectionConfig, ConnectionKind, PutSourceBody as PutSource } from '../../sources/schemas.js';
import type { WorkspaceTargets } from './targets.js';
import { byKey, fieldDiff, touches, withoutEmpty, type FieldChange, type Item, type ResourceKind } from './types.js';

export const ENV_NAME_PATTERN = '^[A-Z_][A-Z0-9_]{0,127}$';
const { updated_at_source: _source, ...putFields } = PutSourceBody.properties;

const ConnectionItem = Type.Object(
  {
    kind: StringEnum(CONNECTION_KINDS),
    config: Type.Optional(ConnectionConfigSchema),
    credential_env: Type.Optional(
      Nullable(Type.String({ pattern: ENV_NAME_PATTERN, description: "the name of the gateway's environment variable holding the password or token (never the value)" })),
    ),
  },
  { additionalProperties: false },
);

export const SourceItem = Type.Object(
  { ...putFields, connection: Type.Optional(ConnectionItem), comment: Type.Optional(Type.String({ maxLength: 2000 })) },
  { additionalProperties: false },
);

/** The variable export names for a source's credential: PARAPET_SOURCE_<KEY>_CREDENTIAL, the key upper-cased with other characters as _. */
export function credentialEnvName(key: string): string {
  let name = '';
  for (const character of key.toUpperCase()) name += (character >= 'A' && character <= 'Z') || (character >= '0' && character <= '9') ? character : '_';
  return `PARAPET_SOURCE_${name}_CREDENTIAL`;
}

function storedConfig(kind: unknown, config: unknown): Item | null {
  try {
    return normaliseConfig(kind as ConnectionKind, (config ?? {}) as ConnectionConfig) as Item;
  } catch {
    return null;
  }
}

export function sourcesKind(targets: WorkspaceTargets): ResourceKind {
  const kind: ResourceKind = {
    name: 'sources',
    itemSchema: SourceItem,
    description: 'knowledge sources and their connections (credentials by environment variable name), keyed by key',
    key: (item) => String(item.key),

    async current() {
      const { items } = await targets.sources.list({});
      return byKey(
        kind,
        items.map((source) => {
          const connection = source.connection;
          const credentialEnv = connection?.credential_set === true ? credentialEnvName(source.key) : null;
          return withoutEmpty({
            key: source.key,
            title: source.title,
            tier: source.tier,
            owner: source.owner,
            domain: source.domain,
            freshness_sla_hours: source.freshness_sla_hours,
            deprecated: source.deprecated,
            metadata: source.metadata,
            ...(connection === null ? {} : { connection: withoutEmpty({ kind: connection.kind, config: connection.config, credential_env: credentialEnv }) }),
            ...(credentialEnv === null ? {} : { comment: `the connection's credential is read from ${credentialEnv} in the gateway's environment when applied` }),
          });
        }),
      );
    },

    check(item) {
      const connection = item.connection as Item | undefined;
      if (connection === undefined) return [];
      try {
        normaliseConfig(connection.kind as ConnectionKind, (connection.config ?? {}) as ConnectionConfig);
        return [];
      } catch (error) {
        return ((error as { errors?: Array<{ field: string; message: string }> }).errors ?? []).map((entry) => ({
          field: `/connection${entry.field.replace(/^\/body/, '')}`,
          message: entry.message,
        }));
      }
    },

    normalise(item) {
      const connection = item.connection as Item | undefined;
      if (connection === undefined) return item;
      return { ...item, connection: { ...connection, config: storedConfig(connection.kind, connection.config) ?? connection.config ?? {} } };
    },

    diff(desired, current) {
      const { connection, ...rest } = desired;
      const changes = fieldDiff(rest, current);
      if (connection === undefined) return changes;
      const wanted = connection as Item;
      const held = (current.connection as Item | undefined) ?? {};
      const { credential_env: credentialEnv, ...shape } = wanted;
      changes.push(...fieldDiff(shape, held).map((change) => ({ ...change, path: `connection.${change.path}` })));
      // A sealed credential cannot be compared: only whether one is held.
      const credential: FieldChange | null =
        typeof credentialEnv === 'string' && held.credential_env === undefined ? { path: 'connection.credential_env', from: null, to: credentialEnv } : null;
      if (credential !== null) changes.push(credential);
      return changes;
    },

    async apply(change, { caller, env }) {
      if (change.action === 'delete') {
        await targets.sources.remove(caller, change.key, true);
        return;
      }
      const desired = change.desired as Item;
      const { connection, comment: _comment, ...fields } = desired;
      const sourceFields = Object.keys(fields).filter((field) => field !== 'key');
      if (change.action === 'create' || touches(change.fields, sourceFields).length > 0) {
        const body: Record<string, unknown> = { key: change.key };
        for (const field of sourceFields) {
          if (change.action === 'create' ? fields[field] !== null && fields[field] !== undefined : touches(change.fields, [field]).length > 0) body[field] = fields[field];
        }
        await targets.sources.put(caller, body as PutSource);
      }
      if (connection === undefined || (change.action === 'change' && touches(change.fields, ['connection']).length === 0)) return;
      const wanted = connection as Item;
      const held = change.current?.connection as Item | undefined;
      let credential: string | undefined;
      if (typeof wanted.credential_env === 'string') {
        credential = env(wanted.credential_env);
        // Without the variable the stored credential stays; a connection that has none cannot work.
        if ((credential === undefined || credential === '') && held?.credential_env === undefined) {
          throw problem('refused', `the environment variable ${wanted.credential_env} (the credential of source ${change.key}) is not set in the gateway's environment`);
        }
        if (credential === '') credential = undefined;
      }
      await targets.sources.saveConnection(caller, {
        key: change.key,
        kind: wanted.kind as ConnectionKind,
        config: (wanted.config ?? {}) as ConnectionConfig,
        ...(credential === undefined ? {} : { credential }),
      });
    },
  };
  return kind;
}
