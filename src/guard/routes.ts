// The guard endpoints (spec 01 §4): check content and tool calls without proxying. Each answers a
// Decision with status 200, whatever the verdict. Agent traffic: an agent credential speaks only
// for its own agent; a traffic token names the agent in the body.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { speakingAgent, type Principal } from '../auth/principal.js';
import type { GuardCall, Pipeline } from '../pipeline/decide.js';
import {
  DecisionSchema,
  GUARD_BODY_LIMIT,
  GuardAgentMessageBody,
  GuardContentBody,
  GuardMemoryWriteBody,
  GuardToolCallBody,
} from './schemas.js';

const tags = ['guard'];

function agentOf(request: FastifyRequest, named: string): string {
  const header = request.headers['x-parapet-agent'];
  return speakingAgent(request.principal as Principal, { body: named, header: typeof header === 'string' ? header : undefined });
}

const optional = <K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> =>
  (value === undefined ? {} : { [key]: value }) as Partial<Record<K, V>>;

export const guardRoutes: FastifyPluginAsyncTypebox<{ pipeline: Pipeline }> = async (app, { pipeline }) => {
  const options = { config: { access: 'traffic' as const }, bodyLimit: GUARD_BODY_LIMIT };

  const contentCheck = (defaultSurface: 'input' | 'output') => async (request: FastifyRequest<{ Body: GuardContentBody }>) => {
    const body = request.body;
    const call: GuardCall = {
      agent: agentOf(request, body.agent),
      surface: body.surface ?? defaultSurface,
      content: body.content,
      ...optional('taintSource', body.taint_source),
      ...optional('completion', body.completion),
      ...optional('sessionId', body.session_id),
      ...optional('traceId', body.trace_id),
      ...optional('environment', body.environment),
      ...optional('intent', body.intent),
    };
    return pipeline.decide(call);
  };

  app.post(
    '/v1/guard/input',
    {
      ...options,
      schema: {
        tags,
        summary: 'Check content as surface input, or as the surface named in `surface`',
        body: GuardContentBody,
        response: { 200: DecisionSchema },
      },
    },
    contentCheck('input'),
  );

  app.post(
    '/v1/guard/output',
    {
      ...options,
      schema: { tags, summary: 'Check model output', body: GuardContentBody, response: { 200: DecisionSchema } },
    },
    contentCheck('output'),
  );

  app.post(
    '/v1/guard/tool_call',
    {
      ...options,
      schema: { tags, summary: 'Authorise a tool call', body: GuardToolCallBody, response: { 200: DecisionSchema } },
    },
    async (request) => {
      const body = request.body;
      return pipeline.decide({
        agent: agentOf(request, body.agent),
        surface: 'tool_args',
        tool: body.tool,
        content: JSON.stringify(body.arguments ?? {}),
        ...optional('provenance', body.provenance),
        ...optional('sessionId', body.session_id),
        ...optional('environment', body.environment),
        ...optional('intent', body.intent),
      });
    },
  );

  app.post(
    '/v1/guard/memory_write',
    {
      ...options,
      schema: { tags, summary: 'Authorise a memory write', body: GuardMemoryWriteBody, response: { 200: DecisionSchema } },
    },
    async (request) => {
      const body = request.body;
      return pipeline.decide({
        agent: agentOf(request, body.agent),
        surface: 'memory_write',
        content: body.content,
        ...optional('taintSource', body.taint_source),
        ...optional('provenance', body.provenance),
        ...optional('sessionId', body.session_id),
      });
    },
  );

  app.post(
    '/v1/guard/agent_message',
    {
      ...options,
      schema: {
        tags,
        summary: 'Authorise an inter-agent message',
        body: GuardAgentMessageBody,
        response: { 200: DecisionSchema },
      },
    },
    async (request) => {
      const body = request.body;
      return pipeline.decide({
        agent: agentOf(request, body.sender),
        surface: 'agent_message',
        content: body.content,
        ...optional('sessionId', body.session_id),
      });
    },
  );
};
