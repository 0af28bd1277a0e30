// Wire shapes of the audit chain, its checkpoints and its verification (spec 02 "Traces,
// metrics, audit, export").
import { Type, type Static } from 'typebox';
import { Body, ListOf, Nullable, StringEnum, Timestamp } from '../../infra/http/schemas.js';

const Seq = (description: string) => Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description });
const Hash = Type.String({ description: 'sha256, hex' });

export const AuditEntrySchema = Type.Object({
  seq: Type.Integer(),
  id: Type.String(),
  at: Timestamp,
  actor: Type.String(),
  action: Type.String(),
  target: Nullable(Type.String()),
  detail: Type.Record(Type.String(), Type.Unknown()),
  prev_hash: Hash,
  hash: Type.String({ description: 'sha256 over prev_hash and the canonical JSON (RFC 8785) of seq, id, at, actor, action, target and detail' }),
});
export type AuditEntry = Static<typeof AuditEntrySchema>;

export const ListAuditEntriesQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  action: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  actor: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
  target: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
  start_seq: Type.Optional(Seq('the lowest seq to list')),
  end_seq: Type.Optional(Seq('the highest seq to list')),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
});
export type ListAuditEntriesQuery = Static<typeof ListAuditEntriesQuery>;
export const AuditEntryList = ListOf(AuditEntrySchema);

export const CheckpointSchema = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100 }),
  seq: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'the chain head it seals: its own audit.checkpoint entry, whose target is this id' }),
  hash: Type.String({ minLength: 1, maxLength: 200, description: 'the hash of the entry at seq' }),
  at: Timestamp,
  key_id: Type.String({ minLength: 1, maxLength: 100, description: 'first 16 hex characters of sha256 of the raw Ed25519 public key (of the HMAC key for hmac-sha256)' }),
  algorithm: Type.String({
    maxLength: 50,
    description:
      'ed25519: the signature (base64url) is over the UTF-8 RFC 8785 canonical JSON of {format: "parapet.audit-checkpoint/2", id, seq, hash, at, key_id}; hmac-sha256 (checkpoints made before Ed25519, checkable only by the gateway): hex, over {seq, hash, at}',
  }),
  signature: Type.String({ maxLength: 1000 }),
  created_by: Type.String({ maxLength: 1000 }),
});

export const PublicKeySchema = Type.Object({
  algorithm: StringEnum(['ed25519'] as const),
  key_id: Type.String({ maxLength: 100 }),
  public_key_pem: Type.String({ maxLength: 1000, description: 'the Ed25519 public key that checks the checkpoints, SubjectPublicKeyInfo PEM' }),
});

export const SignedHeadSchema = Type.Object(
  { checkpoint: CheckpointSchema, public_key: PublicKeySchema },
  { description: 'the latest signed checkpoint and the public key that checks it; keep a copy outside the gateway and pass it to verify later' },
);
export type SignedHead = Static<typeof SignedHeadSchema>;

export const VerifyAuditBody = Body({
  head: Type.Optional(SignedHeadSchema),
});
export type VerifyAuditBody = Static<typeof VerifyAuditBody>;

export interface CheckpointReference {
  id: string;
  seq: number;
}

export const VerifyAuditQuery = Type.Object({
  start_seq: Type.Optional(Seq('first seq to verify (default 1)')),
  end_seq: Type.Optional(Seq('last seq to verify (default: the head of the chain)')),
});
export type VerifyAuditQuery = Static<typeof VerifyAuditQuery>;

export const BAD_ENTRY_REASONS = ['hash mismatch', 'broken link', 'gap', 'first entry prev_hash not genesis'] as const;
export type BadEntryReason = (typeof BAD_ENTRY_REASONS)[number];

export const AuditVerificationSchema = Type.Object({
  ok: Type.Boolean({ description: 'every entry in the range and every checkpoint checked verifies' }),
  checked: Type.Integer({ description: 'entries examined (up to and including the first bad one)' }),
  start_seq: Type.Integer(),
  end_seq: Type.Integer({ description: 'the last seq of the range: end_seq as asked, or the head when verification began, whichever is lower' }),
  first_bad: Nullable(
    Type.Object({
      seq: Type.Integer(),
      id: Type.String(),
      reason: StringEnum(BAD_ENTRY_REASONS, {
        description:
          'hash mismatch: the row was altered; broken link: prev_hash is not the hash of the entry before it (a row deleted, inserted or reordered); gap: the seq before it is missing; first entry prev_hash not genesis',
      }),
    }),
  ),
  checkpoints: Type.Array(
    Type.Object({
      id: Type.String(),
      seq: Type.Integer(),
      signature_valid: Type.Boolean({ description: "signed by this gateway's key over its seq, hash and time" }),
      matches_chain: Type.Boolean({ description: 'the stored entry at its seq still has its hash' }),
    }),
    { description: 'checkpoints from start_seq up to end_seq (with no end_seq given, also those past the head: a cut-off tail shows here)' },
  ),
  missing_checkpoints: Type.Array(Type.Object({ id: Type.String(), seq: Type.Integer() }), {
    description: 'audit.checkpoint entries in the range whose checkpoint is not stored (deleted, or moved to another seq)',
  }),
  head: Nullable(
    Type.Object(
      {
        id: Type.String(),
        seq: Type.Integer(),
        signature_valid: Type.Boolean({ description: "signed by this gateway's key" }),
        matches_chain: Type.Boolean({ description: 'the stored entry at its seq is its audit.checkpoint entry and still has its hash' }),
        stored: Type.Boolean({ description: 'the checkpoint is still stored as exported' }),
      },
      { description: 'the exported head passed in the body, checked against the chain; null when none was passed' },
    ),
  ),
});
export type AuditVerification = Static<typeof AuditVerificationSchema>;
