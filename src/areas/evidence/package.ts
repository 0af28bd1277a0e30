// Builds one evidence package: the records of a period as JSON Lines files, a manifest with the
// sha256 of every file and the signed audit checkpoint that covers the audit entries, and a
// SHA256SUMS file, zipped. The audit part checks offline: the entries run up to the package's
// checkpoint, the checkpoints among them and the public key are included, and VERIFY.txt says how.
// Reads only; storing and recording the package is the service's job.
import { createHash } from 'node:crypto';
import { strToU8, zipSync, type Zippable } from 'fflate';
import type { Checkpoint } from '../audit/checkpoints.js';
import { CHECKPOINT_FORMAT, type PublicKeyInfo } from '../audit/signing.js';
import type { Store } from '../../infra/store/db.js';
import { readJson } from '../../infra/store/json-columns.js';
import type { EvidenceCounts, EvidenceScope } from './schemas.js';
import {
  findFirstAuditSeqSince,
  listApprovalsInPeriod,
  listAuditEntriesBetween,
  listDecisionsInPeriod,
  listFindingsInPeriod,
  listPolicyStates,
  type PeriodFilter,
} from './store.js';

/** The signed audit checkpoint that covers a package. */
export type AuditCheckpoint = Checkpoint;

/** Makes a checkpoint of the audit chain's current head (AuditCheckpoints in src/audit/checkpoints.ts). */
export interface CheckpointMaker {
  create(actor: string): Promise<AuditCheckpoint>;
  publicKey(): PublicKeyInfo;
  inRange(startSeq: number, endSeq: number | null): Promise<AuditCheckpoint[]>;
}

/** The bound policy packs with their current modes (PolicyService). */
export interface PolicySnapshot {
  sync(): Promise<void>;
  list(): Promise<Array<{ key: string; version: number | string | null; mode: string; fail_mode: string; rules: Array<{ id: string; effect: string; enabled: boolean; mode: string }> }>>;
}

/** Control results, framework status and risk register of a period (ComplianceService). */
export interface ComplianceRecords {
  periodRecords(from: string, to: string): Promise<{ results: unknown[]; status: { frameworks: unknown[] }; risks: unknown[] | null }>;
}

export interface PackageSources {
  store: Store;
  policies: PolicySnapshot;
  checkpoints: CheckpointMaker;
  /** Absent: the package carries no compliance files. */
  compliance?: ComplianceRecords;
}

export interface BuiltPackage {
  zip: Uint8Array;
  manifest: Manifest;
  manifestSha256: string;
  counts: EvidenceCounts;
  checkpointId: string;
}

export interface ManifestFile {
  name: string;
  sha256: string;
  bytes: number;
  records: number;
}

export interface Manifest {
  format: 'parapet.evidence/2';
  package_id: string;
  generated_at: string;
  generated_by: string;
  scope: EvidenceScope;
  counts: EvidenceCounts;
  checkpoint: AuditCheckpoint;
  /** What checks the audit records offline. */
  audit: { first_seq: number | null; last_seq: number; public_key: PublicKeyInfo; algorithm: string };
  files: ManifestFile[];
  verify: string;
}

export const VERIFY_COMMAND = 'unzip PACKAGE.zip -d pkg && (cd pkg && sha256sum -c SHA256SUMS); parapet audit verify --package PACKAGE.zip';

/** How the audit records are checked, for an auditor without Parapet. */
export const AUDIT_ALGORITHM =
  `audit.jsonl holds consecutive audit entries ending at the package checkpoint. Each entry's hash is ` +
  `sha256(prev_hash as hex text, then the UTF-8 RFC 8785 canonical JSON of {seq, id, at, actor, action, target, detail}) in hex; ` +
  `prev_hash is the hash of the entry before (64 zeros before seq 1). Every audit.checkpoint entry names its checkpoint (target = id) in ` +
  `audit-checkpoints.jsonl. An ed25519 checkpoint's signature (base64url) is Ed25519 over the UTF-8 RFC 8785 canonical JSON of ` +
  `{format: "${CHECKPOINT_FORMAT}", id, seq, hash, at, key_id} under audit.public_key (key_id: the first 16 hex characters of sha256 ` +
  `of the raw 32-byte public key), and its hash is the hash of the entry at its seq.`;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Stored JSON text columns become values in the package, so a reader parses each line once. */
function parseColumns<T extends Record<string, unknown>>(row: T, columns: readonly (keyof T)[]): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...row };
  for (const column of columns) {
    const value = row[column];
    // Text that is not JSON is kept as text: the record is evidence as stored, not as it should have been.
    if (typeof value === 'string') copy[column as string] = readJson<unknown>(value, value);
  }
  return copy;
}

function jsonLines(records: readonly unknown[]): Uint8Array {
  return strToU8(records.map((record) => `${JSON.stringify(record)}\n`).join(''));
}

export async function buildPackage(
  sources: PackageSources,
  input: { id: string; scope: EvidenceScope; actor: string; generatedAt: Date },
): Promise<BuiltPackage> {
  const { store, policies, checkpoints, compliance } = sources;
  const { scope } = input;
  const period: PeriodFilter = { from: scope.period_from, to: scope.period_to, agents: scope.agents };

  // The checkpoint comes first: the audit entries read below are those it covers (seq ≤ its seq).
  const checkpoint = await checkpoints.create(input.actor);
  // From the first entry of the period up to the checkpoint, with no gap, so that the chain links
  // to a signed head offline (entries after the period end are part of that link).
  const firstAudit = await findFirstAuditSeqSince(store.db, period.from, checkpoint.seq);
  const firstSeq = firstAudit === undefined ? checkpoint.seq : Number(firstAudit.seq);
  await policies.sync();

  const [decisionRows, findingRows, approvalRows, stateRows, auditRows] = await Promise.all([
    listDecisionsInPeriod(store.db, period),
    listFindingsInPeriod(store.db, period),
    listApprovalsInPeriod(store.db, period),
    listPolicyStates(store.db),
    listAuditEntriesBetween(store.db, firstSeq, checkpoint.seq),
  ]);
  const auditCheckpoints = await checkpoints.inRange(firstSeq, checkpoint.seq);
  const complianceRecords = compliance === undefined ? undefined : await compliance.periodRecords(period.from, period.to);

  const stored = new Map(stateRows.map((row) => [row.key, row]));
  const packs = await policies.list();
  const policyRecords: unknown[] = packs.map((pack) => ({
    key: pack.key,
    version: pack.version,
    mode: pack.mode,
    fail_mode: pack.fail_mode,
    stored_state: stored.get(pack.key) ?? null,
    rules: pack.rules.map((rule) => ({ id: rule.id, effect: rule.effect, enabled: rule.enabled, mode: rule.mode })),
  }));
  // Stored policies that are not listed (unbound ones) are evidence too.
  for (const row of stateRows) {
    if (!packs.some((pack) => pack.key === row.key)) policyRecords.push({ key: row.key, version: row.live_version, mode: row.mode, fail_mode: null, stored_state: row, rules: [] });
  }

  const files: Array<[string, unknown[]]> = [
    ['decisions.jsonl', decisionRows.map((row) => parseColumns(row, ['rules', 'entities', 'degraded', 'detectors']))],
    ['findings.jsonl', findingRows.map((row) => parseColumns(row, ['evidence']))],
    ['approvals.jsonl', approvalRows.map((row) => parseColumns(row, ['rules', 'arguments']))],
    ['policies.jsonl', policyRecords],
    ['audit.jsonl', auditRows.map((row) => parseColumns(row, ['detail']))],
    ['audit-checkpoints.jsonl', auditCheckpoints],
  ];
  if (complianceRecords !== undefined) {
    files.push(['control-results.jsonl', complianceRecords.results], ['framework-status.jsonl', complianceRecords.status.frameworks]);
    // The risk register only once the risk assessments table has rows for the period.
    if (complianceRecords.risks !== null && complianceRecords.risks.length > 0) files.push(['risk-register.jsonl', complianceRecords.risks]);
  }
  const counts: EvidenceCounts = {
    decisions: decisionRows.length,
    findings: findingRows.length,
    approvals: approvalRows.length,
    policies: policyRecords.length,
    audit_entries: auditRows.length,
  };

  const contents = new Map<string, Uint8Array>();
  const listed: ManifestFile[] = [];
  for (const [name, records] of files) {
    const bytes = jsonLines(records);
    contents.set(name, bytes);
    listed.push({ name, sha256: sha256(bytes), bytes: bytes.length, records: records.length });
  }
  const manifest: Manifest = {
    format: 'parapet.evidence/2',
    package_id: input.id,
    generated_at: input.generatedAt.toISOString(),
    generated_by: input.actor,
    scope,
    counts,
    checkpoint,
    audit: { first_seq: auditRows.length === 0 ? null : firstSeq, last_seq: checkpoint.seq, public_key: checkpoints.publicKey(), algorithm: AUDIT_ALGORITHM },
    files: listed,
    verify: VERIFY_COMMAND,
  };
  const manifestBytes = strToU8(`${JSON.stringify(manifest, null, 2)}\n`);
  const manifestSha256 = sha256(manifestBytes);
  contents.set('manifest.json', manifestBytes);
  const guide = strToU8(verifyGuide(manifest));
  contents.set('VERIFY.txt', guide);
  // sha256sum's own format (two spaces, then the name), so the check needs nothing but coreutils.
  const sums = [...listed.map((file) => `${file.sha256}  ${file.name}\n`), `${manifestSha256}  manifest.json\n`, `${sha256(guide)}  VERIFY.txt\n`].join('');
  contents.set('SHA256SUMS', strToU8(sums));

  const zippable: Zippable = {};
  for (const [name, bytes] of contents) zippable[name] = bytes;
  // Zip times cannot precede 1980; a clock that far back is a test's, not a package's.
  const mtime = input.generatedAt.getTime() < Date.UTC(1980, 0, 2) ? new Date(Date.UTC(1980, 0, 2)) : input.generatedAt;
  const zip = zipSync(zippable, { level: 6, mtime });
  return { zip, manifest, manifestSha256, counts, checkpointId: checkpoint.id };
}

/** The plain-text guide in every package: what to check, and how, without Parapet. */
function verifyGuide(manifest: Manifest): string {
  return [
    `Evidence package ${manifest.package_id}, generated ${manifest.generated_at} by ${manifest.generated_by}.`,
    '',
    '1. Files: sha256sum -c SHA256SUMS (every file, manifest.json included).',
    `2. Audit chain: ${AUDIT_ALGORITHM}`,
    `3. The package checkpoint (manifest.json "checkpoint", seq ${manifest.checkpoint.seq}) seals the last entry of audit.jsonl; its`,
    `   public key is manifest.json "audit.public_key" (key_id ${manifest.audit.public_key.key_id}). Compare that key with the one the`,
    '   gateway publishes (GET /api/audit/head) or one you kept; a head you exported earlier must match the entry at its seq.',
    '',
    'All of this in one command, offline: parapet audit verify --package PACKAGE.zip [--public-key key.pem] [--head head.json]',
    '',
  ].join('\n');
}
