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

// ---------------------------------------------------------------------------------------------
// Hostile values: requests that are valid in shape but carry text the gateway must survive. A
// body is built from each schema's required fields (so the request reaches the route's code, not
// only validation), then one string place at a time is replaced by a hostile string. Such a request
// may be accepted (200, 201): the walker checks that nothing answers 5xx, that every 4xx is a
// problem, and that a refused request changes nothing.

/** Nine levels of nine aliases: 9^9 strings if a reader expands them. */
export const YAML_ALIAS_BOMB = (() => {
  const names = 'abcdefghi';
  const lines = ['key: fuzz-laughs', 'rules: []', `a: &a [${Array(9).fill('"lol"').join(', ')}]`];
  for (let level = 1; level < names.length; level += 1) lines.push(`${names[level]}: &${names[level]} [${Array(9).fill(`*${names[level - 1]}`).join(', ')}]`);
  return `${lines.join('\n')}\n`;
})();

export const DEEP_JSON_LEVELS = 5000;
const deepJson = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

/** Strings no field may answer with a 5xx: they go into every string place of every body. */
export const HOSTILE_STRINGS: ReadonlyArray<readonly [string, string]> = [
  ['NUL', 'fuzz\u0000nul'],
  ['lone surrogate', 'fuzz\ud800lone'],
  ['YAML alias bomb', YAML_ALIAS_BOMB],
  ['deep JSON as text', deepJson(DEEP_JSON_LEVELS)],
];

/** The same, percent-encoded for a path or query parameter (a lone surrogate as WTF-8 bytes). */
const HOSTILE_URL_TEXT: ReadonlyArray<readonly [string, string]> = [
  ['NUL', 'fuzz%00nul'],
  ['lone surrogate', 'fuzz%ED%A0%80lone'],
];

/** Any answer but a 5xx is right for a hostile case; a 4xx must still be a problem. */
export const NOT_5XX = 'not 5xx';

export interface HostileCase extends Omit<FuzzCase, 'expect'> {
  expect: number[] | typeof NOT_5XX;
}

type Step = { property: string } | { item: true } | { recordValue: true } | { recordKey: true } | { alternative: number };

const SAMPLE_DATE_TIME = '2026-01-01T00:00:00.000Z';
/**
 * Values that read as real for fields by their name (`body` is policy text wherever the API has
 * it), so that a hostile value elsewhere in the request gets past them; anything else gets a
 * generic sample.
 */
const NAMED_SAMPLES: Record<string, string> = { role: 'user', model: 'gpt-4o-mini', body: 'key: fuzz-policy\nrules: []\n' };
const PATTERN_CANDIDATES = ['fuzz', 'fuzz.sample_rule', 'fuzz_1', 'fuzz-1', 'f1', 'Fuzz', '1', 'a.b', 'fuzz.rule'];
/** How deep the walker looks for string places inside a body. */
const MAX_PLACE_DEPTH = 4;

function stringSample(schema: OpenApiSchema & Record<string, unknown>, name: string | undefined): string {
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const pad = (text: string) => text.padEnd(minLength, 'x');
  if (name !== undefined && NAMED_SAMPLES[name] !== undefined) return NAMED_SAMPLES[name];
  switch (schema.format) {
    case 'date-time':
      return SAMPLE_DATE_TIME;
    case 'date':
      return SAMPLE_DATE_TIME.slice(0, 10);
    case 'email':
      return 'fuzz@example.com';
    case 'uri':
    case 'url':
      return 'http://127.0.0.1:9/fuzz';
    case 'uuid':
      return '00000000-0000-4000-8000-000000000000';
    default:
      break;
  }
  if (typeof schema.pattern === 'string') {
    const pattern = new RegExp(schema.pattern, 'u');
    const fit = PATTERN_CANDIDATES.map(pad).find((candidate) => pattern.test(candidate));
    if (fit !== undefined) return fit;
  }
  return pad('fuzz');
}

function numberSample(schema: OpenApiSchema & Record<string, unknown>): number {
  const minimum = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : 1;
  const maximum = typeof schema.maximum === 'number' ? schema.maximum : Number.MAX_SAFE_INTEGER;
  return Math.min(Math.max(minimum, 1), maximum);
}

/** The first JSON type a schema names, null left for last. */
function firstType(schema: OpenApiSchema): string | undefined {
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  return types.find((type) => type !== 'null') ?? types[0];
}

const alternativesOf = (schema: OpenApiSchema): OpenApiSchema[] | undefined => schema.anyOf ?? schema.oneOf;

/** A value the schema accepts, with only the required fields of objects. */
export function sampleOf(document: OpenApiDocument, raw: OpenApiSchema | undefined, name?: string, depth = 0): unknown {
  const schema = resolve(document, raw) as (OpenApiSchema & Record<string, unknown>) | undefined;
  if (schema === undefined || depth > 12) return 'fuzz';
  if (schema.const !== undefined) return schema.const;
  if (schema.enum !== undefined) return schema.enum.find((value) => value !== null) ?? schema.enum[0];
  const alternatives = alternativesOf(schema);
  if (alternatives !== undefined) {
    const chosen = alternatives.find((alternative) => firstType(resolve(document, alternative) ?? {}) !== 'null') ?? alternatives[0];
    return sampleOf(document, chosen, name, depth + 1);
  }
  if (schema.allOf !== undefined) return sampleOf(document, schema.allOf[0], name, depth + 1);
  switch (firstType(schema)) {
    case 'string':
      return stringSample(schema, name);
    case 'integer':
    case 'number':
      return numberSample(schema);
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'array': {
      const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
      return Array.from({ length: minItems }, () => sampleOf(document, schema.items as OpenApiSchema | undefined, undefined, depth + 1));
    }
    case 'object': {
      const value: Record<string, unknown> = {};
      for (const field of schema.required ?? []) value[field] = sampleOf(document, schema.properties?.[field], field, depth + 1);
      return value;
    }
    default:
      // No type: free-form (an unknown value); text is as good as anything.
      return 'fuzz';
  }
}

/** The schema a record's values follow (TypeBox writes patternProperties, others additionalProperties). */
function recordValues(schema: OpenApiSchema & Record<string, unknown>): OpenApiSchema | undefined {
  const patterns = schema.patternProperties as Record<string, OpenApiSchema> | undefined;
  if (patterns !== undefined) return Object.values(patterns)[0];
  if (typeof schema.additionalProperties === 'object') return schema.additionalProperties;
  return undefined;
}

/** Every place in a schema where a string can go: fields, list items, record keys and values. */
function stringPlaces(document: OpenApiDocument, raw: OpenApiSchema | undefined, depth = 0): Step[][] {
  const schema = resolve(document, raw) as (OpenApiSchema & Record<string, unknown>) | undefined;
  if (schema === undefined || depth > MAX_PLACE_DEPTH) return [];
  const alternatives = alternativesOf(schema);
  if (alternatives !== undefined) {
    return alternatives.flatMap((alternative, index) => stringPlaces(document, alternative, depth).map((place) => [{ alternative: index }, ...place]));
  }
  if (schema.const !== undefined || schema.enum !== undefined) return [[]];
  const type = firstType(schema);
  if (type === undefined || type === 'string') return [[]];
  if (type === 'array') return stringPlaces(document, schema.items as OpenApiSchema | undefined, depth + 1).map((place) => [{ item: true }, ...place]);
  if (type !== 'object') return [];
  const places: Step[][] = [];
  for (const [field, fieldSchema] of Object.entries(schema.properties ?? {})) {
    places.push(...stringPlaces(document, fieldSchema, depth + 1).map((place) => [{ property: field }, ...place]));
  }
  const values = recordValues(schema);
  if (values !== undefined || schema.additionalProperties === true) {
    places.push([{ recordKey: true }]);
    // An open object takes any value under any name.
    const valuePlaces = values === undefined ? [[]] : stringPlaces(document, values, depth + 1);
    places.push(...valuePlaces.map((place) => [{ recordValue: true } as Step, ...place]));
  }
  return places;
}

/** The schema's sample with the hostile string at `place`. */
function sampleWith(document: OpenApiDocument, raw: OpenApiSchema | undefined, place: Step[], hostile: string, name?: string): unknown {
  const [step, ...rest] = place;
  if (step === undefined) return hostile;
  const schema = (resolve(document, raw) ?? {}) as OpenApiSchema & Record<string, unknown>;
  if ('alternative' in step) return sampleWith(document, alternativesOf(schema)?.[step.alternative], rest, hostile, name);
  if ('item' in step) {
    const items = schema.items as OpenApiSchema | undefined;
    const minItems = typeof schema.minItems === 'number' ? schema.minItems : 1;
    return [sampleWith(document, items, rest, hostile), ...Array.from({ length: Math.max(0, minItems - 1) }, () => sampleOf(document, items))];
  }
  const value = (sampleOf(document, schema, name) ?? {}) as Record<string, unknown>;
  if ('property' in step) value[step.property] = sampleWith(document, schema.properties?.[step.property], rest, hostile, step.property);
  // Agent APIs carry text under `content`; as good a name as any for an extra member.
  else if ('recordValue' in step) value.content = sampleWith(document, recordValues(schema), rest, hostile);
  else value[hostile] = sampleOf(document, recordValues(schema));
  return value;
}

/** Whether the place takes any JSON value (an unknown field, a member of an open object). */
function freeForm(document: OpenApiDocument, raw: OpenApiSchema | undefined, place: Step[]): boolean {
  let schema: (OpenApiSchema & Record<string, unknown>) | undefined = resolve(document, raw) as (OpenApiSchema & Record<string, unknown>) | undefined;
  for (const step of place) {
    if (schema === undefined) return true;
    let next: OpenApiSchema | undefined;
    if ('alternative' in step) next = alternativesOf(schema)?.[step.alternative];
    else if ('item' in step) next = schema.items as OpenApiSchema | undefined;
    else if ('property' in step) next = schema.properties?.[step.property];
    else if ('recordValue' in step) next = recordValues(schema);
    else return false;
    schema = resolve(document, next) as (OpenApiSchema & Record<string, unknown>) | undefined;
  }
  return schema === undefined || (schema.type === undefined && alternativesOf(schema) === undefined && schema.enum === undefined && schema.const === undefined);
}

const describePlace = (place: Step[]): string =>
  place
    .map((step) => ('property' in step ? `/${step.property}` : 'item' in step ? '/0' : 'recordValue' in step ? '/*' : 'recordKey' in step ? '/<key>' : ''))
    .join('') || '/';

/**
 * The hostile requests for one operation: hostile strings in every string place of the body, NUL
 * and lone surrogates in every path and query parameter, a body nested DEEP_JSON_LEVELS deep, and
 * the YAML alias bomb as the body of routes that take YAML.
 */
export function hostileCasesFor(
  document: OpenApiDocument,
  method: string,
  path: string,
  operation: Operation,
  options: { credential: string | null; headers?: Record<string, string> },
): HostileCase[] {
  const route = `${method} ${path}`;
  const auth: Record<string, string> = { ...options.headers, ...(options.credential === null ? {} : { authorization: `Bearer ${options.credential}` }) };
  const json = { ...auth, 'content-type': 'application/json' };
  // Path parameters are unknown ids, or a sample where the parameter's pattern refuses the id.
  const pathValue = (parameter: Parameter): string => {
    const pattern = (resolve(document, parameter.schema) as Record<string, unknown> | undefined)?.pattern;
    return typeof pattern === 'string' && !new RegExp(pattern, 'u').test(UNKNOWN_ID) ? String(sampleOf(document, parameter.schema, parameter.name)) : UNKNOWN_ID;
  };
  const fillPath = (template: string) =>
    (operation.parameters ?? []).filter((parameter) => parameter.in === 'path').reduce((filled, parameter) => filled.replace(`{${parameter.name}}`, pathValue(parameter)), template);
  const target = fillPath(path);
  const takesBody = method !== 'GET' && method !== 'DELETE';
  const schema = bodySchema(document, operation);
  const baseBody = takesBody ? JSON.stringify(schema === undefined ? {} : (sampleOf(document, schema) ?? {})) : undefined;
  const baseHeaders = takesBody ? json : auth;
  const cases: HostileCase[] = [];
  const add = (name: string, spec: Omit<HostileCase, 'route' | 'name' | 'method'>) => cases.push({ route, name, method, ...spec });

  const places = schema === undefined ? [] : stringPlaces(document, schema);
  if (takesBody) {
    // Deep where the route takes any value, so that only the depth limit stands in the way.
    const open = places.find((place) => place.length > 0 && freeForm(document, schema, place));
    const marker = 'fuzz-deep-marker';
    const body = open === undefined ? `{"fuzz":${marker}}` : JSON.stringify(sampleWith(document, schema, open, marker)).replace(`"${marker}"`, marker);
    add(`deeply nested JSON body at ${open === undefined ? '/fuzz' : describePlace(open)}`, { path: target, headers: json, body: body.replace(marker, deepJson(DEEP_JSON_LEVELS)), expect: [400] });
  }
  if (schema !== undefined) {
    const seen = new Set<string>();
    for (const place of places) {
      const where = describePlace(place);
      if (seen.has(where)) continue;
      seen.add(where);
      for (const [label, hostile] of HOSTILE_STRINGS) {
        add(`${label} at body ${where}`, { path: target, headers: json, body: JSON.stringify(sampleWith(document, schema, place, hostile)), expect: NOT_5XX });
      }
    }
  }
  for (const contentType of Object.keys(operation.requestBody?.content ?? {})) {
    if (!contentType.includes('yaml')) continue;
    add(`YAML alias bomb as ${contentType} body`, { path: target, headers: { ...auth, 'content-type': contentType }, body: YAML_ALIAS_BOMB, expect: NOT_5XX });
  }
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in === 'path') {
      for (const [label, text] of HOSTILE_URL_TEXT) {
        const hostilePath = fillPath(path.replace(`{${parameter.name}}`, text));
        add(`${label} in path ${parameter.name}`, { path: hostilePath, headers: baseHeaders, body: baseBody, expect: NOT_5XX });
      }
    } else if (parameter.in === 'query') {
      for (const [label, text] of HOSTILE_URL_TEXT) {
        add(`${label} in query ${parameter.name}`, { path: `${target}?${parameter.name}=${text}`, headers: baseHeaders, body: baseBody, expect: NOT_5XX });
      }
    }
  }
  return cases;
}
