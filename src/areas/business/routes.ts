// POST /api/business/compile, GET and POST /api/business/rules, POST /api/business/rules/{key}/mode.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../infra/auth/principal.js';
import {
  BusinessRuleKeyParams,
  BusinessRuleList,
  BusinessRuleSchema,
  CompileBody,
  CompileResultSchema,
  ListBusinessRulesQuery,
  SaveBusinessRuleBody,
  SetBusinessModeBody,
} from './schemas.js';
import type { BusinessRuleService } from './service.js';

const tags = ['business-rules'];

export const businessRoutes: FastifyPluginAsyncTypebox<{ businessRules: BusinessRuleService }> = async (app, { businessRules }) => {
  app.post(
    '/api/business/compile',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Turn a plain-language rule into a structured definition, without a model; saves nothing',
        body: CompileBody,
        response: { 200: CompileResultSchema },
      },
    },
    async (request) => businessRules.compile(request.body.text),
  );

  app.get(
    '/api/business/rules',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'Saved business rules, newest first', querystring: ListBusinessRulesQuery, response: { 200: BusinessRuleList } },
    },
    async (request) => businessRules.list(request.query),
  );

  app.post(
    '/api/business/rules',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Save a business rule from its definition (create or replace by key); new rules start in observe',
        body: SaveBusinessRuleBody,
        response: { 200: BusinessRuleSchema },
      },
    },
    async (request) => businessRules.save(request.principal as Principal, request.body),
  );

  app.post(
    '/api/business/rules/:key/mode',
    {
      config: { access: 'operator' },
      schema: { tags, summary: 'Move one business rule between observe and enforce', params: BusinessRuleKeyParams, body: SetBusinessModeBody, response: { 200: BusinessRuleSchema } },
    },
    async (request) => businessRules.setMode(request.principal as Principal, request.params.key, request.body.mode),
  );
};
