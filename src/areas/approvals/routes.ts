// GET /api/approvals, GET /api/approvals/{approval_id}, POST .../approve and .../deny.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../infra/auth/principal.js';
import { ApprovalIdParams, ApprovalList, ApprovalSchema, DecideApprovalBody, ListApprovalsQuery } from './schemas.js';
import type { ApprovalService } from './service.js';

const tags = ['approvals'];

export const approvalRoutes: FastifyPluginAsyncTypebox<{ approvals: ApprovalService }> = async (app, { approvals }) => {
  app.get(
    '/api/approvals',
    {
      config: { access: 'viewer-or-agent' },
      schema: { tags, summary: "Approvals, newest first (an agent credential sees its own agent's)", querystring: ListApprovalsQuery, response: { 200: ApprovalList } },
    },
    async (request) => {
      const caller = request.principal as Principal;
      return approvals.list(request.query, caller.kind === 'agent' ? caller.agentSlug : undefined);
    },
  );

  app.get(
    '/api/approvals/:approval_id',
    {
      config: { access: 'viewer-or-agent' },
      schema: { tags, summary: "One approval (an agent credential reads only its own agent's)", params: ApprovalIdParams, response: { 200: ApprovalSchema } },
    },
    async (request) => approvals.get(request.principal as Principal, request.params.approval_id),
  );

  for (const [path, outcome, summary] of [
    ['/api/approvals/:approval_id/approve', 'approved', 'Approve a held call: the same call with approval_id goes through once'],
    ['/api/approvals/:approval_id/deny', 'denied', 'Deny a held call'],
  ] as const) {
    app.post(
      path,
      { config: { access: 'operator' }, schema: { tags, summary, params: ApprovalIdParams, body: DecideApprovalBody, response: { 200: ApprovalSchema } } },
      async (request) => approvals.decide(request.principal as Principal, request.params.approval_id, outcome, request.body.rationale),
    );
  }
};
