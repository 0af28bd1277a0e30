// One place turns every error into application/problem+json (RFC 9457): problems thrown by
// services, validation errors (with `errors` naming each bad field), Fastify's body errors and the
// router's own errors. Anything else is a defect: logged in full, answered as a 500 with no detail.
// Unknown routes are answered by the edge plugin.
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { isStoreUnavailable } from '../lib/store-unavailable.js';
import { Problem, problem, type FieldError } from './problems.js';

interface AjvLikeError {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

function fieldErrors(error: FastifyError): FieldError[] {
  const context = error.validationContext ?? 'body';
  return (error.validation ?? []).map((item: AjvLikeError) => {
    let field = `/${context}${item.instancePath ?? ''}`;
    if (item.keyword === 'required' && typeof item.params?.missingProperty === 'string') {
      field += `/${item.params.missingProperty}`;
    }
    if (item.keyword === 'additionalProperties' && typeof item.params?.additionalProperty === 'string') {
      field += `/${item.params.additionalProperty}`;
    }
    return { field, message: item.message ?? 'is invalid' };
  });
}

/**
 * A stack overflow: some code walked a value nested deeper than it can. The limits at the edge
 * (body_max_depth, the YAML depth of policy texts) are meant to make this unreachable.
 */
function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && /call stack/i.test(error.message);
}

/**
 * Errors whose message is written for the caller: Fastify's own (malformed JSON, empty bodies,
 * bad headers) and zlib's (a compressed body that does not inflate). Any other message stays in
 * the log.
 */
const speaksToCaller = (error: FastifyError): boolean => typeof error.code === 'string' && (error.code.startsWith('FST_') || error.code.startsWith('Z_'));

/** Maps any thrown value onto the problem catalogue. */
export function toProblem(error: FastifyError): Problem {
  if (error instanceof Problem) return error;
  if (isStackOverflow(error)) return problem('invalid-request', 'the request nests too deeply for the gateway to process');
  if (error.validation) {
    const errors = fieldErrors(error);
    const summary = errors.map((item) => `${item.field} ${item.message}`).join('; ');
    return problem('invalid-request', `invalid request: ${summary}`, errors);
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return problem('body-too-large', error.message);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return error.statusCode === 415
        ? problem('unsupported-media-type', 'send the body as application/json')
        : problem('invalid-request', error.message);
    default:
      break;
  }
  // The database is restarting or failing over: a 503 the caller retries, not a defect.
  if (error.statusCode === undefined && isStoreUnavailable(error)) {
    return new Problem('unavailable', 'the database (or another service the gateway depends on) is not reachable right now; retry shortly', undefined, { 'retry-after': '1' });
  }
  const status = error.statusCode ?? 500;
  if (status === 413) return problem('body-too-large', error.message);
  if (status === 415) return problem('unsupported-media-type', error.message);
  if (status >= 400 && status < 500) {
    // Malformed JSON, empty JSON bodies, bad headers: Fastify already knows they are the caller's.
    return problem('invalid-request', speaksToCaller(error) ? error.message : 'the request could not be read');
  }
  return problem('internal', 'internal error');
}

export function sendProblem(reply: FastifyReply, request: FastifyRequest, issue: Problem): FastifyReply {
  if (issue.headers) reply.headers(issue.headers);
  if (issue.status === 401) reply.header('www-authenticate', 'Bearer');
  return reply.code(issue.status).type('application/problem+json').send(issue.toBody(request.url));
}

export const errorsPlugin = fp(
  async (app: FastifyInstance) => {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      const issue = toProblem(error);
      if (issue.status >= 500 || isStackOverflow(error)) {
        request.log.error({ err: error, reqId: request.id, method: request.method, url: request.url }, 'request failed');
      }
      return sendProblem(reply, request, issue);
    });
  },
  { name: 'parapet-errors' },
);

/** Errors the router raises before any route runs (bad URL encoding, over-long path segments). */
export function frameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const issue =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? problem('uri-too-long', 'a path segment is longer than any id this gateway issues')
      : problem('invalid-request', error.message);
  reply.header('x-request-id', request.id);
  void sendProblem(reply, request, issue);
}

const HEADER_LIMIT = `${Math.floor(maxHeaderSize / 1024)} KB`;

/**
 * Whether the parser overflowed while still reading the request line (the URL), not the headers:
 * nothing it read of the packet ends a line, and the packet starts like a request line.
 */
function inRequestLine(error: ConnectionError): boolean {
  // Node hands over a Buffer; Fastify's types describe its JSON form.
  const raw: unknown = error.rawPacket;
  const packet = Buffer.isBuffer(raw) ? raw : Buffer.from(error.rawPacket?.data ?? []);
  const seen = packet.subarray(0, error.bytesParsed ?? packet.length);
  return !seen.includes(0x0a) && /^[A-Z]+ /.test(seen.subarray(0, 16).toString('latin1'));
}

function clientProblem(error: ConnectionError): Problem {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return inRequestLine(error)
        ? problem('uri-too-long', `the request line is longer than the ${HEADER_LIMIT} the gateway reads for it and the headers`)
        : problem('headers-too-large', `the request line and headers are longer than the ${HEADER_LIMIT} the gateway reads`);
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return problem('request-timeout', 'the request did not arrive in time');
    case 'HPE_INVALID_URL':
      return problem('invalid-request', 'the request target contains a byte HTTP does not allow there: percent-encode it');
    case 'HPE_INVALID_METHOD':
      return problem('invalid-request', 'the request does not start with a valid HTTP method');
    case 'HPE_INVALID_HEADER_TOKEN':
      return problem('invalid-request', 'a header name or value contains a byte HTTP does not allow');
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_INVALID_CHUNK_SIZE':
      return problem('invalid-request', 'the body length or transfer encoding is malformed');
    default:
      return problem('invalid-request', 'the request is not valid HTTP/1.1');
  }
}

/**
 * Answers requests Node's HTTP parser refuses before Fastify sees them (an over-long URL or
 * headers, bytes HTTP does not allow, malformed framing, a client too slow to send its request):
 * Node would write a bare status line, Fastify a body of its own shape; this writes a problem like
 * every other answer. The connection is closed: the parser cannot find the next request on it.
 */
export function clientErrorHandler(error: ConnectionError, socket: Socket): void {
  // A connection the client reset has no one to answer; a second error on a closed socket neither.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // As Node does: an answer already under way on this connection must not be corrupted by another.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && inFlight?.headersSent !== true) {
    const issue = clientProblem(error);
    const body = JSON.stringify(issue.toBody());
    socket.write(
      `HTTP/1.1 ${issue.status} ${STATUS_CODES[issue.status] ?? ''}\r\n` +
        `Content-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
