// Hard-coded secrets through the engine's own detector (secrets.native: provider patterns with
// validators, structural checks, keyword assignments; placeholders and documented example values
// are already left out there). Only where a secret is and what it looks like is kept: its entity,
// the first four characters as a hint, and its length. The value itself never leaves this file.

import { detectSecrets, secretsNative } from '../../../../engine/detectors/secrets/native.js';
import type { SourceText } from './text.js';

export interface SecretHit {
  line: number;
  entity: string;
  hint: string;
  length: number;
  pattern: string | null;
  score: number;
}

/**
 * Keyword guesses below this are too weak to call a finding (all-digit values score 0.5, weak
 * passwords under a credential name 0.7 and are kept).
 */
export const MIN_SECRET_SCORE = 0.7;
/** A detector pass that overruns this stops and reports what it found. */
const DETECT_BUDGET_MS = 2_000;
const HINT_CHARS = 4;

/** The hint shown for a secret: its first characters and an ellipsis, never more. */
export function secretHint(value: string): string {
  return `${Array.from(value).slice(0, HINT_CHARS).join('')}…`;
}

export async function scanSecrets(source: SourceText): Promise<SecretHit[]> {
  // Repository content is untrusted data, as a tool's result is; no PII packs are needed for secrets.
  const detections = await secretsNative.detect(source.text, {
    surface: 'tool_result',
    settings: { pii_packs: [] },
    deadline: Date.now() + DETECT_BUDGET_MS,
  });
  const out: SecretHit[] = [];
  for (const detection of detections) {
    if (detection.score < MIN_SECRET_SCORE) continue;
    out.push({
      line: source.lineAt(detection.start),
      entity: detection.entity,
      hint: secretHint(source.text.slice(detection.start, detection.start + HINT_CHARS * 2)),
      length: detection.end - detection.start,
      pattern: detection.pattern ?? null,
      score: detection.score,
    });
  }
  return out;
}

/** The text with every secret the detector finds in it replaced by `[secret]` (for excerpts and commands). */
export function maskSecrets(text: string): string {
  let masked = '';
  let from = 0;
  for (const detection of detectSecrets(text)) {
    if (detection.start < from) continue;
    masked += `${text.slice(from, detection.start)}[secret]`;
    from = detection.end;
  }
  return masked + text.slice(from);
}
