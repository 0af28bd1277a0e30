// Where the installed package lives, for files shipped beside the code (packs/). Found by walking up
// from this module to the first folder with a package.json, so the answer is the same from the
// TypeScript sources (src/lib under tsx or vitest), from the compiled dist/lib, and after folders
// inside src/ move.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${start}`);
  }
}

export const PACKAGE_ROOT: string = findPackageRoot(path.dirname(fileURLToPath(import.meta.url)));

/** An absolute path to a file shipped with the package, e.g. `packagePath('packs', 'shipped', 'baseline.yaml')`. */
export function packagePath(...segments: string[]): string {
  return path.join(PACKAGE_ROOT, ...segments);
}
