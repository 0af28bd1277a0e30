// The policy lifecycle over HTTP: /api/policies (versions, modes, rules, scopes, effective policy,
// lint, Rego, simulation, canaries, approval), /api/proposals and /api/library/packs.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { EmptyBody } from '../../infra/http/schemas.js';
import type { Principal } from '../../infra/auth/principal.js';
import type { CanaryService } from './canary.js';
import type { LibraryService } from './library.js';
import type { ProposalService } from './proposals.js';
import {
  CanarySchema,
  CanaryStartBody,
  DecideBody,
  EffectiveQuery,
  EffectiveSchema,
  LibraryList,
  LibraryPackSchema,
  LibraryParams,
  LintReportSchema,
  ListPoliciesQuery,
  PolicyDetailSchema,
  PolicyIdParams,
  PolicyKeyParams,
  PolicyList,
  PolicySummarySchema,
  ProposalDetailSchema,
  ProposalList,
  ProposalParams,
  ProposalQuery,
  RegoModuleSchema,
  ReviewBody,
  RollbackBody,
  RuleChangeBody,
  RuleParams,
  SavedVersionSchema,
  SetModeBody,
  SimulateBody,
  SimulationSchema,
  UpsertBody,
  ValidationSchema,
  VerifyBody,
} from './schemas.js';
import type { PolicyService } from './service.js';
import type { SimulationService } from './simulations.js';

export interface PolicyRouteDeps {
  policies: PolicyService;
  proposals: ProposalService;
  canaries: CanaryService;
  simulations: SimulationService;
  library: LibraryService;
}

export const policyRoutes: FastifyPluginAsyncTypebox<PolicyRouteDeps> = async (app, { policies, proposals, canaries, simulations, library }) => {
  const tags = ['policies'];
  const caller = (request: { principal?: Principal | null }) => request.principal as Principal;

  app.get(
    '/api/policies',
    { config: { access: 'viewer' }, schema: { tags, summary: 'Policies with their live version, mode, scope and rules', querystring: ListPoliciesQuery, response: { 200: PolicyList } } },
    async (request) => ({ items: await policies.list(request.query.agent), next_cursor: null }),
  );
  app.post(
    '/api/policies',
    {
      config: { access: 'operator' },
      schema: { tags, summary: 'Save policy text as the next version of its key (opens a change proposal; nothing goes live)', body: UpsertBody, response: { 201: SavedVersionSchema } },
    },
    async (request, reply) => reply.code(201).send(await policies.upsert(caller(request), request.body)),
  );
  app.post(
    '/api/policies/validate',
    { config: { access: 'viewer' }, schema: { tags, summary: 'Check policy text: errors with line and column, and the lint of the set it would make', body: UpsertBody, response: { 200: ValidationSchema } } },
    async (request) => policies.validate(request.body),
  );
  app.get(
    '/api/policies/lint',
    { config: { access: 'viewer' }, schema: { tags, summary: 'Lint the policies in force (passed is false on critical or high findings)', response: { 200: LintReportSchema } } },
    async () => policies.lint(),
  );
  app.get(
    '/api/policies/effective',
    { config: { access: 'viewer' }, schema: { tags, summary: 'The policy in force for a subject, with per-rule provenance', querystring: EffectiveQuery, response: { 200: EffectiveSchema } } },
    async (request) => policies.effective(request.query),
  );
  app.post(
    '/api/policies/simulate',
    { config: { access: 'operator' }, schema: { tags, summary: 'Replay recorded decisions against a candidate policy and report each one whose verdict changes', body: SimulateBody, response: { 200: SimulationSchema } } },
    async (request) => simulations.simulate(caller(request), request.body),
  );
  app.get(
    '/api/policies/:key',
    { config: { access: 'viewer' }, schema: { tags, summary: 'One policy: live text, versions, pending versions, canary', params: PolicyKeyParams, response: { 200: PolicyDetailSchema } } },
    async (request) => policies.get(request.params.key),
  );
  app.get(
    '/api/policies/:key/rego',
    {
      config: { access: 'viewer' },
      schema: {
        tags,
        summary: 'The live version as an Open Policy Agent (Rego) module giving the same verdicts',
        description: 'The module text itself (text/plain), as OPA tools read it; a closing comment shows an example input.',
        params: PolicyKeyParams,
        response: { 200: { description: 'a Rego module', content: { 'text/plain': { schema: RegoModuleSchema } } } },
      },
    },
    async (request, reply) => reply.type('text/plain; charset=utf-8').send(policies.rego(request.params.key)),
  );
  app.post(
    '/api/policies/:key/mode',
    {
      config: { access: 'operator' },
      schema: { tags, summary: 'Set mode and scope; with version, make that saved version live', params: PolicyKeyParams, body: SetModeBody, response: { 200: PolicySummarySchema } },
    },
    async (request) => policies.setMode(caller(request), request.params.key, request.body),
  );
  app.post(
    '/api/policies/:key/rules/:rule_id',
    {
      config: { access: 'operator' },
      schema: { tags, summary: "Change one rule's effect, enabled flag, message, on_block or min_score: saves a new version", params: RuleParams, body: RuleChangeBody, response: { 201: SavedVersionSchema } },
    },
    async (request, reply) => reply.code(201).send(await policies.changeRule(caller(request), request.params.key, request.params.rule_id, request.body)),
  );
  app.get(
    '/api/policies/:key/canary',
    { config: { access: 'viewer' }, schema: { tags, summary: "The policy's current or last canary", params: PolicyKeyParams, response: { 200: CanarySchema } } },
    async (request) => canaries.get(request.params.key),
  );
  app.post(
    '/api/policies/:key/canary/start',
    { config: { access: 'operator' }, schema: { tags, summary: 'Start a canary of a saved version for a growing cohort', params: PolicyKeyParams, body: CanaryStartBody, response: { 200: CanarySchema } } },
    async (request) => canaries.start(caller(request), request.params.key, request.body),
  );
  app.post(
    '/api/policies/:key/canary/advance',
    { config: { access: 'operator' }, schema: { tags, summary: "Check the cohort's block rate and advance, hold or roll back", params: PolicyKeyParams, body: EmptyBody, response: { 200: CanarySchema } } },
    async (request) => canaries.advance(caller(request), request.params.key),
  );
  app.post(
    '/api/policies/:key/canary/rollback',
    { config: { access: 'operator' }, schema: { tags, summary: 'Stop the running canary; the live version stays', params: PolicyKeyParams, body: EmptyBody, response: { 200: CanarySchema } } },
    async (request) => canaries.rollback(caller(request), request.params.key),
  );
  for (const [action, approve] of [
    ['approve', true],
    ['reject', false],
  ] as const) {
    app.post(
      `/api/policies/:policy_id/${action}`,
      {
        config: { access: 'operator' },
        schema: {
          tags,
          summary: `${approve ? 'Approve' : 'Reject'} a saved version (policy_id: key for its newest pending version, or key@version)`,
          params: PolicyIdParams,
          body: ReviewBody,
          response: { 200: ProposalDetailSchema },
        },
      },
      async (request) => policies.review(caller(request), request.params.policy_id, approve, request.body.note),
    );
  }

  const proposalTags = ['proposals'];
  app.get(
    '/api/proposals',
    { config: { access: 'viewer' }, schema: { tags: proposalTags, summary: 'Change proposals, newest first', querystring: ProposalQuery, response: { 200: ProposalList } } },
    async (request) => ({ items: await proposals.list(request.query), next_cursor: null }),
  );
  app.get(
    '/api/proposals/:proposal_id',
    { config: { access: 'viewer' }, schema: { tags: proposalTags, summary: 'One proposal with diff, evidence, proof and decisions', params: ProposalParams, response: { 200: ProposalDetailSchema } } },
    async (request) => proposals.get(request.params.proposal_id),
  );
  app.post(
    '/api/proposals/:proposal_id/decide',
    { config: { access: 'operator' }, schema: { tags: proposalTags, summary: 'Approve or reject with a note', params: ProposalParams, body: DecideBody, response: { 200: ProposalDetailSchema } } },
    async (request) => proposals.decide(caller(request), request.params.proposal_id, request.body),
  );
  app.post(
    '/api/proposals/:proposal_id/apply',
    { config: { access: 'operator' }, schema: { tags: proposalTags, summary: "Make an approved proposal's version live, or settle one whose canary finished", params: ProposalParams, body: EmptyBody, response: { 200: ProposalDetailSchema } } },
    async (request) => proposals.apply(caller(request), request.params.proposal_id),
  );
  app.post(
    '/api/proposals/:proposal_id/verify',
    { config: { access: 'operator' }, schema: { tags: proposalTags, summary: 'Confirm an applied change, or (verified false) roll it back', params: ProposalParams, body: VerifyBody, response: { 200: ProposalDetailSchema } } },
    async (request) => proposals.verify(caller(request), request.params.proposal_id, request.body),
  );
  app.post(
    '/api/proposals/:proposal_id/rollback',
    { config: { access: 'operator' }, schema: { tags: proposalTags, summary: 'Undo an applied or canaried proposal, with a reason', params: ProposalParams, body: RollbackBody, response: { 200: ProposalDetailSchema } } },
    async (request) => proposals.rollback(caller(request), request.params.proposal_id, request.body),
  );

  app.get(
    '/api/library/packs',
    { config: { access: 'viewer' }, schema: { tags: ['library'], summary: 'Policy packs that can be installed', response: { 200: LibraryList } } },
    async () => ({ items: await library.list(), next_cursor: null }),
  );
  app.post(
    '/api/library/packs/:pack_id/install',
    { config: { access: 'operator' }, schema: { tags: ['library'], summary: 'Install a library pack as an org-level policy, live in observe', params: LibraryParams, body: EmptyBody, response: { 201: LibraryPackSchema } } },
    async (request, reply) => reply.code(201).send(await library.install(caller(request), request.params.pack_id)),
  );
};
