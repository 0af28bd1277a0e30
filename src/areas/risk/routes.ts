// POST /api/risk/assessments/{slug} (operator); GET /api/risk/classify/{slug} and
// GET /api/risk/register (viewer).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../infra/auth/principal.js';
import { AssessBody, AssessmentSchema, ClassificationSchema, RegisterSchema, SlugParams } from './schemas.js';
import type { RiskService } from './service.js';

export const riskRoutes: FastifyPluginAsyncTypebox<{ risk: RiskService }> = async (app, { risk }) => {
  const tags = ['risk'];
  app.post(
    '/api/risk/assessments/:slug',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: "Record a person's risk assessment of an agent (EU AI Act class, inherent and residual risk, answers, review interval, optional sign-off by a named person); earlier ones are kept",
        params: SlugParams,
        body: AssessBody,
        response: { 201: AssessmentSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await risk.assess(request.principal as Principal, request.params.slug, request.body)),
  );
  app.get(
    '/api/risk/classify/:slug',
    {
      config: { access: 'viewer' },
      schema: {
        tags,
        summary: "A deterministic EU AI Act class for an agent from its declarations and observed traffic, with the rules that fired and the questions left open",
        params: SlugParams,
        response: { 200: ClassificationSchema },
      },
    },
    async (request) => risk.classify(request.params.slug),
  );
  app.get(
    '/api/risk/register',
    {
      config: { access: 'viewer' },
      schema: {
        tags,
        summary: 'Every registered agent with its class (assessed, else provisional), residual risk, owner, sign-off, next review and open critical findings; overdue and high-risk first',
        response: { 200: RegisterSchema },
      },
    },
    async () => risk.register(),
  );
};
