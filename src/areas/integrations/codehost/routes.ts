// /api/integrations/codehost/*: POST connect (admin), GET repos (viewer), POST scan (operator),
// GET scans/{scan_id} (viewer), POST webhook-secret (admin) and POST webhook (public: the
// signature is the credential; registered in its own context, whose JSON parser keeps the raw body).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../../infra/auth/principal.js';
import {
  ConnectBody,
  ConnectionSchema,
  EmptyBody,
  RepoListSchema,
  ScanAcceptedSchema,
  ScanBody,
  ScanParams,
  ScanSchema,
  WEBHOOK_BODY_LIMIT,
  WebhookAnswerSchema,
  WebhookBody,
  WebhookHeaders,
  WebhookSecretSchema,
} from './schemas.js';
import type { CodehostService } from './service.js';
import { DELIVERY_HEADER, EVENT_HEADER, headerValue, keepRawJsonBodies, rawBodyOf, SIGNATURE_HEADER } from './webhook.js';

export const codehostRoutes: FastifyPluginAsyncTypebox<{ codehost: CodehostService }> = async (app, { codehost }) => {
  const tags = ['integrations'];
  app.post(
    '/api/integrations/codehost/connect',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary:
          'Connect the code host (setting codehost_api_url) with an access token: checked against the code host (422 when it refuses the token, 503 when it cannot be reached), sealed at once, never answered back; replaces an earlier connection',
        body: ConnectBody,
        response: { 200: ConnectionSchema },
      },
    },
    async (request) => codehost.connect(request.principal as Principal, request.body.access_token),
  );
  app.get(
    '/api/integrations/codehost/repos',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'Repositories the connection can read (at most 1000); 409 when not connected', response: { 200: RepoListSchema } },
    },
    async () => codehost.repos(),
  );
  app.post(
    '/api/integrations/codehost/scan',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary:
          'Queue a scan of a repository through the code host API (job codehost.scan): frameworks, model clients, MCP servers, tools, risky system prompts and hard-coded secrets with file and line, which become findings and discovery sites',
        body: ScanBody,
        response: { 202: ScanAcceptedSchema },
      },
    },
    async (request, reply) => reply.code(202).send(await codehost.requestScan(request.principal as Principal, request.body)),
  );
  app.get(
    '/api/integrations/codehost/scans/:scan_id',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'One scan with its report once completed', params: ScanParams, response: { 200: ScanSchema } },
    },
    async (request) => codehost.getScan(request.params.scan_id),
  );
  app.post(
    '/api/integrations/codehost/webhook-secret',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Create or replace the webhook secret: shown once in this answer, stored sealed; the code host signs each delivery with it (X-Hub-Signature-256, HMAC-SHA256 of the raw body)',
        body: EmptyBody,
        response: { 201: WebhookSecretSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await codehost.createWebhookSecret(request.principal as Principal)),
  );

  await app.register(async (signed) => {
    keepRawJsonBodies(signed, WEBHOOK_BODY_LIMIT);
    signed.post(
      '/api/integrations/codehost/webhook',
      {
        config: { access: 'public' },
        bodyLimit: WEBHOOK_BODY_LIMIT,
        schema: {
          tags,
          summary:
            'The code host\'s webhook (no credential: the signature is one). X-Hub-Signature-256 must be sha256=<HMAC-SHA256 of the raw body under the webhook secret> (else 401, nothing written); X-GitHub-Delivery is required and a delivery seen before is 409; ping answers 200, push queues a rescan of the repository at the pushed commit (202 with scan_id), other events are 202 ignored',
          headers: WebhookHeaders,
          body: WebhookBody,
          response: { 200: WebhookAnswerSchema, 202: WebhookAnswerSchema },
        },
      },
      async (request, reply) => {
        const { status, answer } = await codehost.receiveWebhook({
          raw: rawBodyOf(request),
          body: request.body as WebhookBody,
          signature: headerValue(request, SIGNATURE_HEADER),
          delivery: headerValue(request, DELIVERY_HEADER),
          event: headerValue(request, EVENT_HEADER),
        });
        return reply.code(status).send(answer);
      },
    );
  });
};
