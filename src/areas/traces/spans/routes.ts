// POST /v1/traces (OTLP/HTTP trace export, agent traffic), GET /api/traces/resolve and
// GET /api/traces/{trace_id}/spans (viewer). The protobuf parser and the gzip inflation are
// registered in the ingest route's own context: no other route accepts those bodies.
import { createGunzip } from 'node:zlib';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest, preParsingHookHandler } from 'fastify';
import type { Principal } from '../../../infra/auth/principal.js';
import { problem } from '../../../infra/http/problems.js';
import { TraceIdParams } from '../schemas.js';
import type { OtlpRequest } from './normalize.js';
import { decodeTraceRequest, encodeTraceResponse } from './protobuf.js';
import { ExportTraceBody, ExportTraceResponse, ListSpansQuery, OTLP_BODY_LIMIT, ResolveQuery, ResolveSchema, SpanList } from './schemas.js';
import type { SpanService } from './service.js';

const PROTOBUF = 'application/x-protobuf';

/**
 * Exporters may compress (OTLP/HTTP allows gzip). The inflated stream is what the body limit
 * counts, so a small compressed body cannot expand past it; `receivedEncodedLength` lets Fastify
 * check Content-Length against the bytes that actually arrived.
 */
const inflate: preParsingHookHandler = (request, _reply, payload, done) => {
  const encoding = (request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity' || encoding === '') return done(null, payload);
  if (encoding !== 'gzip') return done(problem('unsupported-media-type', `Content-Encoding ${encoding} is not supported: send gzip or no encoding`));
  const inflated = createGunzip() as ReturnType<typeof createGunzip> & { receivedEncodedLength: number };
  inflated.receivedEncodedLength = 0;
  payload.on('data', (chunk: Buffer) => {
    inflated.receivedEncodedLength += chunk.length;
  });
  payload.on('error', (error) => inflated.destroy(error));
  payload.pipe(inflated);
  done(null, inflated);
};

/** The agent named by the request itself; a header that disagrees with an agent credential is refused. */
function requestAgents(request: FastifyRequest): { credentialAgent: string | null; headerAgent: string | null } {
  const principal = request.principal as Principal;
  const raw = request.headers['x-parapet-agent'];
  const header = typeof raw === 'string' && raw.trim() !== '' ? raw.trim() : null;
  if (principal.kind === 'agent') {
    if (header !== null && header !== principal.agentSlug) {
      throw problem('forbidden', `this credential speaks for agent ${principal.agentSlug}, not ${header}`);
    }
    return { credentialAgent: principal.agentSlug, headerAgent: null };
  }
  return { credentialAgent: null, headerAgent: header };
}

export const otlpRoutes: FastifyPluginAsyncTypebox<{ spans: SpanService }> = async (app, { spans }) => {
  await app.register(async (ingest) => {
    ingest.addContentTypeParser(PROTOBUF, { parseAs: 'buffer', bodyLimit: OTLP_BODY_LIMIT }, (_request, body, done) => {
      try {
        done(null, decodeTraceRequest(body as Buffer));
      } catch (error) {
        done(error as Error, undefined);
      }
    });

    ingest.post(
      '/v1/traces',
      {
        config: { access: 'traffic' },
        bodyLimit: OTLP_BODY_LIMIT,
        preParsing: [inflate],
        schema: {
          tags: ['traces'],
          summary: 'OTLP/HTTP trace export (application/json or application/x-protobuf, optionally gzip): spans are stored and linked to decisions',
          consumes: ['application/json', PROTOBUF],
          produces: ['application/json', PROTOBUF],
          body: ExportTraceBody,
          response: { 200: ExportTraceResponse },
        },
      },
      async (request, reply) => {
        const binary = (request.headers['content-type'] ?? '').toLowerCase().startsWith(PROTOBUF);
        const result = await spans.ingest(request.body as OtlpRequest, { idEncoding: binary ? 'base64' : 'hex', ...requestAgents(request) });
        if (binary) return reply.type(PROTOBUF).send(encodeTraceResponse(result.rejected, result.errorMessage));
        return result.rejected === 0 ? {} : { partialSuccess: { rejectedSpans: String(result.rejected), errorMessage: result.errorMessage } };
      },
    );
  });

  // A static segment: Fastify's router prefers it to /api/traces/:trace_id whatever the order.
  app.get(
    '/api/traces/resolve',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['traces'],
        summary: 'Map an external run id (or an OpenTelemetry trace id, system otel) to its traces and decisions',
        querystring: ResolveQuery,
        response: { 200: ResolveSchema },
      },
    },
    async (request) => spans.resolve(request.query.system, request.query.external_id),
  );

  app.get(
    '/api/traces/:trace_id/spans',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['traces'],
        summary: 'Spans linked to one recorded decision: those of its trace id and those naming it, newest first',
        params: TraceIdParams,
        querystring: ListSpansQuery,
        response: { 200: SpanList },
      },
    },
    async (request) => spans.spansOf(request.params.trace_id, request.query),
  );
};
