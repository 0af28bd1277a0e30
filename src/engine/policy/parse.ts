// Reads a policy pack from YAML text and checks it against the pack schema. Errors name the field
// and the line and column in the text (YAML syntax errors and schema errors alike). No HTTP, no
// storage here.
import Value from 'typebox/value';
import { isNode, LineCounter, parseDocument, type Document } from 'yaml';
import { yamlTooDeepAt } from '../../infra/lib/yaml-depth.js';
import { PackTextSchema, type Pack } from './schema.js';

/**
 * How deep maps and lists may nest in policy text. A pack needs about five levels; the YAML
 * composer recurses per level and overflows the stack a few hundred levels down.
 */
export const MAX_YAML_DEPTH = 64;
/**
 * The alias budget handed to the yaml package (its default, said out loud): it counts alias
 * expansions so that a few anchors referring to each other ("billion laughs") cannot expand into
 * gigabytes.
 */
const MAX_ALIAS_COUNT = 100;

export interface PackError {
  path: string;
  message: string;
  line?: number;
  column?: number;
}

export class PackInvalid extends Error {
  override name = 'PackInvalid';
  constructor(readonly errors: PackError[]) {
    super(errors.map((error) => `${error.path || '/'}${error.line === undefined ? '' : ` (line ${error.line}, column ${error.column})`}: ${error.message}`).join('; '));
  }
}

/** Line and column (1-based) of the node at a JSON pointer; an unknown or missing key points at its parent. */
function position(document: Document, lines: LineCounter, pointer: string): { line?: number; column?: number } {
  const path = pointer
    .split('/')
    .slice(1)
    .map((step) => step.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((step) => (/^\d+$/.test(step) ? Number(step) : step));
  for (let depth = path.length; depth >= 0; depth -= 1) {
    const node: unknown = depth === 0 ? document.contents : document.getIn(path.slice(0, depth), true);
    if (isNode(node) && node.range !== undefined && node.range !== null) {
      const { line, col } = lines.linePos(node.range[0]);
      return { line, column: col };
    }
  }
  return {};
}

export function parsePack(text: string): Pack {
  const depthLines = new LineCounter();
  const deep = yamlTooDeepAt(text, MAX_YAML_DEPTH, depthLines);
  if (deep !== null) {
    const { line, col } = depthLines.linePos(deep);
    throw new PackInvalid([{ path: '', message: `the YAML nests maps and lists deeper than ${MAX_YAML_DEPTH} levels`, line, column: col }]);
  }
  const lines = new LineCounter();
  const document = parseDocument(text, { prettyErrors: true, lineCounter: lines });
  if (document.errors.length > 0) {
    throw new PackInvalid(
      document.errors.map((error) => ({
        path: '',
        message: error.message.split('\n')[0] ?? 'invalid YAML',
        line: error.linePos?.[0]?.line,
        column: error.linePos?.[0]?.col,
      })),
    );
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    // The yaml package throws a ReferenceError when aliases expand past the budget.
    if (!(error instanceof ReferenceError)) throw error;
    throw new PackInvalid([{ path: '', message: `the YAML's aliases expand beyond what a policy needs (more than ${MAX_ALIAS_COUNT} alias expansions)` }]);
  }
  const errors = [...Value.Errors(PackTextSchema, value)].map((error) => ({
    path: error.instancePath,
    message: error.message,
    ...position(document, lines, error.instancePath),
  }));
  if (errors.length > 0) throw new PackInvalid(errors);
  const written = value as Omit<Pack, 'version' | 'mode'> & Partial<Pick<Pack, 'version' | 'mode'>>;
  const pack: Pack = { ...written, version: written.version ?? 1, mode: written.mode ?? 'observe' };
  const seen = new Set<string>();
  pack.rules.forEach((rule, index) => {
    if (seen.has(rule.id)) throw new PackInvalid([{ path: `/rules/${index}/id`, message: `rule ${rule.id} appears twice`, ...position(document, lines, `/rules/${index}/id`) }]);
    seen.add(rule.id);
  });
  return pack;
}
