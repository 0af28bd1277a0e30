// schemas/workspace.v1.json is the JSON Schema of the workspace document, generated from the
// TypeBox schema: this test fails while the file is not current. To regenerate it:
//   UPDATE_WORKSPACE_SCHEMA=1 npx vitest run src/areas/workspace/json-schema.test.ts
// The sample workspace in examples/workspace/ is read as a directory the way plan and apply read one.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import Value from 'typebox/value';
import { ROOT } from '../../../test/helpers/process.js';
import { readWorkspace } from './format.js';
import { KIND_NAMES, WorkspaceDocument, workspaceJsonSchema } from './schemas.js';

const SCHEMA_FILE = path.join(ROOT, 'schemas', 'workspace.v1.json');
const EXAMPLES = path.join(ROOT, 'examples', 'workspace');

describe('the workspace document schema', () => {
  it('is current in schemas/workspace.v1.json', () => {
    const generated = `${JSON.stringify(workspaceJsonSchema(), null, 2)}\n`;
    if (process.env.UPDATE_WORKSPACE_SCHEMA === '1') writeFileSync(SCHEMA_FILE, generated);
    expect(readFileSync(SCHEMA_FILE, 'utf8'), 'regenerate: UPDATE_WORKSPACE_SCHEMA=1 npx vitest run src/areas/workspace/json-schema.test.ts').toBe(generated);
    const schema = JSON.parse(generated) as { properties: Record<string, unknown>; additionalProperties: boolean };
    expect(Object.keys(schema.properties)).toEqual(['apiVersion', 'kind', 'prune', 'comment', ...KIND_NAMES]);
    expect(schema.additionalProperties).toBe(false);
  });

  it('accepts the sample workspace, every kind listed once', () => {
    const files = Object.fromEntries(readdirSync(EXAMPLES).filter((name) => name.endsWith('.yaml')).map((name) => [name, readFileSync(path.join(EXAMPLES, name), 'utf8')]));
    for (const [name, text] of Object.entries(files)) expect(Value.Check(WorkspaceDocument, parse(text)), name).toBe(true);
    const read = readWorkspace({ files });
    expect([...read.kinds.keys()]).toEqual(KIND_NAMES);
    expect(read.prune).toBe(true);
  });
});
