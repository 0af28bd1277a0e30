// Reads a policy pack from YAML text and checks it against the pack schema. Errors name the field
// and, for YAML syntax errors, the line and column. No HTTP, no storage here.
import Value from 'typebox/value';
import { parseDocument } from 'yaml';
import { PackSchema, type Pack } from './schema.js';

export interface PackError {
  path: string;
  message: string;
  line?: number;
  column?: number;
}

export class PackInvalid extends Error {
  override name = 'PackInvalid';
  constructor(readonly errors: PackError[]) {
    super(errors.map((error) => `${error.path || '/'}: ${error.message}`).join('; '));
  }
}

export function parsePack(text: string): Pack {
  const document = parseDocument(text, { prettyErrors: true });
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
  const value: unknown = document.toJS();
  const errors = [...Value.Errors(PackSchema, value)].map((error) => ({ path: error.instancePath, message: error.message }));
  if (errors.length > 0) throw new PackInvalid(errors);
  const pack = value as Pack;
  const seen = new Set<string>();
  for (const rule of pack.rules) {
    if (seen.has(rule.id)) throw new PackInvalid([{ path: '/rules', message: `rule ${rule.id} appears twice` }]);
    seen.add(rule.id);
  }
  return pack;
}
