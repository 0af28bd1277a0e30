// The guard endpoints (spec 01 §4): check content and tool calls without proxying. Each answers a
// Decision with status 200, whatever the verdict. Agent traffic: an agent credential speaks only
// for its own agent; a traffic token names the agent in the body.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Static, TObject } from 'typebox';
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

  /** One guard route: its body schema and how a valid body becomes a call of the pipeline. */
  const guardRoute = <T extends TObject>(
    path: string,
    summary: string,
    body: T,
    toCall: (body: Static<T>, request: FastifyRequest) => GuardCall,
  ) =>
    app.post(path, { ...options, schema: { tags, summary, body, response: { 200: DecisionSchema } } }, async (request) =>
      pipeline.decide(toCall(request.body as Static<T>, request)),
    );

  const contentCall =
    (defaultSurface: 'input' | 'output') =>
    (body: GuardContentBody, request: FastifyRequest): GuardCall => ({
      agent: agentOf(request, body.agent),
      surface: body.surface ?? defaultSurface,
      content: body.content,
      ...optional('taintSource', body.taint_source),
      ...optional('completion', body.completion),
      ...optional('sessionId', body.session_id),
      ...optional('traceId', body.trace_id),
      ...optional('environment', body.environment),
      ...optional('intent', body.intent),
    });

  guardRoute(
    '/v1/guard/input',
    'Check content as surface input, or as the surface named in `surface`',
    GuardContentBody,
    contentCall('input'),
  );
  guardRoute('/v1/guard/output', 'Check model output', GuardContentBody, contentCall('output'));
  guardRoute('/v1/guard/tool_call', 'Authorise a tool call', GuardToolCallBody, (body, request) => ({
    agent: agentOf(request, body.agent),
    surface: 'tool_args',
    tool: body.tool,
    content: JSON.stringify(body.arguments ?? {}),
    ...optional('provenance', body.provenance),
    ...optional('sessionId', body.session_id),
    ...optional('environment', body.environment),
    ...optional('intent', body.intent),
  }));
  guardRoute('/v1/guard/memory_write', 'Authorise a memory write', GuardMemoryWriteBody, (body, request) => ({
    agent: agentOf(request, body.agent),
    surface: 'memory_write',
    content: body.content,
    ...optional('taintSource', body.taint_source),
    ...optional('provenance', body.provenance),
    ...optional('sessionId', body.session_id),
  }));
  guardRoute('/v1/guard/agent_message', 'Authorise an inter-agent message', GuardAgentMessageBody, (body, request) => ({
    agent: agentOf(request, body.sender),
    surface: 'agent_message',
    content: body.content,
    ...optional('sessionId', body.session_id),
  }));
};
