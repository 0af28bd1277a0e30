// Checks an evidence package's audit records without the gateway: the files against SHA256SUMS,
// the hash chain of audit.jsonl, the Ed25519 signatures of its checkpoints under the published
// public key, and (optionally) a head exported earlier. `parapet audit verify --package` runs it;
// an auditor can redo every step with the description in the package's VERIFY.txt.
import { createHash } from 'node:crypto';
import type { Checkpoint } from './checkpoints.js';
import { GENESIS_HASH, entryHash, type HashedEntry } from './log.js';
import { CHECKPOINT_ACTION, SIGNING_ALGORITHM, verifyCheckpointSignature } from './signing.js';

/** An entry as audit.jsonl carries it: the hashed fields and the chain links. */
export type OfflineEntry = HashedEntry & { prev_hash: string; hash: string };

/** A checkpoint as audit-checkpoints.jsonl and the manifest carry it. */
export type OfflineCheckpoint = Omit<Checkpoint, 'created_by'>;

export interface OfflineResult {
  ok: boolean;
  /** One line per failure, then a summary. */
  lines: string[];
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Verifies the files of an evidence package (name → bytes, from the zip or its extracted folder).
 * `publicKeyPem` pins the key the auditor got from the gateway; without it the package's own key
 * is used and its key_id printed, to be compared with the published one.
 */
export function verifyEvidenceFiles(files: Map<string, Uint8Array>, options: { publicKeyPem?: string; head?: unknown } = {}): OfflineResult {
  const failures: string[] = [];
  const notes: string[] = [];
  const text = (name: string): string | undefined => {
    const bytes = files.get(name);
    if (bytes === undefined) {
      failures.push(`${name} is missing`);
      return undefined;
    }
    try {
      return decoder.decode(bytes);
    } catch {
      failures.push(`${name} is not UTF-8`);
      return undefined;
    }
  };

  // 1. Every file against SHA256SUMS (which covers manifest.json).
  const sums = text('SHA256SUMS') ?? '';
  for (const line of sums.split('\n').filter((item) => item.length > 0)) {
    const match = /^([0-9a-f]{64}) {2}(.+)$/.exec(line);
    if (match === null) {
      failures.push(`SHA256SUMS has a malformed line: ${line.slice(0, 80)}`);
      continue;
    }
    const [, expected, name] = match as unknown as [string, string, string];
    const bytes = files.get(name);
    if (bytes === undefined) failures.push(`${name} (listed in SHA256SUMS) is missing`);
    else if (createHash('sha256').update(bytes).digest('hex') !== expected) failures.push(`${name} does not match its sha256 in SHA256SUMS`);
  }

  const manifest = parseJson(text('manifest.json'), 'manifest.json', failures) as
    | { checkpoint?: OfflineCheckpoint; audit?: { public_key?: { key_id?: string; public_key_pem?: string } } }
    | undefined;
  const entries = jsonLines<OfflineEntry>(text('audit.jsonl'), 'audit.jsonl', failures);
  const checkpoints = jsonLines<OfflineCheckpoint>(text('audit-checkpoints.jsonl'), 'audit-checkpoints.jsonl', failures);
  const packageKey = manifest?.audit?.public_key;
  const publicKeyPem = options.publicKeyPem ?? packageKey?.public_key_pem;
  if (publicKeyPem === undefined) failures.push('manifest.json names no audit public key (audit.public_key)');
  if (options.publicKeyPem === undefined && packageKey?.key_id !== undefined) {
    notes.push(`checked with the package's own public key ${packageKey.key_id}: compare it with GET /api/audit/head, or pin it with --public-key`);
  }

  // 2. The chain: consecutive seqs, each linked to the one before, each hash recomputed.
  const bySeq = new Map<number, OfflineEntry>();
  let previous: OfflineEntry | undefined;
  for (const entry of entries) {
    if (previous !== undefined && entry.seq !== previous.seq + 1) failures.push(`audit.jsonl: seq ${previous.seq + 1} is missing before seq ${entry.seq}`);
    else if (previous !== undefined && entry.prev_hash !== previous.hash) failures.push(`audit.jsonl: seq ${entry.seq} does not link to seq ${previous.seq} (broken link)`);
    else if (previous === undefined && entry.seq === 1 && entry.prev_hash !== GENESIS_HASH) failures.push('audit.jsonl: seq 1 does not start from the genesis hash');
    const recomputed = entryHash(entry.prev_hash, { seq: entry.seq, id: entry.id, at: entry.at, actor: entry.actor, action: entry.action, target: entry.target, detail: entry.detail });
    if (recomputed !== entry.hash) failures.push(`audit.jsonl: seq ${entry.seq} (${entry.id}) does not match its hash (altered)`);
    bySeq.set(entry.seq, entry);
    previous = entry;
  }

  // 3. Checkpoints: signed by the key, sealing the entry at their seq; every checkpoint entry has its checkpoint.
  // Older HMAC checkpoints inside the chain can only be noted; the package's own checkpoint and an
  // exported head are always Ed25519, so relabelling them cannot switch their check off.
  const checkOne = (checkpoint: OfflineCheckpoint, label: string, mustBeEd25519 = false): boolean => {
    if (mustBeEd25519 && checkpoint.algorithm !== SIGNING_ALGORITHM) {
      failures.push(`${label} ${checkpoint.id} at seq ${checkpoint.seq} is not signed with ${SIGNING_ALGORITHM}`);
      return false;
    }
    if (checkpoint.algorithm !== SIGNING_ALGORITHM) {
      notes.push(`${label} ${checkpoint.id} is signed with ${checkpoint.algorithm}, which only the gateway can check (POST /api/audit/verify)`);
      return true;
    }
    let good = true;
    if (publicKeyPem === undefined || !verifyCheckpointSignature(publicKeyPem, checkpoint)) {
      failures.push(`${label} ${checkpoint.id} at seq ${checkpoint.seq}: the signature does not verify`);
      good = false;
    }
    const entry = bySeq.get(checkpoint.seq);
    if (entry !== undefined && (entry.hash !== checkpoint.hash || entry.action !== CHECKPOINT_ACTION || entry.target !== checkpoint.id)) {
      failures.push(`${label} ${checkpoint.id} at seq ${checkpoint.seq}: the entry at its seq is not the one it sealed`);
      good = false;
    }
    return good;
  };
  const listed = new Map(checkpoints.map((checkpoint) => [checkpoint.id, checkpoint]));
  for (const checkpoint of checkpoints) checkOne(checkpoint, 'checkpoint');
  for (const entry of entries) {
    if (entry.action === CHECKPOINT_ACTION && entry.target !== null && listed.get(entry.target)?.seq !== entry.seq) {
      failures.push(`audit.jsonl: seq ${entry.seq} names checkpoint ${entry.target}, which is not in audit-checkpoints.jsonl`);
    }
  }

  // 4. The package's own checkpoint seals the last entry: the chain ends at a signed head.
  const sealing = manifest?.checkpoint;
  if (sealing === undefined) failures.push('manifest.json has no checkpoint');
  else {
    checkOne(sealing, 'the package checkpoint', true);
    if (previous !== undefined && previous.seq !== sealing.seq) failures.push(`audit.jsonl ends at seq ${previous.seq}, not at the package checkpoint's seq ${sealing.seq}`);
  }

  // 5. A head kept elsewhere: signed by the key, and the entry at its seq still has its hash.
  if (options.head !== undefined) {
    const head = (options.head as { checkpoint?: OfflineCheckpoint }).checkpoint;
    if (head === undefined || typeof head.seq !== 'number') failures.push('the head file holds no checkpoint (as GET /api/audit/head answers)');
    else if (checkOne(head, 'the exported head', true) && !bySeq.has(head.seq)) {
      notes.push(`the exported head (seq ${head.seq}) is outside the package's entries (seq ${entries[0]?.seq ?? '-'}..${previous?.seq ?? '-'}): only its signature was checked`);
    }
  }

  const ok = failures.length === 0;
  const range = entries.length === 0 ? 'no entries' : `seq ${entries[0]?.seq}..${previous?.seq}`;
  const summary = ok
    ? `evidence package verified offline: files match SHA256SUMS, ${entries.length} audit entries (${range}) chain, ${checkpoints.length} checkpoints signed`
    : `evidence package does not verify: ${failures.length} problem${failures.length === 1 ? '' : 's'}`;
  return { ok, lines: [...failures, ...notes, summary] };
}

function parseJson(text: string | undefined, name: string, failures: string[]): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    failures.push(`${name} is not JSON`);
    return undefined;
  }
}

function jsonLines<T>(text: string | undefined, name: string, failures: string[]): T[] {
  if (text === undefined) return [];
  const records: T[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.length === 0) return;
    try {
      records.push(JSON.parse(line) as T);
    } catch {
      failures.push(`${name} line ${index + 1} is not JSON`);
    }
  });
  return records;
}
