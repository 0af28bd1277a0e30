// Reading a hosted API's OpenAPI document (3.x or Swagger 2.0, JSON or YAML) and summarising it:
// its operations, which of them serve a model, how callers authenticate, and what classes of data
// the operations take or answer. Pure and bounded: nesting, alias expansion, $ref chains, paths,
// operations and schema nodes visited all have ceilings, so a hostile document costs little.
import { LineCounter, parseDocument } from 'yaml';
import { yamlTooDeepAt } from '../../../infra/lib/yaml-depth.js';

/** Maps and lists nested deeper than this are refused before the document is composed. */
export const MAX_DOCUMENT_NESTING = 64;
/** Alias expansions allowed when a YAML document is turned into values ("billion laughs" guard). */
const MAX_ALIAS_COUNT = 50;
/** How far a `$ref` chain or a schema is followed. */
const MAX_REF_DEPTH = 20;
const MAX_PATHS = 2000;
const MAX_OPERATIONS = 5000;
/** Schema nodes visited over the whole document. */
const MAX_SCHEMA_NODES = 100_000;
const MAX_POINTER_SEGMENTS = 32;
/** What the summary lists at most (the counts stay exact). */
const MAX_LISTED = 50;
const MAX_EXPOSED_FIELDS = 200;
const MAX_FIELD_OPERATIONS = 20;
const MAX_FIELD_NAME = 200;

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export type DataClass = 'personal' | 'financial' | 'credentials' | 'health';

/** The document cannot be read as OpenAPI; the message says why (safe to store and show). */
export class DocumentUnreadable extends Error {
  override readonly name = 'DocumentUnreadable';
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const own = (value: Json, key: string): unknown => (Object.hasOwn(value, key) ? value[key] : undefined);

export interface ParsedDocument {
  format: 'json' | 'yaml';
  value: unknown;
}

/** JSON when the text opens with `{` or `[`, else YAML; nesting and aliases bounded. */
export function parseDocumentText(text: string): ParsedDocument {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const first = body.trimStart()[0];
  if (first === undefined) throw new DocumentUnreadable('the document is empty');
  if (first === '{' || first === '[') {
    if (jsonTooDeep(body, MAX_DOCUMENT_NESTING)) throw new DocumentUnreadable(`the document nests deeper than ${MAX_DOCUMENT_NESTING} levels`);
    try {
      return { format: 'json', value: JSON.parse(body) as unknown };
    } catch (error) {
      throw new DocumentUnreadable(`not valid JSON: ${(error as Error).message.slice(0, 200)}`);
    }
  }
  if (yamlTooDeepAt(body, MAX_DOCUMENT_NESTING, new LineCounter()) !== null) {
    throw new DocumentUnreadable(`the document nests deeper than ${MAX_DOCUMENT_NESTING} levels`);
  }
  const document = parseDocument(body, { prettyErrors: false });
  const firstError = document.errors[0];
  if (firstError !== undefined) throw new DocumentUnreadable(`not valid JSON or YAML: ${(firstError.message.split('\n')[0] ?? '').slice(0, 200)}`);
  try {
    return { format: 'yaml', value: document.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as unknown };
  } catch (error) {
    // The yaml package throws a ReferenceError when aliases expand past the budget.
    if (error instanceof ReferenceError) throw new DocumentUnreadable(`the YAML's aliases expand too far (more than ${MAX_ALIAS_COUNT} expansions)`);
    throw new DocumentUnreadable(`the YAML cannot be read: ${(error as Error).message.slice(0, 200)}`);
  }
}

/** A linear scan: brackets outside strings, deeper than `max`. */
function jsonTooDeep(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c) index += 1;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x7b || char === 0x5b) {
      depth += 1;
      if (depth > max) return true;
    } else if (char === 0x7d || char === 0x5d) depth -= 1;
  }
  return false;
}

export interface ModelServingOperation {
  operation: string;
  kind: string;
  signals: string[];
}

export interface SecuritySchemeSummary {
  name: string;
  type: string;
  /** `http:bearer`, `apiKey:header:X-API-Key`, `oauth2`, `openIdConnect`… */
  descriptor: string;
}

export interface AuthRisk {
  code: string;
  detail: string;
  operations: string[];
}

export interface ExposedField {
  class: DataClass;
  field: string;
  in_request: boolean;
  in_response: boolean;
  operations: string[];
}

export interface DocumentSummary {
  spec_version: string;
  title: string | null;
  api_version: string | null;
  operations_count: number;
  /** `METHOD /path`, sorted (at most MAX_OPERATIONS). */
  operations: string[];
  model_serving: ModelServingOperation[];
  auth: {
    schemes: SecuritySchemeSummary[];
    /** Descriptors of the declared schemes, sorted, and `none` when an operation needs none. */
    summary: string[];
    unauthenticated_operations: number;
    risks: AuthRisk[];
  };
  exposed_data: ExposedField[];
  data_classes: DataClass[];
  /** A ceiling was reached: paths, operations, schema nodes or listed fields were cut. */
  truncated: boolean;
}

/** Summarises a parsed OpenAPI 3.x or Swagger 2.0 document; anything else is DocumentUnreadable. */
export function summariseDocument(value: unknown): DocumentSummary {
  if (!isObject(value)) throw new DocumentUnreadable('the document is not an object');
  const openapi = own(value, 'openapi');
  const swagger = own(value, 'swagger');
  let specVersion: string;
  if (typeof openapi === 'string' && openapi.startsWith('3.')) specVersion = openapi.slice(0, 20);
  else if (swagger === '2.0') specVersion = '2.0';
  else throw new DocumentUnreadable('not an OpenAPI 3.x or Swagger 2.0 document (no openapi: 3.x or swagger: "2.0")');
  const v2 = specVersion === '2.0';
  const reader = new SchemaReader(value);
  const info = isObject(own(value, 'info')) ? (own(value, 'info') as Json) : {};
  const text = (item: unknown) => (typeof item === 'string' ? item.slice(0, 300) : null);

  const schemes = readSchemes(value, v2, reader);
  const declared = new Map(schemes.map((scheme) => [scheme.name, scheme]));
  const globalSecurity = own(value, 'security');

  const operations: string[] = [];
  const modelServing: ModelServingOperation[] = [];
  const unauthenticated: string[] = [];
  const undefinedSchemes = new Set<string>();
  const exposed = new Map<string, ExposedField>();
  let operationsCount = 0;
  let truncated = false;
  const paths = reader.deref(own(value, 'paths'));
  const pathEntries = isObject(paths) ? Object.entries(paths) : [];
  if (pathEntries.length > MAX_PATHS) truncated = true;
  for (const [path, rawItem] of pathEntries.slice(0, MAX_PATHS)) {
    const item = reader.deref(rawItem);
    if (!isObject(item)) continue;
    const pathParameters = own(item, 'parameters');
    for (const method of HTTP_METHODS) {
      const operation = reader.deref(own(item, method));
      if (!isObject(operation)) continue;
      operationsCount += 1;
      if (operations.length >= MAX_OPERATIONS) {
        truncated = true;
        continue;
      }
      const key = `${method.toUpperCase()} ${path.slice(0, 500)}`;
      operations.push(key);
      const request = requestFields(operation, pathParameters, v2, reader);
      const response = responseFields(operation, v2, reader);
      const serving = modelServingOf(method, path, operation, request);
      if (serving !== null) modelServing.push({ operation: key, ...serving });
      const security = own(operation, 'security') ?? globalSecurity;
      if (!requiresAuthentication(security)) unauthenticated.push(key);
      for (const name of namedSchemes(security)) if (!declared.has(name)) undefinedSchemes.add(name);
      if (!noteExposed(exposed, key, request, 'request') || !noteExposed(exposed, key, response, 'response')) truncated = true;
    }
  }
  operations.sort();
  modelServing.sort((a, b) => (a.operation < b.operation ? -1 : a.operation > b.operation ? 1 : 0));
  unauthenticated.sort();
  if (reader.exhausted) truncated = true;

  const risks: AuthRisk[] = [];
  if (schemes.length === 0) risks.push({ code: 'no_authentication_declared', detail: 'the document declares no security scheme: callers may need no credential', operations: [] });
  if (unauthenticated.length > 0) {
    risks.push({ code: 'unauthenticated_operations', detail: `${unauthenticated.length} operation(s) require no credential`, operations: unauthenticated.slice(0, MAX_LISTED) });
  }
  const open = new Set(unauthenticated);
  const unauthenticatedServing = modelServing.filter((item) => open.has(item.operation)).map((item) => item.operation);
  if (unauthenticatedServing.length > 0) {
    risks.push({ code: 'unauthenticated_model_serving', detail: 'model-serving operations that require no credential', operations: unauthenticatedServing.slice(0, MAX_LISTED) });
  }
  for (const scheme of schemes) {
    if (scheme.descriptor.startsWith('apiKey:query:')) risks.push({ code: 'api_key_in_query', detail: `scheme ${scheme.name} sends the key in the query string, where logs and proxies keep it`, operations: [] });
    if (scheme.descriptor === 'http:basic') risks.push({ code: 'http_basic', detail: `scheme ${scheme.name} sends a password with every call`, operations: [] });
  }
  if (undefinedSchemes.size > 0) {
    risks.push({ code: 'undeclared_scheme', detail: `security requirements name schemes that are not declared: ${[...undefinedSchemes].sort().slice(0, MAX_LISTED).join(', ')}`, operations: [] });
  }

  const summary = [...new Set(schemes.map((scheme) => scheme.descriptor))].sort();
  if (unauthenticated.length > 0) summary.push('none');
  const exposedList = [...exposed.values()].sort((a, b) => (a.class === b.class ? (a.field < b.field ? -1 : 1) : a.class < b.class ? -1 : 1));
  return {
    spec_version: specVersion,
    title: text(own(info, 'title')),
    api_version: text(own(info, 'version')),
    operations_count: operationsCount,
    operations,
    model_serving: modelServing,
    auth: { schemes, summary, unauthenticated_operations: unauthenticated.length, risks },
    exposed_data: exposedList,
    data_classes: [...new Set(exposedList.map((field) => field.class))].sort(),
    truncated,
  };
}

/** Follows local `$ref`s with a depth ceiling and counts the schema nodes visited. */
class SchemaReader {
  visited = 0;
  exhausted = false;

  constructor(private readonly root: Json) {}

  /** The node a `$ref` chain ends at (undefined when it leaves the document, loops or runs too long). */
  deref(node: unknown): unknown {
    let current = node;
    const seen = new Set<string>();
    for (let hop = 0; hop <= MAX_REF_DEPTH; hop += 1) {
      if (!isObject(current)) return current;
      const ref = own(current, '$ref');
      if (typeof ref !== 'string') return current;
      if (seen.has(ref)) return undefined;
      seen.add(ref);
      current = this.resolve(ref);
    }
    return undefined;
  }

  private resolve(ref: string): unknown {
    if (!ref.startsWith('#/') || ref.length > 1000) return undefined;
    const segments = ref.slice(2).split('/');
    if (segments.length > MAX_POINTER_SEGMENTS) return undefined;
    let current: unknown = this.root;
    for (const segment of segments) {
      const key = decodeURIComponentSafe(segment.replaceAll('~1', '/').replaceAll('~0', '~'));
      if (Array.isArray(current)) current = /^\d{1,6}$/.test(key) ? current[Number(key)] : undefined;
      else if (isObject(current)) current = own(current, key);
      else return undefined;
    }
    return current;
  }

  /** The property names a schema names, anywhere within MAX_REF_DEPTH levels; each `$ref` expanded once. */
  fieldNames(schema: unknown, into: Set<string>): void {
    const expanded = new Set<string>();
    const pending: Array<{ node: unknown; depth: number }> = [{ node: schema, depth: 0 }];
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      if (this.visited >= MAX_SCHEMA_NODES) {
        this.exhausted = true;
        return;
      }
      this.visited += 1;
      const { node, depth } = next;
      if (!isObject(node) || depth > MAX_REF_DEPTH) continue;
      const ref = own(node, '$ref');
      if (typeof ref === 'string') {
        if (expanded.has(ref)) continue;
        expanded.add(ref);
        pending.push({ node: this.resolve(ref), depth: depth + 1 });
        continue;
      }
      const properties = own(node, 'properties');
      if (isObject(properties)) {
        for (const [name, child] of Object.entries(properties)) {
          into.add(name.slice(0, MAX_FIELD_NAME));
          pending.push({ node: child, depth: depth + 1 });
        }
      }
      for (const key of ['items', 'additionalProperties', 'not']) {
        const child = own(node, key);
        if (isObject(child)) pending.push({ node: child, depth: depth + 1 });
      }
      for (const key of ['allOf', 'anyOf', 'oneOf']) {
        const children = own(node, key);
        if (Array.isArray(children)) for (const child of children.slice(0, 100)) pending.push({ node: child, depth: depth + 1 });
      }
    }
  }
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function readSchemes(document: Json, v2: boolean, reader: SchemaReader): SecuritySchemeSummary[] {
  const container = v2 ? own(document, 'securityDefinitions') : isObject(own(document, 'components')) ? own(own(document, 'components') as Json, 'securitySchemes') : undefined;
  if (!isObject(container)) return [];
  const schemes: SecuritySchemeSummary[] = [];
  for (const [name, raw] of Object.entries(container).slice(0, 100)) {
    const scheme = reader.deref(raw);
    if (!isObject(scheme)) continue;
    const type = String(own(scheme, 'type') ?? 'unknown').slice(0, 50);
    let descriptor = type;
    if (type === 'apiKey') descriptor = `apiKey:${String(own(scheme, 'in') ?? 'header').slice(0, 20)}:${String(own(scheme, 'name') ?? '').slice(0, 100)}`;
    else if (type === 'http') descriptor = `http:${String(own(scheme, 'scheme') ?? '').toLowerCase().slice(0, 30)}`;
    else if (type === 'basic') descriptor = 'http:basic';
    schemes.push({ name: name.slice(0, 100), type, descriptor });
  }
  return schemes.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** A security requirement list demands a credential when it is a non-empty list without an empty (optional) requirement. */
function requiresAuthentication(security: unknown): boolean {
  if (!Array.isArray(security) || security.length === 0) return false;
  return security.every((requirement) => isObject(requirement) && Object.keys(requirement).length > 0);
}

function namedSchemes(security: unknown): string[] {
  if (!Array.isArray(security)) return [];
  return security.slice(0, 50).flatMap((requirement) => (isObject(requirement) ? Object.keys(requirement).slice(0, 20) : []));
}

function requestFields(operation: Json, pathParameters: unknown, v2: boolean, reader: SchemaReader): Set<string> {
  const fields = new Set<string>();
  const parameters = [...(Array.isArray(pathParameters) ? pathParameters.slice(0, 200) : []), ...(Array.isArray(own(operation, 'parameters')) ? (own(operation, 'parameters') as unknown[]).slice(0, 200) : [])];
  for (const raw of parameters) {
    const parameter = reader.deref(raw);
    if (!isObject(parameter)) continue;
    if (own(parameter, 'in') === 'body') reader.fieldNames(own(parameter, 'schema'), fields);
    else if (typeof own(parameter, 'name') === 'string') fields.add((own(parameter, 'name') as string).slice(0, MAX_FIELD_NAME));
  }
  if (!v2) {
    const body = reader.deref(own(operation, 'requestBody'));
    if (isObject(body)) contentSchemas(own(body, 'content'), reader, fields);
  }
  return fields;
}

function responseFields(operation: Json, v2: boolean, reader: SchemaReader): Set<string> {
  const fields = new Set<string>();
  const responses = own(operation, 'responses');
  if (!isObject(responses)) return fields;
  for (const raw of Object.values(responses).slice(0, 50)) {
    const response = reader.deref(raw);
    if (!isObject(response)) continue;
    if (v2) reader.fieldNames(own(response, 'schema'), fields);
    else contentSchemas(own(response, 'content'), reader, fields);
  }
  return fields;
}

function contentSchemas(content: unknown, reader: SchemaReader, fields: Set<string>): void {
  if (!isObject(content)) return;
  for (const media of Object.values(content).slice(0, 20)) if (isObject(media)) reader.fieldNames(own(media, 'schema'), fields);
}

/** Words, lower-cased, split at separators and camelCase humps (`cardNumber` → card, number). */
export function wordsOf(text: string, limit = 16): string[] {
  const words: string[] = [];
  let current = '';
  const flush = () => {
    if (current !== '' && words.length < limit) words.push(current.toLowerCase());
    current = '';
  };
  for (let index = 0; index < text.length && words.length < limit; index += 1) {
    const char = text[index] as string;
    const lower = char >= 'a' && char <= 'z';
    const upper = char >= 'A' && char <= 'Z';
    const digit = char >= '0' && char <= '9';
    if (!lower && !upper && !digit) {
      flush();
      continue;
    }
    const previous = index > 0 ? (text[index - 1] as string) : '';
    if (upper && previous >= 'a' && previous <= 'z') flush();
    current += char;
  }
  flush();
  return words;
}

const MODEL_WORDS: ReadonlyArray<[string, readonly string[]]> = [
  ['completions', ['completions', 'completion']],
  ['embeddings', ['embeddings', 'embedding', 'embed']],
  ['messages', ['messages']],
  ['generate', ['generate', 'generation', 'generatecontent']],
  ['predict', ['predict', 'prediction', 'predictions']],
  ['invocations', ['invocations', 'invoke']],
  ['inference', ['inference', 'infer']],
];
const MODEL_REQUEST_FIELDS = new Set(['messages', 'prompt', 'max_tokens', 'temperature', 'top_p', 'max_new_tokens', 'max_completion_tokens', 'stop_sequences']);

function modelKind(words: readonly string[]): string | null {
  const set = new Set(words);
  if (set.has('chat') && (set.has('completions') || set.has('completion'))) return 'chat_completions';
  for (const [kind, synonyms] of MODEL_WORDS) if (synonyms.some((word) => set.has(word))) return kind;
  return null;
}

/**
 * Whether an operation serves a model: a model word in its path (on a POST or PUT), in its
 * operationId or summary, and model request fields (`messages`, `prompt`, `max_tokens`,
 * `temperature`…) each count; two signals make it a model-serving operation.
 */
function modelServingOf(method: string, path: string, operation: Json, request: ReadonlySet<string>): { kind: string; signals: string[] } | null {
  const signals: string[] = [];
  let score = 0;
  const pathKind = modelKind(wordsOf(path, 32));
  if (pathKind !== null && (method === 'post' || method === 'put')) {
    signals.push(`path:${pathKind}`);
    score += 2;
  }
  const described = [own(operation, 'operationId'), own(operation, 'summary')].filter((item): item is string => typeof item === 'string').map((item) => item.slice(0, 300));
  const describedKind = modelKind(described.flatMap((item) => wordsOf(item, 32)));
  if (describedKind !== null) {
    signals.push(`operation:${describedKind}`);
    score += 1;
  }
  const fields = [...request].filter((field) => MODEL_REQUEST_FIELDS.has(field)).sort();
  for (const field of fields.slice(0, 3)) {
    signals.push(`request:${field}`);
    score += 1;
  }
  if (score < 2) return null;
  return { kind: pathKind ?? describedKind ?? 'model_request', signals };
}

const DATA_WORDS: ReadonlyArray<[DataClass, readonly string[]]> = [
  [
    'personal',
    ['email', 'e mail', 'phone', 'phone number', 'mobile', 'telephone', 'address', 'street', 'postcode', 'postal code', 'zip', 'zip code', 'first name', 'last name', 'full name', 'surname', 'given name', 'family name', 'birth date', 'date of birth', 'birthdate', 'dob', 'ssn', 'social security', 'national id', 'passport', 'driver license', 'drivers license', 'gender', 'nationality'],
  ],
  ['financial', ['card', 'card number', 'credit card', 'cvv', 'cvc', 'iban', 'bic', 'swift', 'account', 'account number', 'bank account', 'routing number', 'sort code', 'salary', 'income', 'balance', 'tax id']],
  ['credentials', ['password', 'passwd', 'passphrase', 'token', 'access token', 'refresh token', 'secret', 'client secret', 'api key', 'apikey', 'private key', 'credential', 'credentials', 'otp']],
  ['health', ['diagnosis', 'medical', 'health', 'patient', 'prescription', 'medication', 'allergy', 'allergies', 'blood type', 'symptoms', 'treatment', 'icd', 'mrn']],
];
const DATA_PHRASES = new Map<string, DataClass>(DATA_WORDS.flatMap(([dataClass, phrases]) => phrases.map((phrase) => [phrase, dataClass] as [string, DataClass])));

/**
 * The data class a field name belongs to, by its words (and runs of up to three words, spaced or
 * joined): `card_number` and `cardNumber` are financial, `customer_email` personal. Plain `name` is
 * left out: model, tool and file names would all read as personal data.
 */
export function classifyField(name: string): DataClass | null {
  const words = wordsOf(name);
  for (let start = 0; start < words.length; start += 1) {
    for (let length = 3; length >= 1; length -= 1) {
      if (start + length > words.length) continue;
      const run = words.slice(start, start + length);
      const found = DATA_PHRASES.get(run.join(' ')) ?? DATA_PHRASES.get(run.join(''));
      if (found !== undefined) return found;
    }
  }
  return null;
}

/** Adds the classified fields of one operation; false when the list is full. */
function noteExposed(exposed: Map<string, ExposedField>, operation: string, fields: ReadonlySet<string>, direction: 'request' | 'response'): boolean {
  let complete = true;
  for (const field of fields) {
    const dataClass = classifyField(field);
    if (dataClass === null) continue;
    const key = `${dataClass}\u0000${field}`;
    let entry = exposed.get(key);
    if (entry === undefined) {
      if (exposed.size >= MAX_EXPOSED_FIELDS) {
        complete = false;
        continue;
      }
      entry = { class: dataClass, field, in_request: false, in_response: false, operations: [] };
      exposed.set(key, entry);
    }
    if (direction === 'request') entry.in_request = true;
    else entry.in_response = true;
    if (!entry.operations.includes(operation) && entry.operations.length < MAX_FIELD_OPERATIONS) entry.operations.push(operation);
  }
  return complete;
}
