// POST /api/controls/sync, POST /api/controls/compute, GET /api/controls, GET /api/compliance/status,
// GET /api/frameworks, GET /api/frameworks/{key}, POST /api/frameworks/review (spec 02
// "Compliance, controls, evidence, risk"): viewers read, operators sync, compute and review.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import { EmptyBody } from '../../infra/http/schemas.js';
import {
  ComplianceStatusQuery,
  ComplianceStatusSchema,
  ComputeQuery,
  ComputeResultSchema,
  ControlListQuery,
  ControlListSchema,
  FrameworkDetailSchema,
  FrameworkKeyParams,
  FrameworkListSchema,
  ReviewBody,
  ReviewSchema,
  SyncResultSchema,
} from './schemas.js';
import type { ComplianceService } from './service.js';

export const complianceRoutes: FastifyPluginAsyncTypebox<{ compliance: ComplianceService }> = async (app, { compliance }) => {
  const tags = ['compliance'];
  app.post(
    '/api/controls/sync',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Load the control catalogue and frameworks from catalogue/; the same files again change nothing, changed files make a new version',
        body: EmptyBody,
        response: { 200: SyncResultSchema },
      },
    },
    async (request) => compliance.sync(actorOf(request.principal as Principal)),
  );

  app.post(
    '/api/controls/compute',
    {
      config: { access: 'operator' },
      schema: { tags, summary: 'Evaluate every control over the last window_days from live records and store the results with their evidence', querystring: ComputeQuery, body: EmptyBody, response: { 200: ComputeResultSchema } },
    },
    async (request) => compliance.computeAs(request.principal as Principal, request.query.window_days),
  );

  app.get(
    '/api/controls',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: "Every control: its definition, the clauses it maps to, its latest result and history", querystring: ControlListQuery, response: { 200: ControlListSchema } },
    },
    async (request) => compliance.listControls(request.query.history),
  );

  app.get(
    '/api/compliance/status',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'Per framework: clauses covered, failing and not evidenced by the latest results, failing first', querystring: ComplianceStatusQuery, response: { 200: ComplianceStatusSchema } },
    },
    async (request) => compliance.status(request.query.framework),
  );

  app.get(
    '/api/frameworks',
    { config: { access: 'viewer' }, schema: { tags, summary: 'The frameworks of the catalogue with their roll-up', response: { 200: FrameworkListSchema } } },
    async () => compliance.listFrameworks(),
  );

  app.get(
    '/api/frameworks/:key',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'A framework: its clauses with the controls that cover them and their live status, and the reviews recorded', params: FrameworkKeyParams, response: { 200: FrameworkDetailSchema } },
    },
    async (request) => compliance.framework(request.params.key),
  );

  app.post(
    '/api/frameworks/review',
    {
      config: { access: 'operator' },
      schema: { tags, summary: "Record a person's review of a control against a framework clause (422 when the clause does not map the control)", body: ReviewBody, response: { 201: ReviewSchema } },
    },
    async (request, reply) => reply.code(201).send(await compliance.review(request.principal as Principal, request.body)),
  );
};
