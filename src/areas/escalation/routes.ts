// /api/escalation: POST turns (any credential: agents report their turns); GET policy, handoffs,
// missed, report, conversations (viewer); PUT policy, POST acknowledge, POST scan (operator).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../../infra/auth/principal.js';
import { EmptyBody } from '../../infra/http/schemas.js';
import {
  AcknowledgeBody,
  ConversationParams,
  ConversationSchema,
  HandoffListSchema,
  HandoffParams,
  HandoffSchema,
  HandoffsQuery,
  MissedSchema,
  PolicyQuery,
  PolicySchema,
  PutPolicyBody,
  ReportSchema,
  ScanSchema,
  SinceQuery,
  TurnAnswerSchema,
  TurnBody,
} from './schemas.js';
import type { EscalationService } from './service.js';

const agentHeader = (request: FastifyRequest): string | undefined => {
  const raw = request.headers['x-parapet-agent'];
  return typeof raw === 'string' ? raw : undefined;
};

export const escalationRoutes: FastifyPluginAsyncTypebox<{ escalation: EscalationService }> = async (app, { escalation }) => {
  const tags = ['escalation'];
  app.post(
    '/api/escalation/turns',
    {
      config: { access: 'any' },
      schema: {
        tags,
        summary:
          "Report one conversational turn: the policy's conditions are evaluated over it and the session's recent turns; a condition that holds hands the session off to a person (enforce mode, or self-harm at once)",
        body: TurnBody,
        response: { 200: TurnAnswerSchema },
      },
    },
    async (request) => escalation.reportTurn(request.principal as Principal, request.body, agentHeader(request)),
  );
  app.get(
    '/api/escalation/policy',
    {
      config: { access: 'viewer' },
      schema: {
        tags,
        summary: "The escalation policy an agent runs under (its own, else the default '*', else the built-in one)",
        querystring: PolicyQuery,
        response: { 200: PolicySchema },
      },
    },
    async (request) => escalation.policy(request.query.agent),
  );
  app.put(
    '/api/escalation/policy',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: "Save an agent's escalation policy (or the default '*'): conditions and their parameters, owner role, SLA minutes, observe or enforce; fields left out keep their value",
        body: PutPolicyBody,
        response: { 200: PolicySchema },
      },
    },
    async (request) => escalation.putPolicy(request.principal as Principal, request.body),
  );
  app.get(
    '/api/escalation/handoffs',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'Hand-offs to people, newest first, with the conversation so far, the reasons and the SLA', querystring: HandoffsQuery, response: { 200: HandoffListSchema } },
    },
    async (request) => escalation.handoffs(request.query),
  );
  app.post(
    '/api/escalation/handoffs/:handoff_id/acknowledge',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'A person acknowledges a hand-off, or closes it (close: true) with a note and a resolution; 409 when already acknowledged (unless closing) or closed',
        params: HandoffParams,
        body: AcknowledgeBody,
        response: { 200: HandoffSchema },
      },
    },
    async (request) => escalation.acknowledge(request.principal as Principal, request.params.handoff_id, request.body),
  );
  app.get(
    '/api/escalation/missed',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'Conversations that qualified for a hand-off and got none (read only)', querystring: SinceQuery, response: { 200: MissedSchema } },
    },
    async (request) => escalation.missed(request.query),
  );
  app.post(
    '/api/escalation/scan',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Run the detection over recorded turns and act: missed_escalation findings and retroactive hand-offs (once per session), SLA breaches; a second scan changes nothing',
        querystring: SinceQuery,
        body: EmptyBody,
        response: { 200: ScanSchema },
      },
    },
    async (request) => escalation.scan(request.principal as Principal, request.query),
  );
  app.get(
    '/api/escalation/report',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'Rates (sessions, qualified, handed off, missed), time to acknowledge p50/p95 and breaches, by agent and by reason', querystring: SinceQuery, response: { 200: ReportSchema } },
    },
    async (request) => escalation.report(request.query),
  );
  app.get(
    '/api/escalation/conversations/:session_id',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'The turns of a session with the conditions that fired, and its hand-offs', params: ConversationParams, response: { 200: ConversationSchema } },
    },
    async (request) => escalation.conversation(request.params.session_id),
  );
};
