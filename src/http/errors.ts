// One place turns every error into application/problem+json (RFC 9457): problems thrown by
// services, validation errors (with `errors` naming each bad field), Fastify's body errors and the
// router's own errors. Anything else is a defect: logged in full, answered as a 500 with no detail.
// Unknown routes are answered by the edge plugin.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
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

/** Maps any thrown value onto the problem catalogue. */
export function toProblem(error: FastifyError): Problem {
  if (error instanceof Problem) return error;
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
  const status = error.statusCode ?? 500;
  if (status === 413) return problem('body-too-large', error.message);
  if (status === 415) return problem('unsupported-media-type', error.message);
  if (status >= 400 && status < 500) {
    // Malformed JSON, empty JSON bodies, bad headers: Fastify already knows they are the caller's.
    return problem('invalid-request', error.message);
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
      if (issue.status >= 500) {
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
