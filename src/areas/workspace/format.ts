// Reading and writing workspace documents. A source is one YAML or JSON document, or a directory of
// them (file name → text) merged into one: each kind's lists joined in file-name order. Read with
// limits before anything is composed (size, nesting depth, alias expansions), then checked against
// the document's schema; every problem names its file and field. Writing is plain YAML.
import Value from 'typebox/value';
import { Document, LineCounter, parseDocument } from 'yaml';
import { problem, type FieldError } from '../../infra/http/problems.js';
import { storableValue } from '../../infra/lib/storable-text.js';
import { yamlTooDeepAt } from '../../infra/lib/yaml-depth.js';
import { API_VERSION, KIND_NAMES, MAX_SOURCE_CHARS, WorkspaceDocument, type KindName, type WorkspaceSource } from './schemas.js';
import type { Item } from './kinds/types.js';

/** Nesting the composer may see: the document, a list, an item and what an item nests (policy text is a string). */
export const MAX_DEPTH = 64;
/** Alias expansions one document may make: shared snippets, never a "billion laughs". */
export const MAX_ALIAS_COUNT = 100;
/** Schema problems reported at once: enough to fix a file, bounded for a hostile one. */
const MAX_PROBLEMS = 50;

/** One item of the merged document, with the file and place it came from (for messages). */
export interface SourcedItem {
  item: Item;
  /** `/agents/0` within `file`. */
  at: string;
  file: string | null;
}

export interface ReadWorkspace {
  /** The kinds listed by at least one file, in document order, with their items. */
  kinds: Map<KindName, SourcedItem[]>;
  prune: boolean;
  files: string[];
}

/** Where a problem is: `/source/agents/0/slug`, or `/source/files/<name>/agents/0/slug`. */
function fieldOf(file: string | null, pointer: string): string {
  return file === null ? `/body/source${pointer}` : `/body/source/files/${file.replaceAll('~', '~0').replaceAll('/', '~1')}${pointer}`;
}

function parseText(file: string | null, text: string): unknown {
  const name = file ?? 'the document';
  const lines = new LineCounter();
  const deep = yamlTooDeepAt(text, MAX_DEPTH, lines);
  if (deep !== null) {
    throw problem('invalid-request', `${name}: maps and lists nest deeper than ${MAX_DEPTH} levels (line ${lines.linePos(deep).line})`, [
      { field: fieldOf(file, ''), message: `nested deeper than ${MAX_DEPTH} levels` },
    ]);
  }
  const document = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  if (document.errors.length > 0) {
    const errors = document.errors.slice(0, 10).map((error) => ({ field: fieldOf(file, ''), message: (error.message.split('\n')[0] ?? 'invalid YAML').trim() }));
    throw problem('invalid-request', `${name} is not valid YAML or JSON: ${errors[0]?.message ?? ''}`, errors);
  }
  try {
    // NUL and lone surrogates never reach a store: every text is made storable here, once.
    return storableValue(document.toJS({ maxAliasCount: MAX_ALIAS_COUNT }));
  } catch (error) {
    // The yaml package throws a ReferenceError when aliases expand past the budget.
    if (!(error instanceof ReferenceError)) throw error;
    throw problem('invalid-request', `${name}: aliases expand more than ${MAX_ALIAS_COUNT} times`, [{ field: fieldOf(file, ''), message: 'too many alias expansions' }]);
  }
}

function checkShape(file: string | null, value: unknown): Record<string, unknown> {
  if (Value.Check(WorkspaceDocument, value)) return value as Record<string, unknown>;
  const errors: FieldError[] = [];
  for (const error of Value.Errors(WorkspaceDocument, value)) {
    errors.push({ field: fieldOf(file, error.instancePath), message: error.message });
    if (errors.length >= MAX_PROBLEMS) break;
  }
  const first = errors[0];
  const hint = typeof value === 'object' && value !== null && (value as Record<string, unknown>).apiVersion !== API_VERSION ? ` (apiVersion must be ${API_VERSION}, kind Workspace)` : '';
  throw problem('invalid-request', `${file ?? 'the document'} is not a workspace document${hint}: ${first === undefined ? '' : `${first.field} ${first.message}`}`, errors);
}

/** Reads a source into one document: 400 naming the file and field of every problem found, changing nothing. */
export function readWorkspace(source: WorkspaceSource): ReadWorkspace {
  const texts: Array<[string | null, string]> = typeof source === 'string' ? [[null, source]] : Object.entries(source.files).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const total = texts.reduce((sum, [, text]) => sum + text.length, 0);
  if (total > MAX_SOURCE_CHARS) {
    throw problem('refused', `the documents hold ${total} characters together; at most ${MAX_SOURCE_CHARS}`, [{ field: '/body/source', message: `at most ${MAX_SOURCE_CHARS} characters in all` }]);
  }
  const kinds = new Map<KindName, SourcedItem[]>();
  let prune = true;
  for (const [file, text] of texts) {
    const document = checkShape(file, parseText(file, text));
    if (document.prune === false) prune = false;
    for (const name of KIND_NAMES) {
      const list = document[name];
      if (!Array.isArray(list)) continue;
      const items = kinds.get(name) ?? [];
      list.forEach((item, index) => items.push({ item: item as Item, at: `/${name}/${index}`, file }));
      kinds.set(name, items);
    }
  }
  // In document order, whatever order the files gave.
  const ordered = new Map<KindName, SourcedItem[]>();
  for (const name of KIND_NAMES) {
    const items = kinds.get(name);
    if (items !== undefined) ordered.set(name, items);
  }
  return { kinds: ordered, prune, files: texts.map(([file]) => file ?? '(document)') };
}

/** The field a problem of one item is reported under. */
export function itemField(sourced: SourcedItem, pointer = ''): string {
  return fieldOf(sourced.file, `${sourced.at}${pointer}`);
}

/** The document as YAML: no anchors (shared values are written out), long lines kept whole. */
export function toYaml(document: Record<string, unknown>): string {
  return new Document(document, { aliasDuplicateObjects: false }).toString({ lineWidth: 0 });
}
