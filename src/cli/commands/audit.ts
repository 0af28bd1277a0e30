// parapet audit verify|checkpoint|head: the audit chain through the HTTP API (POST /api/audit/verify,
// /api/audit/checkpoint, GET /api/audit/head), or offline: `verify --package` checks an evidence
// package without the gateway. A chain that does not verify exits 1, so scripts and cron jobs can
// alert on it.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { unzipSync } from 'fflate';
import { verifyEvidenceFiles } from '../../areas/audit/offline.js';
import { clientFor, withConnectionOptions, type ConnectionOptions } from '../client.js';
import type { ApiAnswer } from '../../api/answers.js';

type Verification = ApiAnswer<'/api/audit/verify', 'post'>;

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
  for (const missing of result.missing_checkpoints ?? []) {
    lines.push(`audit checkpoint ${missing.id} named by the entry at seq ${missing.seq} is not stored (deleted or moved)`);
  }
  const head = result.head;
  if (head !== undefined && head !== null && !(head.signature_valid && head.matches_chain && head.stored)) {
    const why = [!head.signature_valid && 'its signature does not verify', !head.matches_chain && 'the chain at its seq no longer has its hash', !head.stored && 'its checkpoint is no longer stored as exported']
      .filter(Boolean)
      .join('; ');
    lines.push(`exported head ${head.id} at seq ${head.seq} does not verify: ${why}`);
  }
  if (result.ok) {
    const headNote = head === undefined || head === null ? '' : `; exported head ${head.id} (seq ${head.seq}) still in the chain`;
    lines.push(`audit chain verified: ${result.checked} entries (seq ${result.start_seq}..${result.end_seq}), ${result.checkpoints.length} checkpoints valid${headNote}`);
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
      .option('--head <file>', 'a head saved earlier by `parapet audit head`: the chain must still hold it')
      .option('--package <zip-or-dir>', 'check an evidence package offline, without the gateway (a zip or its extracted folder)')
      .option('--public-key <pem-file>', 'with --package: the public key to trust (default: the one in the package)')
      .option('--json', 'print the verification result as JSON'),
  ).action(async (options: ConnectionOptions & { startSeq?: number; endSeq?: number; head?: string; package?: string; publicKey?: string; json?: boolean }) => {
    const head = options.head === undefined ? undefined : readJsonFile(options.head, '--head');
    if (options.package !== undefined) {
      const publicKeyPem = options.publicKey === undefined ? undefined : readFileSync(options.publicKey, 'utf8');
      const result = verifyEvidenceFiles(readPackage(options.package), { ...(publicKeyPem === undefined ? {} : { publicKeyPem }), ...(head === undefined ? {} : { head }) });
      process.stdout.write(options.json ? `${JSON.stringify(result, null, 2)}\n` : `${result.lines.join('\n')}\n`);
      if (!result.ok) process.exitCode = 1;
      return;
    }
    const query = new URLSearchParams();
    if (options.startSeq !== undefined) query.set('start_seq', String(options.startSeq));
    if (options.endSeq !== undefined) query.set('end_seq', String(options.endSeq));
    const suffix = query.size > 0 ? `?${query.toString()}` : '';
    const result = await clientFor(options).json<Verification>('POST', `/api/audit/verify${suffix}`, head === undefined ? {} : { head });
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
    const checkpoint = await clientFor(options).json<ApiAnswer<'/api/audit/checkpoint', 'post'>>('POST', '/api/audit/checkpoint', {});
    process.stdout.write(
      options.json
        ? `${JSON.stringify(checkpoint, null, 2)}\n`
        : `checkpoint ${checkpoint.id} at seq ${checkpoint.seq} (hash ${checkpoint.hash}, key ${checkpoint.key_id})\n`,
    );
  });

  withConnectionOptions(
    audit
      .command('head')
      .description('save the latest signed checkpoint and its public key; keep it outside the gateway and pass it to `audit verify --head` later')
      .option('-o, --output <file>', 'where to write it (default: stdout)'),
  ).action(async (options: ConnectionOptions & { output?: string }) => {
    const head = await clientFor(options).json<ApiAnswer<'/api/audit/head', 'get'>>('GET', '/api/audit/head');
    const text = `${JSON.stringify(head, null, 2)}\n`;
    if (options.output === undefined) process.stdout.write(text);
    else {
      writeFileSync(options.output, text);
      process.stdout.write(`wrote ${options.output}: checkpoint ${head.checkpoint.id} at seq ${head.checkpoint.seq}\n`);
    }
  });
}

function readJsonFile(file: string, option: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch (error) {
    throw new Error(`${option} ${file} is not a readable JSON file (${(error as Error).message})`);
  }
}

/** The files of a package: the zip's entries, or the files of its extracted folder. */
function readPackage(location: string): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  if (statSync(location).isDirectory()) {
    for (const name of readdirSync(location)) {
      const file = path.join(location, name);
      if (statSync(file).isFile()) files.set(name, readFileSync(file));
    }
    return files;
  }
  for (const [name, bytes] of Object.entries(unzipSync(readFileSync(location)))) files.set(name, bytes);
  return files;
}
