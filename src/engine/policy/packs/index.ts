// The packs shipped with Parapet, read once at start from packs/shipped/*.yaml at the package root
// (packs/README.md says what each is for). The files are the source; this module only loads them.
import { readFileSync } from 'node:fs';
import { packagePath } from '../../../infra/lib/package-root.js';

/**
 * In the order they are seeded and evaluated: `rules_fired` lists rules in this order, so a new
 * shipped pack is appended, never inserted.
 */
export const SHIPPED_PACK_KEYS = ['baseline', 'agent-boundaries', 'injection-guards', 'tool-actions', 'answerability', 'answer-integrity'] as const;

/** The YAML text of a pack file under packs/ (`shipped` or `library`). */
export function readPackFile(folder: 'shipped' | 'library', key: string): string {
  return readFileSync(packagePath('packs', folder, `${key}.yaml`), 'utf8');
}

export const SHIPPED_PACKS: readonly string[] = SHIPPED_PACK_KEYS.map((key) => readPackFile('shipped', key));
