// The signed webhook's edge: the JSON body parsed with its raw bytes kept (the signature covers the
// bytes as sent, not any re-serialisation), and the signature check (HMAC-SHA256 under the webhook
// secret, compared in constant time).
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { nestsDeeperThan } from '../../../infra/http/json-body.js';
import { problem } from '../../../infra/http/problems.js';

export const SIGNATURE_HEADER = 'x-hub-signature-256';
export const DELIVERY_HEADER = 'x-github-delivery';
export const EVENT_HEADER = 'x-github-event';
/** Event payloads are shallow; deeper JSON is refused before anything walks it. */
const MAX_DEPTH = 64;
const SIGNATURE_PREFIX = 'sha256=';
const HEX_64 = /^[0-9a-fA-F]{64}$/;
const DELIVERY_ID = /^[A-Za-z0-9._:-]{1,200}$/;
const EVENT_NAME = /^[a-z_]{1,100}$/;

/** The raw body of each webhook request, kept by the parser for the signature check. */
const rawBodies = new WeakMap<FastifyRequest, Buffer>();

/** The bytes the request carried (empty when it had no body). */
export function rawBodyOf(request: FastifyRequest): Buffer {
  return rawBodies.get(request) ?? Buffer.alloc(0);
}

/**
 * Replaces the JSON parser in the webhook's own plugin context: the body is read as bytes, kept,
 * and parsed with the gateway's parser behind a depth limit. No other route is affected.
 */
export function keepRawJsonBodies(app: FastifyInstance, bodyLimit: number): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit }, (request, body, done) => {
    const raw = body as Buffer;
    rawBodies.set(request, raw);
    const text = raw.toString('utf8');
    if (nestsDeeperThan(text, MAX_DEPTH)) {
      done(problem('invalid-request', `the JSON body nests deeper than ${MAX_DEPTH} levels`), undefined);
      return;
    }
    parse(request, text, done);
  });
}

/** Whether `header` is `sha256=<hex>` of HMAC-SHA256(secret, raw); constant time over the digest. */
export function signatureMatches(secret: string, raw: Buffer, header: string | undefined): boolean {
  if (header === undefined || !header.startsWith(SIGNATURE_PREFIX)) return false;
  const hex = header.slice(SIGNATURE_PREFIX.length);
  if (!HEX_64.test(hex)) return false;
  const given = Buffer.from(hex, 'hex');
  const expected = createHmac('sha256', secret).update(raw).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The signature over `raw` as the code host sends it (for tests and for documentation). */
export function signatureOf(secret: string, raw: Buffer | string): string {
  return SIGNATURE_PREFIX + createHmac('sha256', secret).update(raw).digest('hex');
}

export function deliveryIdProblem(value: string | undefined): string | null {
  if (value === undefined || value === '') return `the ${DELIVERY_HEADER} header is required`;
  return DELIVERY_ID.test(value) ? null : `the ${DELIVERY_HEADER} header must be 1-200 letters, digits, '.', '_', ':' or '-'`;
}

export function eventNameProblem(value: string | undefined): string | null {
  if (value === undefined || value === '') return `the ${EVENT_HEADER} header is required`;
  return EVENT_NAME.test(value) ? null : `the ${EVENT_HEADER} header must be a lower-case event name`;
}

/** A single header value: a repeated header is not one value. */
export function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}
