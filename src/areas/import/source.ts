// Reading an import source: YAML or JSON text (≤ 1 MiB in all), or several named files for tools
// whose configuration is a folder (NeMo Guardrails). Parsed with limits before anything is composed:
// nesting depth (checked on the syntax tree without recursion), alias expansions, then every string
// made storable. A text that is not YAML is a 400; a document of the wrong shape a 422.
import { Buffer } from 'node:buffer';
import { LineCounter, parseDocument } from 'yaml';
import { problem } from '../../infra/http/problems.js';
import { storableValue } from '../../infra/lib/storable-text.js';
import { yamlTooDeepAt } from '../../infra/lib/yaml-depth.js';
import { isRecord, TOOLS, type Json, type ToolName, type ToolPlan } from './tools/common.js';
import { mapLitellm } from './tools/litellm.js';
import { mapLlmGuard } from './tools/llm-guard.js';
import { mapNemo, type NemoSource } from './tools/nemo-guardrails.js';
import { mapPortkey } from './tools/portkey.js';
import { mapPromptfoo } from './tools/promptfoo.js';

export const MAX_SOURCE_BYTES = 1_048_576;
export const MAX_YAML_DEPTH = 64;
/** Anchors in configuration files are reused a few times; a bomb expands thousands. */
export const MAX_ALIAS_COUNT = 50;
export const MAX_FILES = 50;

export type ImportSource = string | { files: Record<string, string> };

export function isTool(name: string): name is ToolName {
  return (TOOLS as readonly string[]).includes(name);
}

/** One YAML or JSON text to a plain value; 400 with the line when it is not one. */
export function parseText(text: string, label: string): unknown {
  const depthLines = new LineCounter();
  const deep = yamlTooDeepAt(text, MAX_YAML_DEPTH, depthLines);
  if (deep !== null) {
    const { line } = depthLines.linePos(deep);
    throw problem('invalid-request', `${label}: the YAML nests maps and lists deeper than ${MAX_YAML_DEPTH} levels (line ${line})`, [{ field: '/body/source', message: `deeper than ${MAX_YAML_DEPTH} levels` }]);
  }
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: true });
  const error = document.errors[0];
  if (error !== undefined) {
    const line = error.linePos?.[0]?.line;
    throw problem('invalid-request', `${label} is not valid YAML or JSON${line === undefined ? '' : ` (line ${line})`}: ${error.message.split('\n', 1)[0] ?? ''}`.slice(0, 500), [{ field: '/body/source', message: 'not valid YAML or JSON' }]);
  }
  try {
    return storableValue(document.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as unknown);
  } catch (cause) {
    // The yaml package throws a ReferenceError when aliases expand past the budget.
    if (!(cause instanceof ReferenceError)) throw cause;
    throw problem('invalid-request', `${label}: the YAML's aliases expand too far (more than ${MAX_ALIAS_COUNT} alias expansions)`, [{ field: '/body/source', message: 'too many alias expansions' }]);
  }
}

function configOf(value: unknown, label: string): Json {
  if (!isRecord(value)) throw problem('refused', `${label}: expected a mapping at the top of the file`, [{ field: '/body/source', message: 'expected a mapping' }]);
  return value;
}

/** A relative file name: segments of letters, digits, `.`, `_`, `-`, no `..`. */
function checkFileName(name: string): void {
  const segments = name.split('/');
  const fine = name.length > 0 && name.length <= 200 && segments.every((segment) => segment !== '' && segment !== '.' && segment !== '..' && [...segment].every((char) => /[A-Za-z0-9._-]/.test(char)));
  if (!fine) throw problem('invalid-request', `file name ${JSON.stringify(name.slice(0, 100))} is not a relative path of letters, digits, ., _ and -`, [{ field: '/body/source/files', message: 'bad file name' }]);
}

function sizeCheck(texts: readonly string[]): void {
  let bytes = 0;
  for (const text of texts) bytes += Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_SOURCE_BYTES) {
    throw problem('invalid-request', `the source is ${bytes} bytes; at most ${MAX_SOURCE_BYTES} (1 MiB) in all`, [{ field: '/body/source', message: `at most ${MAX_SOURCE_BYTES} bytes` }]);
  }
}

const isYamlName = (name: string) => name.endsWith('.yml') || name.endsWith('.yaml') || name.endsWith('.json');

/** The source read and mapped onto Parapet: the tool's plan (nothing stored). */
export function planSource(tool: ToolName, source: ImportSource): ToolPlan {
  if (typeof source === 'string') {
    sizeCheck([source]);
    if (tool === 'nemo-guardrails') return mapNemo({ config: configOf(parseText(source, 'config.yml'), 'config.yml'), yaml: [], colang: [] });
    return mapOne(tool, configOf(parseText(source, 'the source'), 'the source'));
  }
  const entries = Object.entries(source.files);
  if (entries.length === 0 || entries.length > MAX_FILES) throw problem('invalid-request', `files names 1 to ${MAX_FILES} files`, [{ field: '/body/source/files', message: `1 to ${MAX_FILES} files` }]);
  for (const [name, text] of entries) {
    checkFileName(name);
    if (typeof text !== 'string') throw problem('invalid-request', `file ${name}: expected its text`, [{ field: '/body/source/files', message: 'each file is a string' }]);
  }
  sizeCheck(entries.map(([, text]) => text));
  if (tool !== 'nemo-guardrails') {
    if (entries.length !== 1) throw problem('refused', `a ${tool} configuration is one file; give it as source (text) or as files with one entry`, [{ field: '/body/source/files', message: 'one file' }]);
    const [name, text] = entries[0] as [string, string];
    return mapOne(tool, configOf(parseText(text, name), name));
  }
  const configEntry = entries.find(([name]) => name === 'config.yml' || name === 'config.yaml');
  if (configEntry === undefined) throw problem('refused', 'a NeMo Guardrails configuration needs config.yml among its files', [{ field: '/body/source/files', message: 'config.yml is missing' }]);
  const nemo: NemoSource = { config: configOf(parseText(configEntry[1], configEntry[0]), configEntry[0]), yaml: [], colang: [] };
  for (const [name, text] of entries) {
    if (name === configEntry[0]) continue;
    if (name.endsWith('.co')) nemo.colang.push({ name, text });
    else if (isYamlName(name)) nemo.yaml.push({ name, value: configOf(parseText(text, name), name) });
    else throw problem('refused', `file ${name}: a NeMo Guardrails configuration holds .yml, .yaml and .co files`, [{ field: '/body/source/files', message: `unexpected file ${name.slice(0, 100)}` }]);
  }
  nemo.yaml.sort((a, b) => a.name.localeCompare(b.name));
  nemo.colang.sort((a, b) => a.name.localeCompare(b.name));
  return mapNemo(nemo);
}

function mapOne(tool: Exclude<ToolName, 'nemo-guardrails'>, config: Json): ToolPlan {
  switch (tool) {
    case 'litellm':
      return mapLitellm(config);
    case 'portkey':
      return mapPortkey(config);
    case 'llm-guard':
      return mapLlmGuard(config);
    case 'promptfoo':
      return mapPromptfoo(config);
  }
}
