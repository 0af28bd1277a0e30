// eval_suites: evaluation suites with their cases, keyed by key; each case keyed by its own key
// within the suite. Applied through SuiteService: create, then add or replace each case by key. A
// suite's name, description and tags are set when it is created, and neither suites nor cases can
// be removed through the API. A case stored without a key is exported as `position-<n>`.
import { Type } from 'typebox';
import { Problem } from '../../../infra/http/problems.js';
import { checkCase, MAX_CASES } from '../../eval/suites/case-checks.js';
import { AddCaseBody, CASE_KEY_PATTERN, CreateSuiteBody } from '../../eval/suites/schemas.js';
import type { AddCaseBody as AddCase, CreateSuiteBody as CreateSuite } from '../../eval/suites/schemas.js';
import type { WorkspaceTargets } from './targets.js';
import { byKey, NO_DELETE, sortedStrings, touches, withoutEmpty, type Item, type ResourceKind } from './types.js';

const { key: _key, source: _source, ...caseFields } = AddCaseBody.properties;
const CaseItem = Type.Object(
  { key: Type.String({ pattern: CASE_KEY_PATTERN, maxLength: 128, description: 'the case key within the suite' }), ...caseFields },
  { additionalProperties: false },
);

export const EvalSuiteItem = Type.Object(
  {
    ...CreateSuiteBody.properties,
    cases: Type.Optional(Type.Array(CaseItem, { maxItems: MAX_CASES, description: 'added or replaced by key; a case left out is kept' })),
    comment: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);

const FIXED_AT_CREATION = ['name', 'description', 'tags'];

function caseContent(entry: Item): Item {
  return { input: entry.input, expected: entry.expected ?? {}, context: entry.context ?? {}, labels: sortedStrings(entry.labels ?? []), split: entry.split ?? 'test' };
}

export function evalSuitesKind(targets: WorkspaceTargets): ResourceKind {
  const suites = targets.evaluations.suites;
  const kind: ResourceKind = {
    name: 'eval_suites',
    itemSchema: EvalSuiteItem,
    description: 'evaluation suites with their cases, keyed by key',
    key: (item) => String(item.key),

    async current() {
      const { items } = await suites.list();
      const current: Item[] = [];
      for (const suite of items) {
        const detail = await suites.get(suite.key);
        const cases: Record<string, Item> = {};
        for (const entry of detail.cases) cases[entry.key ?? `position-${entry.position}`] = caseContent(entry);
        current.push(withoutEmpty({ key: suite.key, name: suite.name, description: suite.description, tags: sortedStrings(suite.tags), cases }));
      }
      return byKey(kind, current);
    },

    // Compared as a map by case key (paths cases.<key>.<field>); the document writes a list.
    normalise(item) {
      const normalised: Item = { ...item, name: item.name ?? item.key, description: item.description ?? null, tags: sortedStrings(item.tags ?? []) };
      if (Array.isArray(item.cases)) normalised.cases = Object.fromEntries((item.cases as Item[]).map((entry) => [String(entry.key), caseContent(entry)]));
      return normalised;
    },

    toDocument(item) {
      const cases = item.cases as Record<string, Item> | undefined;
      if (cases === undefined) return item;
      return { ...item, cases: Object.entries(cases).map(([key, entry]) => ({ key, ...entry })) };
    },

    check(item) {
      const problems: Array<{ field: string; message: string }> = [];
      const seen = new Set<string>();
      for (const [index, entry] of ((item.cases as Item[] | undefined) ?? []).entries()) {
        if (seen.has(String(entry.key))) problems.push({ field: `/cases/${index}/key`, message: `case key ${String(entry.key)} appears twice` });
        seen.add(String(entry.key));
        try {
          const { key: _caseKey, ...body } = entry;
          checkCase(body as AddCase);
        } catch (error) {
          if (!(error instanceof Problem)) throw error;
          for (const detail of error.errors ?? [{ field: '', message: error.detail }]) problems.push({ field: `/cases/${index}${detail.field.replace(/^\/body/, '')}`, message: detail.message });
        }
      }
      return problems;
    },

    blocked(change) {
      if (change.action === 'delete') return NO_DELETE('an evaluation suite', 'leave it in the document');
      if (change.action === 'create') return null;
      const fixed = touches(change.fields, FIXED_AT_CREATION);
      if (fixed.length > 0) return `${fixed.join(', ')} of a suite are set when it is created (no route changes them)`;
      const dropped = change.fields.filter((field) => field.to === null && field.path.split('.').length === 2).map((field) => field.path);
      return dropped.length === 0 ? null : `${dropped.join(', ')}: a case cannot be removed through the API`;
    },

    async apply(change, { caller }) {
      const desired = change.desired as Item;
      if (change.action === 'create') {
        await suites.create(caller, withoutEmpty({ key: desired.key, name: desired.name, description: desired.description, tags: desired.tags }) as CreateSuite);
      }
      const cases = (desired.cases ?? {}) as Record<string, Item>;
      for (const [key, entry] of Object.entries(cases)) {
        if (change.action === 'change' && touches(change.fields, [`cases.${key}`]).length === 0) continue;
        await suites.addCase(caller, change.key, { key, ...(entry as Omit<AddCase, 'key'>), source: 'file' });
      }
    },
  };
  return kind;
}
