// The guard endpoints (spec 01 §4): check content and tool calls without proxying. Each answers a
// Decision with status 200, whatever the verdict. Agent traffic: an agent credential speaks only
// for its own agent; a traffic token names the agent in the body.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Static, TObject } from 'typebox';
import { speakingAgent, type Principal } from '../../infra/auth/principal.js';
import { traceRequests, TRACING_OFF, type GatewayTracer } from '../../infra/tracing.js';
import type { MemoryService } from '../memory/service.js';
import type { AgentMessageService } from '../agent-messages/service.js';
import type { GuardCall, Pipeline } from '../../engine/pipeline/decide.js';
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

/** The call under the request's server span (tracing on), which learns the agent and surface. */
function traced(call: GuardCall, request: FastifyRequest): GuardCall {
  const span = request.traceSpan;
  if (span === undefined) return call;
  span.set({ 'parapet.agent': call.agent, 'parapet.surface': call.surface });
  call.span = span;
  return call;
}

const optional = <K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> =>
  (value === undefined ? {} : { [key]: value }) as Partial<Record<K, V>>;

export interface GuardRoutesOptions {
  pipeline: Pipeline;
  /** Verifies signed inter-agent messages and keeps their log. */
  messages: AgentMessageService;
  /** Keeps memory writes as entries operators can list, revoke and verify. */
  memory: MemoryService;
  /** The gateway's self-tracing (src/infra/tracing.ts); absent: off. */
  tracer?: GatewayTracer;
}

export const guardRoutes: FastifyPluginAsyncTypebox<GuardRoutesOptions> = async (app, { pipeline, messages, memory, tracer = TRACING_OFF }) => {
  const options = { config: { access: 'traffic' as const }, bodyLimit: GUARD_BODY_LIMIT };
  // A server span per guard request, joining the caller's traceparent; nothing when tracing is off.
  traceRequests(app, tracer);

  /** One guard route: its body schema and how a valid body becomes a call of the pipeline. */
  const guardRoute = <T extends TObject>(
    path: string,
    summary: string,
    body: T,
    toCall: (body: Static<T>, request: FastifyRequest) => GuardCall,
  ) =>
    app.post(path, { ...options, schema: { tags, summary, body, response: { 200: DecisionSchema } } }, async (request) =>
      pipeline.decide(traced(toCall(request.body as Static<T>, request), request)),
    );

  const contentCall =
    (defaultSurface: 'input' | 'output') =>
    (body: GuardContentBody, request: FastifyRequest): GuardCall => ({
      agent: agentOf(request, body.agent),
      surface: body.surface ?? defaultSurface,
      content: body.content,
      ...optional('taintSource', body.taint_source),
      ...optional('completion', body.completion),
      ...optional('context', body.context),
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
    arguments: body.arguments ?? {},
    ...optional('provenance', body.provenance),
    ...optional('priorTools', body.prior_tools),
    ...optional('priorSteps', body.prior_steps),
    ...optional('approvalId', body.approval_id),
    ...optional('sessionId', body.session_id),
    ...optional('environment', body.environment),
    ...optional('intent', body.intent),
  }));

  app.post(
    '/v1/guard/memory_write',
    { ...options, schema: { tags, summary: 'Authorise a memory write; it is kept as a memory entry', body: GuardMemoryWriteBody, response: { 200: DecisionSchema } } },
    async (request) => {
      const body = request.body as GuardMemoryWriteBody;
      const agent = agentOf(request, body.agent);
      const decided = await pipeline.decideAndRecord(
        traced(
          {
            agent,
            surface: 'memory_write',
            content: body.content,
            ...optional('taintSource', body.taint_source),
            ...optional('provenance', body.provenance),
            ...optional('sessionId', body.session_id),
          },
          request,
        ),
      );
      memory.recordWrite({
        agent,
        subject: body.subject ?? null,
        content: decided.recordedContent,
        contentSha256: decided.contentSha256,
        ...optional('provenance', body.provenance),
        taintSource: body.taint_source ?? null,
        verifiedBy: body.verified_by ?? null,
        ttlSeconds: body.ttl_seconds ?? null,
        sessionId: body.session_id ?? null,
        verdict: decided.decision.verdict,
        decisionId: decided.decision.decision_id,
      });
      // Past the queue's bound the answer waits for the database rather than the entry being dropped.
      await memory.room();
      return decided.decision;
    },
  );

  app.post(
    '/v1/guard/agent_message',
    {
      ...options,
      schema: {
        tags,
        summary: 'Authorise an inter-agent message; a signed one is verified (signature, timestamp, nonce) first',
        body: GuardAgentMessageBody,
        response: { 200: DecisionSchema },
      },
    },
    async (request) => {
      const body = request.body as GuardAgentMessageBody;
      const sender = agentOf(request, body.sender);
      const signature = await messages.verify({
        sender,
        content: body.content,
        ...optional('recipient', body.recipient),
        ...optional('nonce', body.nonce),
        ...optional('timestamp', body.timestamp),
        ...optional('signature', body.signature),
      });
      const decided = await pipeline.decideAndRecord(
        traced(
          {
            agent: sender,
            surface: 'agent_message',
            content: body.content,
            signature: signature.status,
            ...optional('recipient', body.recipient),
            ...optional('sessionId', body.session_id),
          },
          request,
        ),
      );
      messages.record({
        sender,
        recipient: body.recipient ?? null,
        nonce: body.nonce ?? null,
        timestamp: body.timestamp ?? null,
        signatureStatus: signature.status,
        verdict: decided.decision.verdict,
        effectiveVerdict: decided.decision.effective_verdict,
        decisionId: decided.decision.decision_id,
        contentSha256: decided.contentSha256,
        sessionId: body.session_id ?? null,
      });
      await messages.room();
      return decided.decision;
    },
  );
};
