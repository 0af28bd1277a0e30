// The OpenAPI fuzz walker: reads /openapi.json and sends every documented route malformed JSON,
// wrong types, missing fields, unknown ids, oversized bodies and wrong content types. Routes added
// by later work are picked up by themselves. Only invalid requests are sent, so no case can make
// a legitimate change (a valid logout would revoke the walker's own token).

export interface OpenApiSchema {
  type?: string | string[];
  properties?: Record<string, OpenApiSchema>;
  required?: string[];
  anyOf?: OpenApiSchema[];
  oneOf?: OpenApiSchema[];
  allOf?: OpenApiSchema[];
  enum?: unknown[];
  const?: unknown;
  $ref?: string;
  additionalProperties?: boolean | OpenApiSchema;
  'x-body-limit'?: number;
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: OpenApiSchema;
}

export interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: OpenApiSchema }> };
  responses?: Record<string, { content?: Record<string, { schema?: OpenApiSchema }> }>;
  security?: Array<Record<string, string[]>>;
}

export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, OpenApiSchema> };
}

export interface FuzzCase {
  route: string;
  name: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Statuses that count as a right answer; any other 4xx is reported, any 5xx always fails. */
  expect: number[];
}

export const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const UNKNOWN_ID = 'zz_00000000000000000000000000';

export function operations(document: OpenApiDocument): Array<{ method: string; path: string; operation: Operation }> {
  const list: Array<{ method: string; path: string; operation: Operation }> = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation !== undefined) list.push({ method: method.toUpperCase(), path, operation });
    }
  }
  return list;
}

export function resolve(document: OpenApiDocument, schema: OpenApiSchema | undefined): OpenApiSchema | undefined {
  if (schema?.$ref === undefined) return schema;
  const name = schema.$ref.split('/').at(-1) ?? '';
  return resolve(document, document.components?.schemas?.[name]);
}

/** The JSON types a schema admits (empty when it admits anything). */
function admittedTypes(document: OpenApiDocument, raw: OpenApiSchema | undefined): Set<string> {
  const schema = resolve(document, raw);
  if (schema === undefined) return new Set();
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives !== undefined) {
    const union = new Set<string>();
    for (const alternative of alternatives) {
      const types = admittedTypes(document, alternative);
      if (types.size === 0) return new Set();
      for (const type of types) union.add(type);
    }
    return union;
  }
  if (schema.type === undefined) {
    if (schema.const !== undefined) return new Set([typeof schema.const === 'number' ? 'number' : typeof schema.const]);
    return new Set();
  }
  const types = new Set(Array.isArray(schema.type) ? schema.type : [schema.type]);
  if (types.has('integer')) types.add('number');
  if (types.has('number')) types.add('integer');
  return types;
}

const SAMPLES: Array<[string, unknown]> = [
  ['string', 'not-the-right-type'],
  ['integer', 12345],
  ['number', 1.5],
  ['boolean', true],
  ['array', ['x']],
  ['object', { x: 1 }],
  ['null', null],
];

/** A value of a JSON type the schema does not admit, or undefined when it admits anything. */
export function wrongValue(document: OpenApiDocument, schema: OpenApiSchema | undefined): unknown {
  const admitted = admittedTypes(document, schema);
  if (admitted.size === 0) return undefined;
  return SAMPLES.find(([type]) => !admitted.has(type))?.[1];
}

function bodySchema(document: OpenApiDocument, operation: Operation): OpenApiSchema | undefined {
  return resolve(document, operation.requestBody?.content?.['application/json']?.schema);
}

function concretePath(path: string, id: string): string {
  return path.replace(/\{[^}]+\}/g, id);
}

/** Every bad request the walker sends to one operation. */
export function casesFor(
  document: OpenApiDocument,
  method: string,
  path: string,
  operation: Operation,
  options: { credential: string | null; bodyLimit: number },
): FuzzCase[] {
  const route = `${method} ${path}`;
  const auth: Record<string, string> = options.credential === null ? {} : { authorization: `Bearer ${options.credential}` };
  const hasPathParams = path.includes('{');
  const target = concretePath(path, UNKNOWN_ID);
  const json = { ...auth, 'content-type': 'application/json' };
  const cases: FuzzCase[] = [];
  const add = (name: string, spec: Omit<FuzzCase, 'route' | 'name' | 'method'>) => cases.push({ route, name, method, ...spec });

  const schema = bodySchema(document, operation);
  const takesBody = method !== 'GET' && method !== 'DELETE';
  if (takesBody) {
    add('malformed JSON', { path: target, headers: json, body: '{"unterminated": ', expect: [400] });
    add('JSON that is not an object', { path: target, headers: json, body: '["an", "array"]', expect: [400] });
    add('wrong content type', { path: target, headers: { ...auth, 'content-type': 'application/xml' }, body: '<a/>', expect: [415] });
    add('form content type', { path: target, headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=b', expect: [415] });
    const limit = schema?.['x-body-limit'] ?? options.bodyLimit;
    const oversized = JSON.stringify({ padding: 'x'.repeat(limit + 1024) });
    add('oversized body', { path: target, headers: json, body: oversized, expect: [413] });
  }
  if (schema !== undefined) {
    for (const [field, fieldSchema] of Object.entries(schema.properties ?? {})) {
      const wrong = wrongValue(document, fieldSchema);
      if (wrong === undefined) continue;
      add(`wrong type for body field ${field}`, { path: target, headers: json, body: JSON.stringify({ [field]: wrong }), expect: [400] });
    }
    if ((schema.required ?? []).length > 0) {
      add('missing required fields', { path: target, headers: json, body: '{}', expect: [400] });
    }
    if (schema.additionalProperties === false) {
      add('unknown body field', { path: target, headers: json, body: JSON.stringify({ surely_not_a_field: 1 }), expect: [400] });
    }
  }
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in !== 'query') continue;
    const wrong = wrongValue(document, parameter.schema);
    if (wrong === undefined || typeof wrong === 'string') continue;
    // Query values are text: a word where a number or boolean belongs is the wrong type.
    const admitted = admittedTypes(document, parameter.schema);
    if (admitted.has('string')) continue;
    const query = `${parameter.name}=not-a-${[...admitted][0] ?? 'value'}`;
    add(`wrong type for query ${parameter.name}`, {
      path: `${target}?${query}`,
      headers: takesBody ? json : auth,
      body: takesBody ? '{}' : undefined,
      expect: [400, ...(hasPathParams ? [404] : [])],
    });
  }
  if (hasPathParams) {
    add('unknown id', { path: target, headers: takesBody ? json : auth, body: takesBody ? '{}' : undefined, expect: [400, 404] });
    add('oversized id', {
      path: concretePath(path, 'x'.repeat(600)),
      headers: takesBody ? json : auth,
      body: takesBody ? '{}' : undefined,
      expect: [400, 404, 414],
    });
  }
  const security = operation.security ?? [];
  // An empty requirement object means the credential is optional (GET /health).
  if (security.length > 0 && !security.some((requirement) => Object.keys(requirement).length === 0)) {
    add('no credential', { path: target, headers: { 'content-type': 'application/json' }, body: takesBody ? '{}' : undefined, expect: [401] });
    add('unknown credential', {
      path: target,
      headers: { ...json, authorization: 'Bearer ppt_op_this-token-does-not-exist' },
      body: takesBody ? '{}' : undefined,
      expect: [401],
    });
  }
  return cases;
}
