// The labelled development sets in ../shared/datasets (see its README) and the scoring rule they
// come with: a case is a true positive when the detector reports at least one entity of the case's
// family (restricted to `scope` when the case has one); a benign case with such an entity is a
// false positive. `npm run bench` scores the full sets; the detector tests score the small
// fixtures kept in the repository (test/fixtures/datasets), so they pass on a bare clone.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../../infra/lib/package-root.js';
import type { Detection, Surface } from '../types.js';

export interface DatasetCase {
  id: string;
  text: string;
  label: 'injection' | 'pii' | 'secret' | 'benign';
  task: 'injection' | 'pii' | 'pii_ner' | 'secrets';
  surface: Surface;
  category: string;
  entities: string[];
  scope?: string[];
  spans?: Array<{ type: string; start: number; end: number }>;
  lang?: string;
}

/** The full development sets: ../shared/datasets beside the project root, or PARAPET_DATASETS. */
export const DATASET_DIR = process.env.PARAPET_DATASETS ?? path.resolve(PACKAGE_ROOT, '../shared/datasets');

/** Small subsets of the same files, kept in the repository for the tests (see its README). */
export const FIXTURE_DIR = path.join(PACKAGE_ROOT, 'test/fixtures/datasets');

export const DATASET_FILES = {
  injection: 'injection_cyberseceval.jsonl',
  injectionIndirect: 'injection_indirect_agent.jsonl',
  benignWildguard: 'benign_wildguard.jsonl',
  benignSelfInstruct: 'benign_selfinstruct_t0.jsonl',
  benignPersonas: 'benign_personas.jsonl',
  pii: 'pii_presidio_synth.jsonl',
  secrets: 'secrets_gitleaks.jsonl',
  secretsSecretlint: 'secrets_secretlint.jsonl',
} as const;

export function loadDataset(file: string, dir: string = DATASET_DIR): DatasetCase[] {
  const location = path.join(dir, file);
  if (!existsSync(location)) {
    throw new Error(`development dataset ${location} not found: check out shared/ beside the project or set PARAPET_DATASETS`);
  }
  return readFileSync(location, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as DatasetCase);
}

export interface Score {
  cases: number;
  positives: number;
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
  precision: number;
  recall: number;
  f1: number;
  /** False positives over benign cases. */
  falsePositiveRate: number;
}

/** Whether a detection counts for a case: the family prefix, restricted to `scope` when given. */
export function counts(detection: Detection, family: string, scope?: string[]): boolean {
  if (!detection.entity.startsWith(family)) return false;
  return scope === undefined || scope.length === 0 || scope.includes(detection.entity);
}

export function score(outcomes: Array<{ positive: boolean; flagged: boolean }>): Score {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let benign = 0;
  for (const { positive, flagged } of outcomes) {
    if (positive && flagged) tp += 1;
    else if (positive) fn += 1;
    else {
      benign += 1;
      if (flagged) fp += 1;
    }
  }
  const precision = tp + fp === 0 ? 1 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 1 : tp / (tp + fn);
  return {
    cases: outcomes.length,
    positives: tp + fn,
    truePositives: tp,
    falsePositives: fp,
    falseNegatives: fn,
    precision,
    recall,
    f1: precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall),
    falsePositiveRate: benign === 0 ? 0 : fp / benign,
  };
}
