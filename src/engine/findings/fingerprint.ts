// A finding's identity (spec 01 §2.6): a fingerprint over its type, subject and identifying parts,
// the same wherever a finding is raised (the pipeline, the recorder, the areas' own findings).
import { createHash } from 'node:crypto';

/** Recent fingerprints by their canonical input: the same agent raises the same few findings call after call. */
const recentFingerprints = new Map<string, string>();
const RECENT_FINGERPRINTS = 10_000;
// Kept over lru-cache, which hits at 0.3–0.5x the speed of a Map here (bench/caches.ts); a miss is one digest.

export function fingerprint(type: string, subject: string, parts: readonly string[]): string {
  const key = JSON.stringify([type, subject, ...parts]);
  let digest = recentFingerprints.get(key);
  if (digest === undefined) {
    digest = createHash('sha256').update(key).digest('hex');
    if (recentFingerprints.size >= RECENT_FINGERPRINTS) recentFingerprints.clear();
    recentFingerprints.set(key, digest);
  }
  return digest;
}
