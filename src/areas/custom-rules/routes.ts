// GET and POST /api/custom-rules, POST /api/custom-rules/try, DELETE /api/custom-rules/{key}.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../infra/auth/principal.js';
import {
  CustomRuleKeyParams,
  CustomRuleList,
  CustomRuleSchema,
  ListCustomRulesQuery,
  SavedCustomRuleSchema,
  TryCustomRuleBody,
  TryResultSchema,
  UpsertCustomRuleBody,
} from './schemas.js';
import type { CustomRuleService } from './service.js';

const tags = ['custom-rules'];

export const customRuleRoutes: FastifyPluginAsyncTypebox<{ customRules: CustomRuleService }> = async (app, { customRules }) => {
  app.get(
    '/api/custom-rules',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'Custom keyword, regex and sequence rules, newest first', querystring: ListCustomRulesQuery, response: { 200: CustomRuleList } },
    },
    async (request) => customRules.list(request.query),
  );

  app.post(
    '/api/custom-rules',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Create or replace a custom rule (by key); enforced by the custom-rules pack in every process within a second',
        body: UpsertCustomRuleBody,
        response: { 200: SavedCustomRuleSchema },
      },
    },
    async (request) => customRules.upsert(request.principal as Principal, request.body),
  );

  app.post(
    '/api/custom-rules/try',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Run a rule (not saved) over a text and say what matched; records nothing',
        body: TryCustomRuleBody,
        response: { 200: TryResultSchema },
      },
    },
    async (request) => customRules.tryRule(request.body),
  );

  app.delete(
    '/api/custom-rules/:key',
    {
      config: { access: 'operator' },
      schema: { tags, summary: 'Remove a custom rule', params: CustomRuleKeyParams, response: { 200: CustomRuleSchema } },
    },
    async (request) => customRules.remove(request.principal as Principal, request.params.key),
  );
};
