// parapet.example.yaml at the package root stays a complete, valid configuration: every setting of
// the schema, each with a comment, at its default, read through the real loader.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isMap, isScalar, parseDocument } from 'yaml';
import { packagePath } from '../lib/package-root.js';
import { loadConfig } from './load.js';
import { ConfigSchema } from './schema.js';

const EXAMPLE = packagePath('parapet.example.yaml');
const emptyDir = () => mkdtempSync(path.join(tmpdir(), 'parapet-example-'));

describe('parapet.example.yaml', () => {
  it('loads through the config loader and sets every setting to its default', () => {
    const cwd = emptyDir();
    expect(loadConfig({ env: { PARAPET_CONFIG: EXAMPLE }, cwd })).toEqual(loadConfig({ env: {}, cwd }));
  });

  it('names every setting of the schema, each with a comment above it', () => {
    const document = parseDocument(readFileSync(EXAMPLE, 'utf8'));
    expect(document.errors).toEqual([]);
    const contents = document.contents;
    if (!isMap(contents)) throw new Error('the example is not a mapping of settings');
    const keys = contents.items.map((pair) => (isScalar(pair.key) ? String(pair.key.value) : ''));
    expect([...keys].sort()).toEqual(Object.keys(ConfigSchema.properties).sort());
    // The first key's comment is the document's opening comment block, so it is held by the document.
    const uncommented = contents.items.filter((pair, index) => {
      const comment = index === 0 ? (document.commentBefore ?? '') + ((pair.key as { commentBefore?: string }).commentBefore ?? '') : (pair.key as { commentBefore?: string }).commentBefore;
      return comment === undefined || comment === null || comment.trim() === '';
    });
    expect(uncommented.map((pair) => String((pair.key as { value?: unknown }).value))).toEqual([]);
  });
});
