// parapet audit verify|checkpoint: the audit chain through the HTTP API (POST /api/audit/verify
// and /api/audit/checkpoint). A chain that does not verify exits 1, so scripts and cron jobs can
// alert on it.
import { InvalidArgumentError, type Command } from 'commander';
import { clientFor, withConnectionOptions, type ConnectionOptions } from '../client.js';

interface Verification {
  ok: boolean;
  checked: number;
  start_seq: number;
  end_seq: number;
  first_bad: { seq: number; id: string; reason: string } | null;
  checkpoints: Array<{ id: string; seq: number; signature_valid: boolean; matches_chain: boolean }>;
}

function parseSeq(value: string): number {
  const seq = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(seq) || seq < 1) throw new InvalidArgumentError('a whole number from 1');
  return seq;
}

/** The lines `audit verify` prints, and whether the chain verified. */
export function verificationReport(result: Verification): { ok: boolean; lines: string[] } {
  const lines: string[] = [];
  if (result.first_bad !== null) {
    lines.push(`audit chain broken at seq ${result.first_bad.seq} (${result.first_bad.id}): ${result.first_bad.reason}`);
  }
  const badCheckpoints = result.checkpoints.filter((checkpoint) => !checkpoint.signature_valid || !checkpoint.matches_chain);
  for (const checkpoint of badCheckpoints) {
    const why = [!checkpoint.signature_valid && 'signature does not verify', !checkpoint.matches_chain && 'the entry at its seq does not have its hash']
      .filter(Boolean)
      .join('; ');
    lines.push(`audit checkpoint ${checkpoint.id} at seq ${checkpoint.seq} does not verify: ${why}`);
  }
  if (result.ok) {
    lines.push(`audit chain verified: ${result.checked} entries (seq ${result.start_seq}..${result.end_seq}), ${result.checkpoints.length} checkpoints valid`);
  }
  return { ok: result.ok, lines };
}

export function registerAuditCommands(program: Command): void {
  const audit = program.command('audit').description('the audit hash chain and its signed checkpoints');

  withConnectionOptions(
    audit
      .command('verify')
      .description('recompute the chain (or a range of it) and check its checkpoints; exits 1 when it does not verify')
      .option('--start-seq <n>', 'first seq to verify (default 1)', parseSeq)
      .option('--end-seq <n>', 'last seq to verify (default: the head)', parseSeq)
      .option('--json', 'print the verification result as JSON'),
  ).action(async (options: ConnectionOptions & { startSeq?: number; endSeq?: number; json?: boolean }) => {
    const query = new URLSearchParams();
    if (options.startSeq !== undefined) query.set('start_seq', String(options.startSeq));
    if (options.endSeq !== undefined) query.set('end_seq', String(options.endSeq));
    const suffix = query.size > 0 ? `?${query.toString()}` : '';
    const result = await clientFor(options).json<Verification>('POST', `/api/audit/verify${suffix}`, {});
    const report = verificationReport(result);
    process.stdout.write(options.json ? `${JSON.stringify(result, null, 2)}\n` : `${report.lines.join('\n')}\n`);
    if (!report.ok) process.exitCode = 1;
  });

  withConnectionOptions(
    audit
      .command('checkpoint')
      .description("seal the chain's current head with a checkpoint signed by the gateway")
      .option('--json', 'print the checkpoint as JSON'),
  ).action(async (options: ConnectionOptions & { json?: boolean }) => {
    const checkpoint = await clientFor(options).json<{ id: string; seq: number; hash: string; key_id: string }>('POST', '/api/audit/checkpoint', {});
    process.stdout.write(
      options.json
        ? `${JSON.stringify(checkpoint, null, 2)}\n`
        : `checkpoint ${checkpoint.id} at seq ${checkpoint.seq} (hash ${checkpoint.hash}, key ${checkpoint.key_id})\n`,
    );
  });
}
