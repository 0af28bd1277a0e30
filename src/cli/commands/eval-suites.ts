// parapet eval push <file.yaml>: an eval suite kept as a file in the team's repository, pushed
// through the HTTP API. The suite is created when missing and every case is upserted by its key
// (a case without one gets `file-<index>`, its 0-based place in the file), so pushing the same file
// twice replaces rather than duplicates. The whole file is checked before anything is sent: a bad
// file changes nothing and exits 1 with every problem found, each naming where it is.
import { readFileSync, statSync } from 'node:fs';
import type { Command } from 'commander';
import { Type, type Static } from 'typebox';
import Value from 'typebox/value';
import { isNode, LineCounter, parseDocument, type Document } from 'yaml';
import { yamlTooDeepAt } from '../../infra/lib/yaml-depth.js';
import { checkCase, MAX_CASES } from '../../areas/eval/suites/case-checks.js';
import { AddCaseBody, CreateSuiteBody } from '../../areas/eval/suites/schemas.js';
import { Problem } from '../../infra/http/problems.js';
import { ApiError, clientFor, withConnectionOptions, type ConnectionOptions } from '../client.js';

/** A suite file of 5000 cases of 64 KiB each is far past this; a larger file is a mistake. */
const MAX_FILE_BYTES = 16 * 1024 * 1024;
/** Cases nest 8 levels below a case; the suite and the case list add two more, and a little room. */
const MAX_YAML_DEPTH = 16;
/** Alias expansions the yaml package may make: enough for shared snippets, never a "billion laughs". */
const MAX_ALIAS_COUNT = 100;

const { source: _source, ...fileCaseProperties } = AddCaseBody.properties;
const FileCase = Type.Object(fileCaseProperties, { additionalProperties: false });
const SuiteFile = Type.Object(
  {
    ...CreateSuiteBody.properties,
    cases: Type.Array(FileCase, { maxItems: MAX_CASES }),
  },
  { additionalProperties: false },
);
type SuiteFile = Static<typeof SuiteFile>;

/** A suite file that cannot be pushed, with every problem found. */
export class SuiteFileInvalid extends Error {
  override name = 'SuiteFileInvalid';
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`${file} is not a valid suite file:\n${problems.map((line) => `  ${line}`).join('\n')}`);
  }
}

/** Reads and checks a suite file; throws SuiteFileInvalid naming each problem and its line. */
export function readSuiteFile(file: string): SuiteFile {
  let text: string;
  try {
    if (statSync(file).size > MAX_FILE_BYTES) throw new SuiteFileInvalid(file, [`larger than ${MAX_FILE_BYTES} bytes`]);
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof SuiteFileInvalid) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new SuiteFileInvalid(file, [code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (error as Error).message]);
  }
  const depthLines = new LineCounter();
  const deep = yamlTooDeepAt(text, MAX_YAML_DEPTH, depthLines);
  if (deep !== null) throw new SuiteFileInvalid(file, [`${at(file, depthLines, deep)}: maps and lists nest deeper than ${MAX_YAML_DEPTH} levels`]);
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines });
  if (document.errors.length > 0) {
    throw new SuiteFileInvalid(
      file,
      document.errors.map((error) => `${file}:${error.linePos?.[0]?.line ?? '?'}: ${(error.message.split('\n')[0] ?? 'invalid YAML').trim()}`),
    );
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    // The yaml package throws a ReferenceError when aliases expand past the budget.
    if (!(error instanceof ReferenceError)) throw error;
    throw new SuiteFileInvalid(file, [`aliases expand more than ${MAX_ALIAS_COUNT} times`]);
  }
  const schemaErrors = [...Value.Errors(SuiteFile, value)];
  if (schemaErrors.length > 0) {
    throw new SuiteFileInvalid(
      file,
      schemaErrors.slice(0, 20).map((error) => `${pointerAt(file, document, lines, error.instancePath)}: ${error.instancePath || '/'}: ${error.message}`),
    );
  }
  const suite = value as SuiteFile;
  const problems: string[] = [];
  const seen = new Map<string, number>();
  suite.cases.forEach((item, index) => {
    const key = caseKey(item, index);
    const where = pointerAt(file, document, lines, `/cases/${index}`);
    const first = seen.get(key);
    if (first !== undefined) problems.push(`${where}: /cases/${index}: case key ${key} is also the key of /cases/${first}`);
    seen.set(key, index);
    try {
      checkCase(item);
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      const details = error.errors ?? [{ field: '', message: error.detail }];
      for (const detail of details) problems.push(`${where}: /cases/${index}${detail.field.replace(/^\/body/, '')}: ${detail.message}`);
    }
  });
  if (problems.length > 0) throw new SuiteFileInvalid(file, problems);
  return suite;
}

export function registerEvalSuiteCommands(evalCommand: Command): void {
  withConnectionOptions(
    evalCommand
      .command('push')
      .description('create an eval suite from a YAML suite file if missing, and add or replace each of its cases by key')
      .argument('<file>', 'suite file: key, name, description, tags, cases: [{ key, input, expected, context, labels, split }]'),
  ).action(async (file: string, options: ConnectionOptions) => {
    let suite: SuiteFile;
    try {
      suite = readSuiteFile(file);
    } catch (error) {
      if (!(error instanceof SuiteFileInvalid)) throw error;
      process.stderr.write(`parapet: ${error.message}\n`);
      process.exitCode = 1;
      return;
    }
    try {
      await pushSuite(suite, options);
    } catch (error) {
      // fetch says only "fetch failed"; the reason (refused, unknown host) is its cause.
      const cause = (error as Error).cause;
      if (!(error instanceof ApiError) && cause instanceof Error) throw new Error(`cannot reach the gateway: ${cause.message}`);
      throw error;
    }
  });
}

async function pushSuite(suite: SuiteFile, options: ConnectionOptions): Promise<void> {
  const client = clientFor(options);
  const key = encodeURIComponent(suite.key);
  const existing = await client.request('GET', `/api/eval/suites/${key}`).then(
    async (response) => {
      await response.body?.cancel();
      return true;
    },
    (error: unknown) => {
      if (error instanceof ApiError && error.status === 404) return false;
      throw error;
    },
  );
  if (!existing) {
    await client.json('POST', '/api/eval/suites', {
      key: suite.key,
      ...(suite.name === undefined ? {} : { name: suite.name }),
      ...(suite.description === undefined ? {} : { description: suite.description }),
      ...(suite.tags === undefined ? {} : { tags: suite.tags }),
    });
    process.stdout.write(`created suite ${suite.key}\n`);
  }
  let added = 0;
  let replaced = 0;
  for (const [index, item] of suite.cases.entries()) {
    const body = { ...item, key: caseKey(item, index), source: 'file' };
    let response: Response;
    try {
      response = await client.request('POST', `/api/eval/suites/${key}/cases`, body);
    } catch (error) {
      // Say which case failed and what went in before it: a rerun replaces those by key.
      if (error instanceof ApiError) error.message = `case ${body.key} (/cases/${index}): ${error.message} (${added} added and ${replaced} replaced before it)`;
      throw error;
    }
    await response.body?.cancel();
    if (response.status === 201) added += 1;
    else replaced += 1;
  }
  process.stdout.write(`suite ${suite.key}: ${suite.cases.length} cases (${added} added, ${replaced} replaced)\n`);
}

function caseKey(item: { key?: string | undefined }, index: number): string {
  return item.key ?? `file-${index}`;
}

function at(file: string, lines: LineCounter, offset: number): string {
  return `${file}:${lines.linePos(offset).line}`;
}

/** `file:line` of the node at a JSON pointer (its nearest existing parent when it is missing). */
function pointerAt(file: string, document: Document, lines: LineCounter, pointer: string): string {
  const path = pointer
    .split('/')
    .slice(1)
    .map((step) => step.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((step) => (/^\d+$/.test(step) ? Number(step) : step));
  for (let depth = path.length; depth >= 0; depth -= 1) {
    const node: unknown = depth === 0 ? document.contents : document.getIn(path.slice(0, depth), true);
    if (isNode(node) && node.range !== undefined && node.range !== null) return at(file, lines, node.range[0]);
  }
  return file;
}

