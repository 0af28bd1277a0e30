// Agent signing keys (spec 01 §5 rule 4): minting and rotation, status, and the keys a message may
// be verified with. The raw key is answered once and stored only sealed (lib/sealed.ts): HMAC
// verification needs the key itself, so a digest would not do. Changes are audited with the
// change, and the audit lock also keeps two concurrent rotations from leaving two current keys.
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import type { AuditLog } from '../audit/log.js';
import { notFound } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import { newId } from '../../infra/lib/ids.js';
import type { Sealer } from '../../infra/lib/sealed.js';
import { mintSecret, secretHint } from '../../infra/lib/secrets.js';
import type { Store } from '../../infra/store/db.js';
import type { SigningKeyRow } from '../../infra/store/tables.js';
import type { CreateSigningKeyBody, CreatedSigningKey, SigningKeyStatus } from './schemas.js';
import { SIGNING_KEY_PREFIX } from './signature.js';
import * as messages from './store.js';

/** How long a replaced key keeps verifying unless `overlap_hours` says otherwise. */
export const DEFAULT_OVERLAP_HOURS = 24;

export interface UsableKey {
  id: string;
  /** The raw key, unsealed for this verification only. */
  key: string;
  current: boolean;
}

export class SigningKeyService {
  constructor(
    private readonly store: Store,
    private readonly audit: AuditLog,
    private readonly sealer: Sealer,
    private readonly clock: Clock,
  ) {}

  /** Mints a key for a registered agent; an existing current key keeps verifying for the overlap. */
  async mint(caller: Principal, slug: string, body: CreateSigningKeyBody): Promise<CreatedSigningKey> {
    const raw = mintSecret(SIGNING_KEY_PREFIX);
    const now = this.clock.now();
    const overlapHours = body.overlap_hours ?? DEFAULT_OVERLAP_HOURS;
    const row: SigningKeyRow = {
      id: newId('sk'),
      agent_slug: slug,
      key_sealed: this.sealer.seal(raw),
      key_hint: secretHint(raw),
      created_by: actorOf(caller),
      created_at: now.toISOString(),
      valid_until: null,
    };
    const rotated = await this.audit.transact(async (trx, append) => {
      if (!(await messages.agentExists(trx, slug))) throw notFound('agent', slug);
      const previous = await messages.findCurrentKey(trx, slug);
      let rotatedKey: { id: string; valid_until: string } | undefined;
      if (previous !== undefined) {
        rotatedKey = { id: previous.id, valid_until: new Date(now.getTime() + overlapHours * 3_600_000).toISOString() };
        await messages.endKey(trx, previous.id, rotatedKey.valid_until);
      }
      await messages.insertSigningKey(trx, row);
      // The hint only: the audit chain is readable by every viewer and must never hold a secret.
      await append({
        actor: actorOf(caller),
        action: rotatedKey === undefined ? 'signing_key.create' : 'signing_key.rotate',
        target: row.id,
        detail: {
          agent: slug,
          key_hint: row.key_hint,
          ...(rotatedKey === undefined ? {} : { rotated_key_id: rotatedKey.id, rotated_key_valid_until: rotatedKey.valid_until }),
        },
      });
      return rotatedKey;
    });
    return {
      id: row.id,
      agent: slug,
      signing_key: raw,
      key_hint: row.key_hint,
      created_at: row.created_at,
      ...(rotated === undefined ? {} : { rotated_key: rotated }),
    };
  }

  /** Which keys an agent has; never the keys themselves. */
  async status(slug: string): Promise<SigningKeyStatus> {
    if (!(await messages.agentExists(this.store.db, slug))) throw notFound('agent', slug);
    const rows = await messages.usableKeys(this.store.db, slug, this.clock.now().toISOString());
    const current = rows.find((row) => row.valid_until === null);
    return {
      agent: slug,
      configured: current !== undefined,
      current: current === undefined ? null : { id: current.id, key_hint: current.key_hint, created_at: current.created_at },
      previous: rows
        .filter((row): row is SigningKeyRow & { valid_until: string } => row.valid_until !== null)
        .map((row) => ({ id: row.id, key_hint: row.key_hint, valid_until: row.valid_until })),
    };
  }

  /**
   * The keys a message from `sender` may verify with now, current first. A key that does not
   * unseal (another process with a different secret_key sealed it) is left out and reported.
   */
  async usableKeys(sender: string, onUnsealError?: (error: unknown) => void): Promise<UsableKey[]> {
    const rows = await messages.usableKeys(this.store.db, sender, this.clock.now().toISOString());
    const keys: UsableKey[] = [];
    for (const row of rows) {
      try {
        keys.push({ id: row.id, key: this.sealer.unseal(row.key_sealed), current: row.valid_until === null });
      } catch (error) {
        onUnsealError?.(error);
      }
    }
    return keys;
  }
}
