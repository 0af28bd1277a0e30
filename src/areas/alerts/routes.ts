// GET /api/alerts/chat (viewer); PUT and DELETE /api/alerts/chat (admin: the URL is a secret);
// POST /api/alerts/chat/test (operator).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../infra/auth/principal.js';
import { problem } from '../../infra/http/problems.js';
import { EmptyBody, ProblemRef } from '../../infra/http/schemas.js';
import { ChatChannelSchema, DeletedChannelSchema, PutChatChannelBody, TestSentSchema } from './schemas.js';
import { ChatPostFailed, type ChatAlertService } from './service.js';

export const alertRoutes: FastifyPluginAsyncTypebox<{ alerts: ChatAlertService }> = async (app, { alerts }) => {
  const tags = ['alerts'];
  app.get(
    '/api/alerts/chat',
    {
      config: { access: 'viewer' },
      schema: {
        tags,
        summary: 'The chat alert channel: its URL masked, the minimum severity and who set it; or configured false',
        response: { 200: ChatChannelSchema },
      },
    },
    async () => alerts.get(),
  );
  app.put(
    '/api/alerts/chat',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: "Set the chat tool's incoming-webhook URL (sealed at once, shown masked) and the minimum severity posted; 422 when the outbound policy refuses the URL",
        body: PutChatChannelBody,
        response: { 200: ChatChannelSchema },
      },
    },
    async (request) => alerts.put(request.principal as Principal, request.body),
  );
  app.delete(
    '/api/alerts/chat',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Remove the chat alert channel (alerts already queued are skipped); 404 when none is configured',
        response: { 200: DeletedChannelSchema },
      },
    },
    async (request) => alerts.remove(request.principal as Principal),
  );
  app.post(
    '/api/alerts/chat/test',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: "Post a test message to the chat channel now: the webhook's status, or 502 saying why it did not take it; 409 when no channel is configured",
        body: EmptyBody,
        response: { 200: TestSentSchema, 502: ProblemRef },
      },
    },
    async (request) => {
      try {
        return await alerts.test(request.principal as Principal);
      } catch (error) {
        if (!(error instanceof ChatPostFailed)) throw error;
        throw problem('bad-gateway', `the chat webhook did not take the message: ${error.message}`);
      }
    },
  );
};
