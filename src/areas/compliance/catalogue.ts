// Reads the control catalogue from its folder (catalogue/ in the package by default): controls.yaml,
// frameworks/<key>.yaml and obligations.yaml, each checked against its TypeBox shape; the sha256
// over the files (in name order) tells one catalogue from another.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { TSchema } from 'typebox';
import Value from 'typebox/value';
import { parse } from 'yaml';
import { METRICS } from './metrics.js';
import { ControlsFile, FrameworkFile, ObligationsFile, type ControlDefinition, type Framework } from './schemas.js';

export interface Catalogue {
  sha256: string;
  fileVersion: number;
  controls: ControlDefinition[];
  frameworks: Framework[];
  obligations: ObligationsFile['obligations'];
}

export class CatalogueError extends Error {}

function readChecked<T>(file: string, schema: TSchema): { value: T; text: string } {
  const text = readFileSync(file, 'utf8');
  const value: unknown = parse(text);
  const errors = [...Value.Errors(schema, value)].slice(0, 5).map((error) => `${error.instancePath || '/'} ${error.message}`);
  if (errors.length > 0) throw new CatalogueError(`${file}: ${errors.join('; ')}`);
  return { value: value as T, text };
}

export function loadCatalogue(dir: string): Catalogue {
  const hash = createHash('sha256');
  const controlsFile = readChecked<{ version: number; controls: ControlDefinition[] }>(path.join(dir, 'controls.yaml'), ControlsFile);
  hash.update('controls.yaml\0').update(controlsFile.text);
  const keys = new Set<string>();
  for (const control of controlsFile.value.controls) {
    if (keys.has(control.key)) throw new CatalogueError(`controls.yaml: control ${control.key} appears twice`);
    if (!(control.metric in METRICS)) throw new CatalogueError(`controls.yaml: control ${control.key} names unknown metric ${control.metric}`);
    keys.add(control.key);
  }
  const frameworks: Framework[] = [];
  const frameworkDir = path.join(dir, 'frameworks');
  for (const name of readdirSync(frameworkDir).filter((file) => file.endsWith('.yaml')).sort()) {
    const { value, text } = readChecked<Framework>(path.join(frameworkDir, name), FrameworkFile);
    hash.update(`frameworks/${name}\0`).update(text);
    for (const clause of value.clauses) {
      const unknown = clause.controls.filter((key) => !keys.has(key));
      if (unknown.length > 0) throw new CatalogueError(`frameworks/${name}: ${clause.ref} maps unknown controls ${unknown.join(', ')}`);
    }
    frameworks.push(value);
  }
  const obligations = readChecked<ObligationsFile>(path.join(dir, 'obligations.yaml'), ObligationsFile);
  hash.update('obligations.yaml\0').update(obligations.text);
  return {
    sha256: hash.digest('hex'),
    fileVersion: controlsFile.value.version,
    controls: controlsFile.value.controls,
    frameworks,
    obligations: obligations.value.obligations,
  };
}
