// SQL of assess: the registry rows of the sources chunks name, and when a source was last cited.
// The registry itself (src/areas/sources/store.ts) belongs to the sources area; this reads it.
import type { Kysely } from 'kysely';
import type { Database } from '../../../infra/store/tables.js';

/** What a chunk check needs of a registered source. */
export interface SourceFacts {
  key: string;
  tier: string;
  domain: string | null;
  updated_at_source: string | null;
  freshness_sla_hours: number | null;
  deprecated: number;
}

/** Keys per query: well under every dialect's bound on parameters. */
const BATCH = 500;

export async function sourcesByKey(db: Kysely<Database>, keys: readonly string[]): Promise<Map<string, SourceFacts>> {
  const found = new Map<string, SourceFacts>();
  const unique = [...new Set(keys)];
  for (let i = 0; i < unique.length; i += BATCH) {
    const rows = await db
      .selectFrom('knowledge_sources')
      .select(['key', 'tier', 'domain', 'updated_at_source', 'freshness_sla_hours', 'deprecated'])
      .where('key', 'in', unique.slice(i, i + BATCH))
      .execute();
    for (const row of rows) found.set(row.key, { ...row, freshness_sla_hours: row.freshness_sla_hours === null ? null : Number(row.freshness_sla_hours), deprecated: Number(row.deprecated) });
  }
  return found;
}

/** Sets `last_cited_at` of the given registered sources. */
export async function markCited(db: Kysely<Database>, keys: readonly string[], at: string): Promise<void> {
  const unique = [...new Set(keys)];
  for (let i = 0; i < unique.length; i += BATCH) {
    await db.updateTable('knowledge_sources').set({ last_cited_at: at }).where('key', 'in', unique.slice(i, i + BATCH)).execute();
  }
}
