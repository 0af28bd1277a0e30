// POST /api/waitlist (public; the gateway-wide limiter counts it per client address) and
// GET /api/waitlist (operator): the entries as JSON pages, or all of them with format=csv.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Principal } from '../../infra/auth/principal.js';
import { JoinedSchema, JoinWaitlistBody, ListWaitlistQuery, WAITLIST_BODY_LIMIT, WaitlistListSchema } from './schemas.js';
import type { WaitlistService } from './service.js';

export const waitlistRoutes: FastifyPluginAsyncTypebox<{ waitlist: WaitlistService }> = async (app, { waitlist }) => {
  const tags = ['waitlist'];
  app.post(
    '/api/waitlist',
    {
      config: { access: 'public' },
      bodyLimit: WAITLIST_BODY_LIMIT,
      schema: {
        tags,
        summary:
          'Join the waitlist: 201 for a new address, 200 when it (trimmed, in any case) is already on the list; the answer says nothing else about the list. Nothing is sent anywhere',
        body: JoinWaitlistBody,
        response: { 200: JoinedSchema, 201: JoinedSchema },
      },
    },
    async (request, reply) => {
      const { created } = await waitlist.join(request.body);
      return reply.code(created ? 201 : 200).send({ status: 'joined' });
    },
  );
  app.get(
    '/api/waitlist',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'The waitlist, newest first: JSON pages, or with format=csv every entry as CSV (formula-like cells quoted; the export is audited)',
        querystring: ListWaitlistQuery,
        response: {
          200: {
            description: 'a page of entries, or the CSV file',
            content: {
              'application/json': { schema: WaitlistListSchema },
              'text/csv': { schema: Type.String({ description: 'email,source,company,note,signups,created_at,updated_at' }) },
            },
          },
        },
      },
    },
    async (request, reply) => {
      if (request.query.format === 'csv') {
        const csv = await waitlist.exportCsv(request.principal as Principal);
        return reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="waitlist.csv"').send(csv);
      }
      return waitlist.list(request.query);
    },
  );
};
