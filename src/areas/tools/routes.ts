// GET|POST /api/tools.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../infra/auth/principal.js';
import { RegisterToolBody, ToolList, ToolSchema } from './schemas.js';
import type { ToolService } from './service.js';

const tags = ['tools'];

export const toolRoutes: FastifyPluginAsyncTypebox<{ tools: ToolService }> = async (app, { tools }) => {
  app.get('/api/tools', { config: { access: 'viewer' }, schema: { tags, summary: 'Registered tools', response: { 200: ToolList } } }, async () =>
    tools.list(),
  );

  app.post(
    '/api/tools',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: "Register a tool, or replace its record: impact, argument JSON Schema, output trust",
        body: RegisterToolBody,
        response: { 200: ToolSchema, 201: ToolSchema },
      },
    },
    async (request, reply) => {
      const { created, tool } = await tools.register(request.principal as Principal, request.body);
      return reply.code(created ? 201 : 200).send(tool);
    },
  );
};
