// Which files of a repository tree are worth fetching, and what each one is. A scan reads files
// through the code host's API one by one, so the choice is bounded (MAX_FILES, MAX_FILE_BYTES) and
// ranked: MCP configurations and manifests first, then secrets-prone files, code, other config.

import type { TreeEntry } from './types.js';

export const MAX_FILES = 500;
export const MAX_FILE_BYTES = 512 * 1024;
/** Entries of a tree looked at; a code host's own listing stops near this size. */
export const MAX_TREE_ENTRIES = 100_000;
const MAX_PATH_CHARS = 1_000;

/** Vendored, generated or tool-owned directories: what is in them was not written for this repository. */
const SKIPPED_DIRS = new Set([
  'node_modules',
  'vendor',
  'dist',
  'build',
  '.git',
  '__pycache__',
  'venv',
  '.venv',
  'target',
  'site-packages',
  '.tox',
  '.next',
]);

export type FileKind = 'mcp_config' | 'manifest' | 'env' | 'code' | 'config';

/** Lower is fetched first when a tree holds more than MAX_FILES candidates. */
const KIND_RANK: Record<FileKind, number> = { mcp_config: 0, manifest: 1, env: 2, code: 3, config: 4 };

const CODE_LANGUAGES = new Map<string, string>([
  ['py', 'python'],
  ['ts', 'typescript'],
  ['tsx', 'typescript'],
  ['mts', 'typescript'],
  ['cts', 'typescript'],
  ['js', 'javascript'],
  ['jsx', 'javascript'],
  ['mjs', 'javascript'],
  ['cjs', 'javascript'],
  ['go', 'go'],
  ['java', 'java'],
  ['kt', 'kotlin'],
]);

const MCP_CONFIG_NAMES = new Set(['.mcp.json', 'mcp.json', 'claude_desktop_config.json', 'mcp_settings.json', 'cline_mcp_settings.json']);

const MANIFEST_NAMES = new Set([
  'package.json',
  'pyproject.toml',
  'pipfile',
  'go.mod',
  'pom.xml',
  'build.gradle',
  'build.gradle.kts',
  'libs.versions.toml',
]);

/** Large generated files with nothing of their own to say (lock files, bundles, declarations). */
const GENERATED_NAMES = new Set([
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'poetry.lock',
  'pipfile.lock',
  'go.sum',
  'composer.lock',
  'cargo.lock',
]);

const ENV_NAMES = new Set(['.env', '.envrc', '.npmrc', '.pypirc', '.netrc']);
const ENV_EXTENSIONS = new Set(['env', 'properties', 'ini', 'cfg', 'conf', 'tfvars']);
const CONFIG_EXTENSIONS = new Set(['json', 'jsonc', 'yaml', 'yml', 'toml']);

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1).toLowerCase();
}

/** What a file is by its path, or null when the analysis has nothing to look for in it. */
export function classifyPath(path: string): FileKind | null {
  const name = baseName(path);
  const lower = name.toLowerCase();
  if (GENERATED_NAMES.has(lower) || lower.endsWith('.min.js') || lower.endsWith('.d.ts') || lower.endsWith('.bundle.js')) return null;
  if (MCP_CONFIG_NAMES.has(lower)) return 'mcp_config';
  if (MANIFEST_NAMES.has(lower) || (lower.startsWith('requirements') && lower.endsWith('.txt'))) return 'manifest';
  if (ENV_NAMES.has(lower) || lower.startsWith('.env.')) return 'env';
  const extension = extensionOf(name);
  if (CODE_LANGUAGES.has(extension)) return 'code';
  if (ENV_EXTENSIONS.has(extension)) return 'env';
  if (CONFIG_EXTENSIONS.has(extension)) return 'config';
  return null;
}

/** The programming language of a code file; null for configuration, manifests and everything else. */
export function languageOf(path: string): string | null {
  const name = baseName(path);
  if (name.toLowerCase().endsWith('.gradle.kts')) return null;
  return CODE_LANGUAGES.get(extensionOf(name)) ?? null;
}

function inSkippedDir(path: string): boolean {
  const parts = path.split('/');
  for (let i = 0; i < parts.length - 1; i += 1) if (SKIPPED_DIRS.has(parts[i] ?? '')) return true;
  return false;
}

function depthOf(path: string): number {
  let depth = 0;
  for (let i = 0; i < path.length; i += 1) if (path.charCodeAt(i) === 47) depth += 1;
  return depth;
}

/**
 * The blobs to fetch, sorted by path, and how many files of interest were left out (in a vendored
 * directory, larger than MAX_FILE_BYTES, past MAX_FILES, or past MAX_TREE_ENTRIES).
 */
export function selectFiles(tree: readonly TreeEntry[]): { paths: string[]; skipped: number } {
  const candidates: Array<{ path: string; rank: number; depth: number }> = [];
  const seen = new Set<string>();
  let skipped = Math.max(0, tree.length - MAX_TREE_ENTRIES);
  const limit = Math.min(tree.length, MAX_TREE_ENTRIES);
  for (let i = 0; i < limit; i += 1) {
    const entry = tree[i];
    if (entry === undefined || entry.type !== 'blob' || typeof entry.path !== 'string') continue;
    const path = entry.path;
    const kind = classifyPath(path);
    if (kind === null || seen.has(path)) continue;
    seen.add(path);
    const tooLarge = typeof entry.size === 'number' && entry.size > MAX_FILE_BYTES;
    if (tooLarge || inSkippedDir(path) || path.length > MAX_PATH_CHARS) {
      skipped += 1;
      continue;
    }
    candidates.push({ path, rank: KIND_RANK[kind], depth: depthOf(path) });
  }
  candidates.sort((a, b) => a.rank - b.rank || a.depth - b.depth || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  skipped += Math.max(0, candidates.length - MAX_FILES);
  const paths = candidates.slice(0, MAX_FILES).map((c) => c.path);
  paths.sort();
  return { paths, skipped };
}
