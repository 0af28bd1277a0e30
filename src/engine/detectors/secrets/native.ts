// The secrets.native detector: runs the provider pattern table (patterns.ts) gated by cheap marker
// checks, the structural validators (JWT header, PEM body, URL credentials), then the keyword
// assignment scanner (generic.ts), and dedupes overlapping findings. Hot path: no I/O here; all
// regexes are linear-time and a 1 MB text is scanned in a few tens of milliseconds.
import { SURFACES, type DetectContext, type Detection, type Detector } from '../types.js';
import { scanCurlCredentials, scanKeywordAssignments, type GenericFinding } from './generic.js';
import { LiteralAutomaton } from '../literals/automaton.js';
import { SECRET_ENTITIES, SECRET_PATTERNS, type SecretEntity, type SecretPattern } from './patterns.js';
import {
  basicAuthVerdict,
  githubStyleChecksumOk,
  jwtHeaderVerdict,
  keyMaterialVerdict,
  placeholderReason,
  printableShare,
  type Verdict,
} from './validators.js';
import { PUBLIC_EXAMPLE_VALUES } from './gitleaks-data.js';

/** Provider rows beat structural rows, which beat keyword guesses, when spans overlap. */
const Priority = { Keyword: 1, Structural: 2, Provider: 3 } as const;
type Priority = (typeof Priority)[keyof typeof Priority];

interface Finding extends GenericFinding {
  priority: Priority;
}

// One case-insensitive pass over the text marks every row that has a marker in it; only those
// rows run their regex.
const MARKERS = new LiteralAutomaton(
  SECRET_PATTERNS.flatMap((pattern, owner) => pattern.markers.map((literal) => ({ literal, owner }))),
  { foldCase: true },
);

const STRUCTURAL = new Set(['pem', 'jwt', 'urlCredentials']);

// Token prefixes owned by a provider row (lower case, longest first).
const PROVIDER_PREFIXES = [
  ...new Set(SECRET_PATTERNS.filter((p) => p.prefix).flatMap((p) => p.markers.filter((m) => m.length >= 3))),
].sort((a, b) => b.length - a.length);

/** Answers "does any provider finding overlap [start, end)?" in O(log n) per question. */
class OverlapIndex {
  private readonly starts: number[];
  private readonly maxEnds: number[];

  constructor(findings: readonly Finding[]) {
    const sorted = [...findings].sort((a, b) => a.start - b.start);
    this.starts = sorted.map((f) => f.start);
    this.maxEnds = [];
    let maxEnd = -1;
    for (const f of sorted) {
      maxEnd = Math.max(maxEnd, f.end);
      this.maxEnds.push(maxEnd);
    }
  }

  overlaps(start: number, end: number): boolean {
    // Last finding that starts before `end`; any of those reaching past `start` overlaps.
    let lo = 0;
    let hi = this.starts.length - 1;
    let last = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if ((this.starts[mid] ?? Infinity) < end) {
        last = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return last !== -1 && (this.maxEnds[last] ?? -1) > start;
  }
}

/**
 * A keyword-assigned value that starts with a provider's prefix but that the provider's own row
 * did not accept (`token: "xoxp-1234567890"`, `dapi…defg5`) is a malformed look-alike.
 */
function isRejectedLookAlike(text: string, finding: GenericFinding, providerFindings: OverlapIndex): boolean {
  const head = text.slice(finding.start, finding.start + 24).toLowerCase();
  if (!PROVIDER_PREFIXES.some((prefix) => head.startsWith(prefix))) return false;
  return !providerFindings.overlaps(finding.start, finding.end);
}

const MAX_PEM_BODY = 100_000;
const PEM_HEADER_NAMES = ['Proc-Type:', 'DEK-Info:', 'Version:', 'Comment:', 'Hash:', 'Charset:'];

function isBase64Code(code: number): boolean {
  return (
    (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code === 43 || code === 47 || code === 61
  );
}

/** Skips blanks, real newlines and JSON-escaped ones (`\n`, `\r`). */
function skipBlanks(text: string, pos: number, limit: number): number {
  while (pos < limit) {
    const c = text.charCodeAt(pos);
    if (c === 32 || c === 9 || c === 10 || c === 13) pos += 1;
    else if (c === 92 && (text[pos + 1] === 'n' || text[pos + 1] === 'r')) pos += 2;
    else break;
  }
  return pos;
}

/**
 * The body of a PEM block must be base64 (after optional `Proc-Type:`-style header lines); the
 * span grows to the END line, or to the end of the base64 run when the paste was cut short. Only
 * the block's own body is read, so a text full of BEGIN lines stays linear.
 */
function pemVerdict(text: string, headerEnd: number): Verdict & { end: number } {
  const limit = Math.min(text.length, headerEnd + MAX_PEM_BODY);
  let pos = skipBlanks(text, headerEnd, limit);
  for (let line = 0; line < 8 && PEM_HEADER_NAMES.some((name) => text.startsWith(name, pos)); line += 1) {
    const newline = text.indexOf('\n', pos);
    const escaped = text.indexOf('\\n', pos);
    const next = [newline, escaped].filter((i) => i !== -1 && i - pos < 300);
    if (next.length === 0) break;
    pos = skipBlanks(text, Math.min(...next), limit);
  }
  const bodyStart = pos;
  let material = 0;
  let lastMaterial = pos;
  while (pos < limit) {
    if (isBase64Code(text.charCodeAt(pos))) {
      material += 1;
      pos += 1;
      lastMaterial = pos;
    } else {
      const next = skipBlanks(text, pos, limit);
      if (next === pos) break;
      pos = next;
    }
  }
  if (material < 20) return { ok: false, note: 'no base64 key body', end: headerEnd };
  const sample = text.slice(bodyStart, Math.min(lastMaterial, bodyStart + 400)).replace(/\s|\\[nr]/g, '').slice(0, 64);
  if (placeholderReason(sample) !== undefined && material < 200) return { ok: false, note: 'placeholder key body', end: headerEnd };
  // Key material is binary (DER, OpenSSH's packed fields); a body that decodes to plain text is a
  // stand-in (`YWJjZGVm…` is "abcdef…").
  const head = sample.slice(0, sample.length - (sample.length % 4));
  if (head.length >= 24 && printableShare(Buffer.from(head, 'base64').toString('latin1')) > 0.95) {
    return { ok: false, note: 'key body decodes to plain text', end: headerEnd };
  }
  if (text.startsWith('-----END', pos) || text.startsWith('---- END', pos)) {
    const close = text.indexOf('----', pos + 8);
    const end = close !== -1 && close - pos < 80 ? close + (text[close + 4] === '-' ? 5 : 4) : pos + 8;
    return { ok: true, note: `base64 body of ${material} chars with END line`, end };
  }
  return { ok: true, note: `base64 body of ${material} chars, no END line (truncated key)`, end: lastMaterial };
}

const URL_PASSWORD = /^[^:]+:\/\/([^:@]*):([^@]*)@([^:/]*)/;

function urlCredentialsVerdict(url: string): Verdict {
  const parts = URL_PASSWORD.exec(url);
  if (parts === null) return { ok: false, note: 'no user:password' };
  const password = decodeURIComponentSafe(parts[2] ?? '');
  if (password.length < 4) return { ok: false, note: 'password too short' };
  // RFC 2606 documentation hosts and escaped test strings are examples, not credentials.
  if (/(?:^|\.)example\.(?:com|org|net)$|^example$/i.test(parts[3] ?? '')) return { ok: false, note: 'documentation host' };
  if (password.includes('\\')) return { ok: false, note: 'escaped test string' };
  const reason = placeholderReason(password);
  if (reason !== undefined) return { ok: false, note: `password is a ${reason}` };
  if (password.length < 3) return { ok: false, note: 'password too short' };
  if (/^[*x•]+$/i.test(password)) return { ok: false, note: 'masked password' };
  // `postgres://postgres:postgres@…`, `user:1111@`: documentation defaults, not credentials.
  const user = decodeURIComponentSafe(parts[1] ?? '').toLowerCase();
  const scheme = url.slice(0, url.indexOf(':')).toLowerCase();
  if (password.toLowerCase() === user || scheme.startsWith(password.toLowerCase())) return { ok: false, note: 'default credentials' };
  if (new Set(password).size === 1) return { ok: false, note: 'masked password' };
  return { ok: true, note: 'URL carries user:password' };
}

/** Discord bot tokens open with base64 of the bot's numeric snowflake id. */
function discordBotVerdict(token: string): Verdict {
  const id = Buffer.from(token.slice(0, token.indexOf('.')), 'base64url').toString('latin1');
  if (!/^\d{17,20}$/.test(id)) return { ok: false, note: 'first segment is not a snowflake id' };
  const entropy = keyMaterialVerdict(token);
  if (!entropy.ok) return entropy;
  return { ok: true, note: `first segment decodes to id ${id}; ${entropy.note}` };
}

function decodeURIComponentSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function runPattern(pattern: SecretPattern, text: string, out: Finding[]): void {
  const regex = pattern.regex;
  regex.lastIndex = 0;
  let match: RegExpExecArray | null;
  while ((match = regex.exec(text)) !== null) {
    if (match[0].length === 0) {
      regex.lastIndex += 1;
      continue;
    }
    // The `secret` group is always the tail of the match (rows keep trailing context in
    // lookaheads), so its offset follows from lengths without the costlier `d` flag.
    let secret = match.groups?.secret ?? match[0];
    let end = match.index + match[0].length;
    const start = end - secret.length;
    // A token at the end of a sentence: the full stop is not part of it.
    while (secret.endsWith('.') && pattern.validate !== 'pem' && pattern.validate !== 'jwt') {
      end -= 1;
      secret = secret.slice(0, -1);
    }
    if (PUBLIC_EXAMPLE_VALUES.has(secret)) continue;
    let verdict: Verdict;
    let score = pattern.score;
    switch (pattern.validate) {
      case 'keyMaterial':
        verdict = keyMaterialVerdict(secret, pattern.entropyBonus ?? 0);
        break;
      case 'placeholder': {
        const reason = placeholderReason(secret);
        verdict = reason === undefined ? { ok: true, note: 'not a placeholder' } : { ok: false, note: reason };
        break;
      }
      case 'jwt': {
        const jwt = jwtHeaderVerdict(secret);
        verdict = jwt;
        if (!jwt.strict) score = Math.min(score, 0.8);
        break;
      }
      case 'pem': {
        const pem = pemVerdict(text, match.index + match[0].length);
        verdict = pem;
        end = pem.end;
        regex.lastIndex = Math.max(regex.lastIndex, end);
        break;
      }
      case 'urlCredentials':
        verdict = urlCredentialsVerdict(secret);
        break;
      case 'basicAuth':
        verdict = basicAuthVerdict(secret);
        break;
      case 'discordBot':
        verdict = discordBotVerdict(secret);
        break;
      case 'tail': {
        const tail = secret.slice(secret.lastIndexOf('-') + 1);
        verdict = tail.length < 8 ? { ok: false, note: 'random part too short' } : keyMaterialVerdict(tail, 0.3);
        break;
      }
      case 'none':
        verdict = { ok: true, note: 'format match' };
        break;
    }
    if (!verdict.ok) continue;
    if ((pattern.name === 'github-token' || pattern.name === 'npm-token') && githubStyleChecksumOk(secret)) {
      score = Math.max(score, 0.99);
      verdict = { ok: true, note: `${verdict.note}; CRC32 checksum verified` };
    }
    // A generic `/hooks/` URL is a chat webhook when the text names the chat tool.
    if (pattern.name === 'mattermost-or-rocketchat-webhook' && /mattermost|rocket\.?chat/i.test(text.slice(Math.max(0, start - 200), end))) {
      score = 0.9;
    }
    out.push({
      entity: pattern.entity,
      score,
      start,
      end,
      pattern: pattern.name,
      validator: verdict.note,
      explanation: `${pattern.provider} ${pattern.entity.slice('SECRET.'.length).toLowerCase().replace(/_/g, ' ')} matched pattern "${pattern.name}"; validator: ${verdict.note}.`,
      priority: STRUCTURAL.has(pattern.validate) ? Priority.Structural : Priority.Provider,
    });
  }
}

const AWS_SECRET_SHAPE = /^(?=[A-Za-z0-9/+]{0,39}[0-9])(?=[A-Za-z0-9/+]{0,39}[a-z])(?=[A-Za-z0-9/+]{0,39}[A-Z])[A-Za-z0-9/+]{40}$/;

/**
 * A 40-character secret key under a plain `secret_key` name is AWS's when the text is about AWS
 * (an access key id beside it, or AWS named at all).
 */
function retypeAwsSecrets(text: string, findings: Finding[]): void {
  let aws: boolean | undefined;
  for (const f of findings) {
    if (f.entity !== 'SECRET.GENERIC' || f.priority !== Priority.Keyword || f.end - f.start !== 40) continue;
    if (!AWS_SECRET_SHAPE.test(text.slice(f.start, f.end))) continue;
    aws ??= findings.some((g) => g.pattern === 'aws-access-key-id') || /\baws\b|aws_|boto3|\bs3\b/i.test(text);
    if (!aws) return;
    f.entity = 'SECRET.CLOUD_ACCESS_KEY';
    f.explanation = `${f.explanation} The text is about AWS and the value has the 40-character AWS secret key shape.`;
  }
}

function better(a: Finding, b: Finding): boolean {
  if (a.priority !== b.priority) return a.priority > b.priority;
  const aSpecific = a.entity !== 'SECRET.GENERIC';
  const bSpecific = b.entity !== 'SECRET.GENERIC';
  if (aSpecific !== bSpecific) return aSpecific;
  if (a.score !== b.score) return a.score > b.score;
  return a.end - a.start > b.end - b.start;
}

/**
 * Overlapping findings describe one secret: keep the best of each overlapping cluster (provider
 * pattern over structural over keyword guess, then specific entity, score, length), plus any
 * finding in the cluster that does not overlap what was kept.
 */
function dedupe(findings: Finding[]): Finding[] {
  findings.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: Finding[] = [];
  let cluster: Finding[] = [];
  let clusterEnd = -1;
  const flush = (): void => {
    const ranked = [...cluster].sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0));
    const chosen: Finding[] = [];
    if (ranked.length <= 32) {
      for (const candidate of ranked) {
        if (chosen.every((c) => candidate.end <= c.start || candidate.start >= c.end)) chosen.push(candidate);
      }
    } else {
      // Large clusters: mark taken characters instead of comparing every pair.
      const base = cluster[0]?.start ?? 0;
      const taken = new Uint8Array(clusterEnd - base);
      for (const candidate of ranked) {
        let free = true;
        for (let i = candidate.start - base; i < candidate.end - base && free; i += 1) if (taken[i] === 1) free = false;
        if (!free) continue;
        taken.fill(1, candidate.start - base, candidate.end - base);
        chosen.push(candidate);
      }
    }
    kept.push(...chosen.sort((a, b) => a.start - b.start));
    cluster = [];
  };
  for (const finding of findings) {
    if (cluster.length > 0 && finding.start >= clusterEnd) flush();
    cluster.push(finding);
    clusterEnd = Math.max(clusterEnd, finding.end);
  }
  if (cluster.length > 0) flush();
  return kept;
}

export function detectSecrets(text: string, context?: Pick<DetectContext, 'deadline'>): Detection[] {
  if (text.length === 0) return [];
  const deadline = context?.deadline;
  const findings: Finding[] = [];
  const present = MARKERS.scan(text);
  for (let row = 0; row < SECRET_PATTERNS.length; row += 1) {
    if (present[row] !== 1) continue;
    runPattern(SECRET_PATTERNS[row]!, text, findings);
    if (deadline !== undefined && Date.now() > deadline) break;
  }
  const generic: GenericFinding[] = [];
  if (deadline === undefined || Date.now() <= deadline) scanKeywordAssignments(text, generic);
  scanCurlCredentials(text, generic);
  const fromPatterns = new OverlapIndex(findings);
  for (const finding of generic) {
    if (isRejectedLookAlike(text, finding, fromPatterns)) continue;
    findings.push({ ...finding, priority: Priority.Keyword });
  }
  retypeAwsSecrets(text, findings);
  return dedupe(findings).map((f) => ({
    entity: f.entity,
    score: f.score,
    start: f.start,
    end: f.end,
    detector: 'secrets.native',
    explanation: f.explanation,
    pattern: f.pattern,
    validator: f.validator,
  }));
}

export const secretsNative: Detector = {
  key: 'secrets.native',
  surfaces: SURFACES,
  entityTypes: SECRET_ENTITIES satisfies readonly SecretEntity[],
  costRank: 2,
  available: () => ({ available: true }),
  detect: (text, context) => detectSecrets(text, context),
};
