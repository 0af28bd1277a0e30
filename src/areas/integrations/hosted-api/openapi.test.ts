// The OpenAPI reader without HTTP: field classes by words, $ref cycles and chains, ceilings.
import { describe, expect, it } from 'vitest';
import { classifyField, DocumentUnreadable, parseDocumentText, summariseDocument, wordsOf } from './openapi.js';

describe('the OpenAPI reader', () => {
  it('splits names into words at separators and camelCase humps', () => {
    expect(wordsOf('cardNumber')).toEqual(['card', 'number']);
    expect(wordsOf('customer_email-address')).toEqual(['customer', 'email', 'address']);
    expect(wordsOf('/v1/models/{model}:generateContent')).toEqual(['v1', 'models', 'model', 'generate', 'content']);
  });

  it('classifies field names by their words, not by substrings', () => {
    expect(classifyField('card_number')).toBe('financial');
    expect(classifyField('IBAN')).toBe('financial');
    expect(classifyField('customerEmail')).toBe('personal');
    expect(classifyField('dateOfBirth')).toBe('personal');
    expect(classifyField('api_key')).toBe('credentials');
    expect(classifyField('apiKey')).toBe('credentials');
    expect(classifyField('diagnosis_code')).toBe('health');
    // max_tokens is a model setting, discard is not a card, name alone is not personal.
    expect(classifyField('max_tokens')).toBeNull();
    expect(classifyField('discard')).toBeNull();
    expect(classifyField('name')).toBeNull();
  });

  it('follows $ref cycles once and stops long chains', () => {
    const chain: Record<string, unknown> = {};
    for (let index = 0; index < 40; index += 1) chain[`S${index}`] = { $ref: `#/components/schemas/S${index + 1}` };
    chain.S40 = { type: 'object', properties: { email: { type: 'string' } } };
    chain.Loop = { type: 'object', properties: { password: { type: 'string' }, next: { $ref: '#/components/schemas/Loop' } } };
    const summary = summariseDocument({
      openapi: '3.0.0',
      components: { schemas: chain },
      paths: {
        '/far': { get: { responses: { '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/S0' } } } } } } },
        '/loop': { get: { responses: { '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Loop' } } } } } } },
      },
    });
    expect(summary.exposed_data.map((field) => field.field)).toEqual(['password']);
    expect(summary.auth.risks.map((risk) => risk.code)).toEqual(['no_authentication_declared', 'unauthenticated_operations']);
  });

  it('cuts paths past the ceiling and says so', () => {
    const paths: Record<string, unknown> = {};
    for (let index = 0; index < 2100; index += 1) paths[`/p${index}`] = { get: { responses: {} } };
    const summary = summariseDocument({ openapi: '3.0.0', paths });
    expect(summary.truncated).toBe(true);
    expect(summary.operations_count).toBe(2000);
  });

  it('refuses what is not an OpenAPI document, too deep JSON and an alias bomb', () => {
    expect(() => summariseDocument({ openapi: '4.0' })).toThrow(DocumentUnreadable);
    expect(() => summariseDocument(['openapi'])).toThrow(/not an object/);
    expect(() => parseDocumentText(`{"a":${'['.repeat(65)}${']'.repeat(65)}}`)).toThrow(/deeper than 64/);
    expect(() => parseDocumentText(`${'- '.repeat(70)}x`)).toThrow(/deeper than 64/);
    expect(() => parseDocumentText('')).toThrow(/empty/);
    expect(parseDocumentText('{"openapi":"3.0.0","x":"[[[[["}').format).toBe('json');
  });
});
