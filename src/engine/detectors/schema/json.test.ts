// Hot path: no I/O here (the detector); these tests pin schema.json's findings, its schema cache
// and its behaviour on oversized and deeply nested input.
import { describe, expect, it } from 'vitest';
import type { DetectContext, Detection } from '../types.js';
import { locatePointer, pointerSegments } from './json-locate.js';
import {
  MAX_NESTING_DEPTH,
  MAX_VIOLATIONS,
  SCHEMA_LRU_SIZE,
  ajvRegistrySize,
  compiledSchemaCount,
  schemaJson,
  schemaProblem,
} from './json.js';

const personSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1 },
    age: { type: 'integer', minimum: 0 },
    email: { type: 'string', format: 'email' },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['name'],
  additionalProperties: false,
};

function contextWith(jsonSchema?: Record<string, unknown>): DetectContext {
  return { surface: 'tool_args', settings: { pii_packs: [] }, ...(jsonSchema ? { jsonSchema } : {}) };
}

function detect(text: string, jsonSchema: Record<string, unknown> | undefined = personSchema): Detection[] {
  return schemaJson.detect(text, contextWith(jsonSchema)) as Detection[];
}

function timed<T>(run: () => T): { result: T; ms: number } {
  const started = performance.now();
  const result = run();
  return { result, ms: performance.now() - started };
}

describe('schema.json contract', () => {
  it('declares key, surfaces, entity types and cost', () => {
    expect(schemaJson.key).toBe('schema.json');
    expect(schemaJson.surfaces).toEqual(['output', 'tool_args']);
    expect(schemaJson.entityTypes).toEqual(['SCHEMA.VIOLATION', 'SCHEMA.UNPARSEABLE']);
    expect(schemaJson.costRank).toBe(4);
    expect(schemaJson.available()).toEqual({ available: true });
  });

  it('reports nothing without a declared schema, even for non-JSON text', () => {
    expect(schemaJson.detect('not json at all', contextWith(undefined))).toEqual([]);
  });
});

describe('validation', () => {
  it.each([
    ['a valid object', '{"name":"Ada","age":36,"email":"ada@example.com","tags":["x"]}'],
    ['only the required field', '{"name":"Ada"}'],
    ['whitespace around the value', '  \n{ "name" : "Ada" }\n '],
  ])('%s → no detection', (_label, text) => {
    expect(detect(text)).toEqual([]);
  });

  it.each([
    ['wrong type', '{"name":"Ada","age":"old"}', '/age', /must be integer/, '"old"'],
    ['below minimum', '{"name":"Ada","age":-1}', '/age', /must be >= 0/, '-1'],
    ['bad format', '{"name":"Ada","email":"not-an-address"}', '/email', /must match format "email"/, '"not-an-address"'],
    ['array item', '{"name":"Ada","tags":["ok", 7]}', '/tags/1', /must be string/, '7'],
    ['missing required', '{"age":3}', '(root)', /must have required property 'name'/, '{"age":3}'],
    ['additional property', '{"name":"Ada","extra":1}', '(root)', /additional properties \("extra"\)/, '{"name":"Ada","extra":1}'],
  ])('%s → SCHEMA.VIOLATION at %s', (_label, text, where, message, located) => {
    const detections = detect(text);
    expect(detections).toHaveLength(1);
    const [violation] = detections;
    expect(violation?.entity).toBe('SCHEMA.VIOLATION');
    expect(violation?.score).toBe(1);
    expect(violation?.explanation).toContain(`at ${where}:`);
    expect(violation?.explanation).toMatch(message);
    expect(text.slice(violation?.start, violation?.end)).toBe(located);
  });

  it('reports every error (allErrors) and never echoes the offending value', () => {
    const detections = detect('{"age":"secret-value","email":5,"extra":true}');
    expect(detections.map((d) => d.entity)).toEqual(Array(detections.length).fill('SCHEMA.VIOLATION'));
    expect(detections.length).toBeGreaterThanOrEqual(4);
    for (const detection of detections) expect(detection.explanation).not.toContain('secret-value');
  });

  it('caps the number of violations and says how many were left out', () => {
    const schema = { type: 'array', items: { type: 'string' } };
    const text = JSON.stringify(Array.from({ length: 500 }, (_, index) => index));
    const detections = detect(text, schema);
    expect(detections).toHaveLength(MAX_VIOLATIONS);
    expect(detections.at(-1)?.explanation).toMatch(/450 more violation/);
  });

  it.each([
    ['plain text', 'Sure! Here is the answer.'],
    ['truncated JSON', '{"name":"Ada"'],
    ['empty text', ''],
    ['single quotes', "{'name':'Ada'}"],
  ])('%s → one SCHEMA.UNPARSEABLE over the whole text', (_label, text) => {
    expect(detect(text)).toEqual([
      expect.objectContaining({ entity: 'SCHEMA.UNPARSEABLE', score: 1, start: 0, end: text.length }),
    ]);
  });

  it('does not quote the text when it cannot be parsed', () => {
    const [detection] = detect('{"password": hunter2}');
    expect(detection?.explanation).not.toContain('hunter2');
  });
});

describe('invalid schemas', () => {
  it.each([
    ['unknown type', { type: 'nonsense' }],
    ['unresolvable reference', { $ref: '#/definitions/missing' }],
    ['remote reference', { properties: { a: { $ref: 'https://example.com/other.json' } } }],
  ])('%s → throws a clear error', (_label, schema) => {
    expect(() => detect('{}', schema)).toThrow(/schema\.json: the declared JSON Schema cannot be compiled/);
  });

  it('names a schema too deep for the engine without leaking the engine error', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let depth = 0; depth < 20_000; depth += 1) schema = { type: 'object', properties: { a: schema } };
    expect(schemaProblem(schema)).toMatch(/cannot be compiled: it nests too deeply$/);
    expect(schemaProblem(schema)).not.toMatch(/call stack/i);
  });

  it('lets two different schemas share an $id', () => {
    const first = { $id: 'https://example.com/shared', type: 'object', required: ['a'] };
    const second = { $id: 'https://example.com/shared', type: 'object', required: ['b'] };
    expect(detect('{"a":1}', first)).toEqual([]);
    expect(detect('{"b":1}', second)).toEqual([]);
    expect(detect('{"a":1}', second)).toHaveLength(1);
  });
});

describe('schema cache', () => {
  it('compiles a schema object once', () => {
    const schema = { type: 'object', properties: { cached: { type: 'boolean' } } };
    const before = compiledSchemaCount();
    for (let call = 0; call < 20; call += 1) detect('{"cached":true}', schema);
    expect(compiledSchemaCount() - before).toBe(1);
  });

  it('compiles equal schemas rebuilt per call once (keyed by their JSON text)', () => {
    const before = compiledSchemaCount();
    for (let call = 0; call < 20; call += 1) detect('{"rebuilt":1}', { type: 'object', properties: { rebuilt: { type: 'number' } } });
    expect(compiledSchemaCount() - before).toBe(1);
  });

  it('compiles an invalid schema once too, and keeps throwing', () => {
    const schema = { type: 'still-nonsense' };
    const before = compiledSchemaCount();
    for (let call = 0; call < 5; call += 1) expect(() => detect('{}', schema)).toThrow();
    expect(compiledSchemaCount() - before).toBe(1);
  });
});

describe('bounded on adversarial input', () => {
  const BOUND_MS = 2000;
  const MEGABYTE = 1024 * 1024;

  it('refuses texts over 1 MB as too large', () => {
    const text = `"${'a'.repeat(MEGABYTE)}"`;
    const { result, ms } = timed(() => detect(text, { type: 'string' }));
    expect(result).toEqual([expect.objectContaining({ entity: 'SCHEMA.UNPARSEABLE', end: text.length })]);
    expect(result[0]?.explanation).toMatch(/too large to validate/);
    expect(ms).toBeLessThan(BOUND_MS);
  });

  it('counts bytes, not characters, for the size limit', () => {
    const text = `"${'é'.repeat(MEGABYTE / 2 + 10)}"`;
    expect(detect(text, { type: 'string' })[0]?.explanation).toMatch(/too large/);
  });

  it.each([
    ['arrays', `${'['.repeat(100_000)}${']'.repeat(100_000)}`],
    ['objects', `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`],
    ['unclosed arrays', '['.repeat(100_000)],
  ])('100k-deep nested %s → UNPARSEABLE, no crash', (_label, text) => {
    const recursive = { $id: 'https://example.com/tree', anyOf: [{ type: 'array', items: { $ref: '#' } }, { type: 'object' }] };
    const { result, ms } = timed(() => detect(text, recursive));
    expect(result).toEqual([expect.objectContaining({ entity: 'SCHEMA.UNPARSEABLE', start: 0, end: text.length })]);
    expect(ms).toBeLessThan(BOUND_MS);
  });

  it('accepts nesting up to the limit', () => {
    const depth = MAX_NESTING_DEPTH;
    const text = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const recursive = { anyOf: [{ type: 'array', items: { $ref: '#' } }] };
    expect(detect(text, recursive)).toEqual([]);
  });

  it('ignores brackets inside strings when measuring depth', () => {
    const text = JSON.stringify({ name: '['.repeat(10_000) });
    expect(detect(text)).toEqual([]);
  });

  it.each([
    ['1 MB of one character', 'a'.repeat(MEGABYTE - 1)],
    ['a near-1 MB valid array of wrong items', JSON.stringify(Array.from({ length: 120_000 }, () => 12345))],
    ['a near-1 MB string of escapes', `"${'\\n'.repeat(MEGABYTE / 2 - 2)}"`],
  ])('%s finishes fast', (_label, text) => {
    const { ms } = timed(() => detect(text, { type: 'array', items: { type: 'string' } }));
    expect(ms).toBeLessThan(BOUND_MS);
  });
});

describe('JSON pointer locator', () => {
  it.each([
    ['', '{"a":1}', '{"a":1}'],
    ['/a', '{"a": [1, {"b": "x"}]}', '[1, {"b": "x"}]'],
    ['/a/1/b', '{"a": [1, {"b": "x"}]}', '"x"'],
    ['/a~1b', '{"a/b": true}', 'true'],
    ['/k', '{"k": 1, "k": 2}', '2'],
    ['/esc', '{"\\u0065sc": null}', 'null'],
    ['/s', '{"s": "with \\" quote and ] bracket"}', '"with \\" quote and ] bracket"'],
  ])('%s in %s', (pointer, text, expected) => {
    const span = locatePointer(text, pointer, { remaining: 1_000_000 });
    expect(span && text.slice(span.start, span.end)).toBe(expected);
  });

  it('gives up on a missing path or an exhausted budget', () => {
    expect(locatePointer('{"a":1}', '/b', { remaining: 1000 })).toBeUndefined();
    expect(locatePointer('[1,2]', '/5', { remaining: 1000 })).toBeUndefined();
    expect(locatePointer(`{"a":"${'x'.repeat(1000)}","b":1}`, '/b', { remaining: 100 })).toBeUndefined();
  });

  it('splits pointers per RFC 6901', () => {
    expect(pointerSegments('/a~0b/c~1d/')).toEqual(['a~b', 'c/d', '']);
  });
});

describe('ajv registry hygiene', () => {
  it('lets schemas with the same nested $id but different content coexist', () => {
    const asString = { type: 'object', properties: { x: { $id: 'https://example.com/item', type: 'string' } } };
    const asNumber = { type: 'object', properties: { x: { $id: 'https://example.com/item', type: 'number' } } };
    expect(detect('{"x":"s"}', asString)).toEqual([]);
    expect(detect('{"x":"s"}', asNumber)).toHaveLength(1);
    expect(detect('{"x":1}', asNumber)).toEqual([]);
  });

  it('does not grow ajv\'s own registry with each new schema', () => {
    detect('{}', { type: 'object' });
    const before = ajvRegistrySize();
    for (let index = 0; index < 50; index += 1) {
      const schema = {
        $id: `https://example.com/many/${index}`,
        definitions: { item: { $id: `https://example.com/many/${index}/item`, type: 'string' } },
        properties: { item: { $ref: `https://example.com/many/${index}/item` } },
      };
      detect('{"item":"x"}', schema);
      expect(() => detect('{}', { $id: `https://example.com/broken/${index}`, type: 'nope' })).toThrow();
    }
    expect(ajvRegistrySize()).toBe(before);
  });

  it('resolves references to nested $ids', () => {
    const schema = {
      $id: 'https://example.com/root',
      definitions: { whole: { $id: 'https://example.com/whole', type: 'integer' } },
      properties: { y: { $ref: 'https://example.com/whole' } },
    };
    expect(detect('{"y":1.5}', schema)).toEqual([expect.objectContaining({ entity: 'SCHEMA.VIOLATION' })]);
    expect(detect('{"y":1}', schema)).toEqual([]);
  });
});

describe('schema LRU', () => {
  it('forgets the least recently used text-keyed schema once more than SCHEMA_LRU_SIZE are seen', () => {
    const schemaNumbered = (index: number): Record<string, unknown> => ({ type: 'object', title: `lru-${index}` });
    const before = compiledSchemaCount();
    for (let index = 0; index <= SCHEMA_LRU_SIZE; index += 1) detect('{}', schemaNumbered(index));
    expect(compiledSchemaCount() - before).toBe(SCHEMA_LRU_SIZE + 1);
    // A rebuilt copy of the newest is still cached; a rebuilt copy of the oldest was evicted.
    detect('{}', schemaNumbered(SCHEMA_LRU_SIZE));
    expect(compiledSchemaCount() - before).toBe(SCHEMA_LRU_SIZE + 1);
    detect('{}', schemaNumbered(0));
    expect(compiledSchemaCount() - before).toBe(SCHEMA_LRU_SIZE + 2);
  });
});
