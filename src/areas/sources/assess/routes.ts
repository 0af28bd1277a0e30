// POST /api/sources/assess and POST /api/sources/context-check: access `any`, since applications
// call them in their request path with whatever credential they hold.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { speakingAgent, type Principal } from '../../../infra/auth/principal.js';
import { ASSESS_BODY_LIMIT, AssessBody, AssessmentSchema, ContextCheckBody, ContextCheckSchema } from './schemas.js';
import type { AssessService } from './service.js';

/** An agent credential checks as its agent; a traffic token may name one in X-Parapet-Agent. */
function callerAgent(request: FastifyRequest): string | null {
  const principal = request.principal as Principal;
  const raw = request.headers['x-parapet-agent'];
  const header = typeof raw === 'string' ? raw : undefined;
  if (principal.kind === 'agent' || (principal.kind === 'traffic' && header !== undefined)) return speakingAgent(principal, { header });
  return null;
}

export const assessRoutes: FastifyPluginAsyncTypebox<{ assess: AssessService }> = async (app, { assess }) => {
  const tags = ['sources'];
  app.post(
    '/api/sources/assess',
    {
      config: { access: 'any' },
      bodyLimit: ASSESS_BODY_LIMIT,
      schema: {
        tags,
        summary:
          'How far each sentence of an answer is supported by the retrieved chunks (lexical overlap), and each chunk flagged from the source registry (stale, deprecated, tier, off-domain, unregistered)',
        body: AssessBody,
        response: { 200: AssessmentSchema },
      },
    },
    async (request) => assess.assess(request.body),
  );
  app.post(
    '/api/sources/context-check',
    {
      config: { access: 'any' },
      bodyLimit: ASSESS_BODY_LIMIT,
      schema: {
        tags,
        summary:
          'Retrieved context checked before use: freshness and tier of its sources against the registry, and injection in each chunk and in the text through the decision pipeline (a trial: nothing recorded)',
        body: ContextCheckBody,
        response: { 200: ContextCheckSchema },
      },
    },
    async (request) => assess.contextCheck(request.body, callerAgent(request)),
  );
};
