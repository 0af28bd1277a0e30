// The public sandbox (access public: no credential, and a presented one is not looked at; the
// gateway-wide limiter counts these routes per client address): POST /api/playground/sessions,
// POST .../{session_id}/chat, /tool-call, /enforce and GET .../{session_id}/state. Answers are JSON
// only: nothing a visitor sends is ever served as HTML.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  CHAT_BODY_LIMIT,
  ChatBody,
  ChatReplySchema,
  CreateSessionBody,
  EnforceBody,
  ModeReplySchema,
  SessionParams,
  SessionSchema,
  SMALL_BODY_LIMIT,
  StateSchema,
  TOOL_CALL_BODY_LIMIT,
  ToolCallBody,
  ToolCallReplySchema,
} from './schemas.js';
import type { PlaygroundService } from './service.js';

export const playgroundRoutes: FastifyPluginAsyncTypebox<{ playground: PlaygroundService }> = async (app, { playground }) => {
  const tags = ['playground'];
  const config = { access: 'public' as const };

  app.post(
    '/api/playground/sessions',
    {
      config,
      bodyLimit: SMALL_BODY_LIMIT,
      schema: {
        tags,
        summary:
          'Create a sandbox session: its own database with the demo agent (demo-agent), demo tools with grants and the shipped packs, baseline in observe; isolated from the deployment. 503 with Retry-After when playground_max_sessions are live',
        body: CreateSessionBody,
        response: { 201: SessionSchema },
      },
    },
    async (_request, reply) => reply.code(201).send(await playground.create()),
  );

  app.post(
    '/api/playground/sessions/:session_id/chat',
    {
      config,
      bodyLimit: CHAT_BODY_LIMIT,
      schema: {
        tags,
        summary:
          "Send a message (checked as input) and optionally a pasted document (checked as retrieved) as the demo agent; the scripted agent answers (it obeys injections it is shown) and its answer is checked as output. Answers the Decisions; blocked when an enforcing rule stopped the exchange. Counts against the session's calls",
        params: SessionParams,
        body: ChatBody,
        response: { 200: ChatReplySchema },
      },
    },
    async (request) => playground.chat(request.params.session_id, request.body),
  );

  app.post(
    '/api/playground/sessions/:session_id/tool-call',
    {
      config,
      bodyLimit: TOOL_CALL_BODY_LIMIT,
      schema: {
        tags,
        summary:
          "A tool call of the demo agent checked on tool_args: its grant, the taint of arguments taken from a document pasted earlier in the session (or named in provenance), and action analysis. Counts against the session's calls",
        params: SessionParams,
        body: ToolCallBody,
        response: { 200: ToolCallReplySchema },
      },
    },
    async (request) => playground.toolCall(request.params.session_id, request.body),
  );

  app.post(
    '/api/playground/sessions/:session_id/enforce',
    {
      config,
      bodyLimit: SMALL_BODY_LIMIT,
      schema: {
        tags,
        summary: 'Switch the baseline pack between observe and enforce, in this sandbox only',
        params: SessionParams,
        body: EnforceBody,
        response: { 200: ModeReplySchema },
      },
    },
    async (request) => playground.enforce(request.params.session_id, request.body.mode),
  );

  app.get(
    '/api/playground/sessions/:session_id/state',
    {
      config,
      schema: {
        tags,
        summary: "The sandbox's newest decisions (at most 50), its audit chain verified, and its compliance posture per framework",
        params: SessionParams,
        response: { 200: StateSchema },
      },
    },
    async (request) => playground.state(request.params.session_id),
  );
};
