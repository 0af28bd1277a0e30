// GET and POST /api/rules/{rule_id}/examples, POST /api/rules/{rule_id}/examples/check,
// DELETE /api/rules/{rule_id}/examples/{example_id}.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../infra/auth/principal.js';
import {
  CheckResultSchema,
  CheckRuleExamplesBody,
  CreateRuleExampleBody,
  ListRuleExamplesQuery,
  RuleExampleList,
  RuleExampleParams,
  RuleExampleSchema,
  RuleIdParams,
} from './schemas.js';
import type { RuleExampleService } from './service.js';

const tags = ['rule-examples'];

export const ruleExampleRoutes: FastifyPluginAsyncTypebox<{ ruleExamples: RuleExampleService }> = async (app, { ruleExamples }) => {
  app.get(
    '/api/rules/:rule_id/examples',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: "A rule's examples, newest first", params: RuleIdParams, querystring: ListRuleExamplesQuery, response: { 200: RuleExampleList } },
    },
    async (request) => ruleExamples.list(request.params.rule_id, request.query),
  );

  app.post(
    '/api/rules/:rule_id/examples',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Pin a recorded decision as an example the rule should (not) fire on; its facts are copied',
        params: RuleIdParams,
        body: CreateRuleExampleBody,
        response: { 201: RuleExampleSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await ruleExamples.create(request.principal as Principal, request.params.rule_id, request.body)),
  );

  app.post(
    '/api/rules/:rule_id/examples/check',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Evaluate the rule (from a candidate policy text or the live policy) over its examples; records nothing',
        params: RuleIdParams,
        body: CheckRuleExamplesBody,
        response: { 200: CheckResultSchema },
      },
    },
    async (request) => ruleExamples.check(request.params.rule_id, request.body),
  );

  app.delete(
    '/api/rules/:rule_id/examples/:example_id',
    {
      config: { access: 'operator' },
      schema: { tags, summary: 'Remove an example', params: RuleExampleParams, response: { 200: RuleExampleSchema } },
    },
    async (request) => ruleExamples.remove(request.principal as Principal, request.params.rule_id, request.params.example_id),
  );
};
