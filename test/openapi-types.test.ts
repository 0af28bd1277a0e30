// src/api/openapi.ts (the console's and the CLI's API types) matches the routes as they are: a route
// or schema change without `npm run openapi-types` fails here.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { ROOT } from './helpers/process.js';
import { openApiTypes } from './helpers/openapi-types.js';
import path from 'node:path';

it('src/api/openapi.ts is generated from the current routes', async () => {
  const stored = readFileSync(path.join(ROOT, 'src/api/openapi.ts'), 'utf8');
  expect(stored === (await openApiTypes()), 'src/api/openapi.ts is out of date: run `npm run openapi-types`').toBe(true);
});
