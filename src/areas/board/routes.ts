// GET /api/board.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { BoardQuery, BoardSchema } from './schemas.js';
import type { BoardService } from './service.js';

export const boardRoutes: FastifyPluginAsyncTypebox<{ board: BoardService }> = async (app, { board }) => {
  app.get(
    '/api/board',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['compliance'],
        summary: 'One page for leadership: agents by risk class, blocked and held calls, open findings by severity and age, control pass rate by framework, trend against the previous period',
        querystring: BoardQuery,
        response: { 200: BoardSchema },
      },
    },
    async (request) => board.board(request.query.days ?? 30),
  );
};
