// GET|POST /api/eval/suites, GET /api/eval/suites/{key} (viewer to read, operator to change);
// POST /api/eval/suites/{key}/cases and POST /api/eval/suites/{key}/cases/from-trace (operator).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../../infra/auth/principal.js';
import {
  AddCaseBody,
  CaseSchema,
  CreateSuiteBody,
  FromTraceBody,
  FromTraceQuery,
  SuiteDetailSchema,
  SuiteKeyParams,
  SuiteList,
  SuiteSchema,
} from './schemas.js';
import type { SuiteService } from './service.js';

export const suiteRoutes: FastifyPluginAsyncTypebox<{ suites: SuiteService }> = async (app, { suites }) => {
  const tags = ['evaluations'];
  app.get(
    '/api/eval/suites',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'Eval suites by key, with their case count, version and latest run', response: { 200: SuiteList } },
    },
    async () => suites.list(),
  );
  app.post(
    '/api/eval/suites',
    {
      config: { access: 'operator' },
      schema: { tags, summary: 'Create an eval suite (409 when the key exists); audited', body: CreateSuiteBody, response: { 201: SuiteSchema } },
    },
    async (request, reply) => reply.code(201).send(await suites.create(request.principal as Principal, request.body)),
  );
  app.get(
    '/api/eval/suites/:key',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'An eval suite with its cases in order (at most 5000)', params: SuiteKeyParams, response: { 200: SuiteDetailSchema } },
    },
    async (request) => suites.get(request.params.key),
  );
  app.post(
    '/api/eval/suites/:key/cases',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Add a case to a suite (201), or replace the case with the same key (200, same id); the suite version grows by one; audited',
        params: SuiteKeyParams,
        body: AddCaseBody,
        response: { 200: CaseSchema, 201: CaseSchema },
      },
    },
    async (request, reply) => {
      const added = await suites.addCase(request.principal as Principal, request.params.key, request.body);
      return reply.code(added.created ? 201 : 200).send(added.case);
    },
  );
  app.post(
    '/api/eval/suites/:key/cases/from-trace',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary:
          "Make a case from a recorded decision: its content as the record keeps it, its effective verdict and entities as expected; 422 when record_content left nothing to replay; audited",
        params: SuiteKeyParams,
        querystring: FromTraceQuery,
        body: FromTraceBody,
        response: { 201: CaseSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await suites.fromTrace(request.principal as Principal, request.params.key, request.query.trace_id)),
  );
};
