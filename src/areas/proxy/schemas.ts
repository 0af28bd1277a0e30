// Wire shapes of the proxy routes. The chat-completions body is the provider's format: only what
// the proxy needs is validated (model, messages with a role), every other field passes as given.
import { Type, type Static } from 'typebox';
import { Nullable, StringEnum } from '../../infra/http/schemas.js';

/** Conversations are long: the route takes more than the gateway-wide body limit. */
export const PROXY_BODY_LIMIT = 8 * 1_048_576;

/**
 * Evidence for the answer's checks (the guard bodies' `context`: record, chunks, sources,
 * entitlements, requirements, question). The gateway takes it out of the body: the upstream never sees it.
 */
export const ParapetContext = Type.Optional(
  Type.Array(Type.Unknown(), {
    maxItems: 200,
    description: "evidence the answer is checked against (the guard body's `context`, docs/knowledge.md); removed before the call goes upstream",
  }),
);

const Message = Type.Object(
  {
    role: Type.String({ minLength: 1, maxLength: 64, description: 'system, developer, user, assistant or tool' }),
  },
  { additionalProperties: true },
);

export const ChatCompletionsBody = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 256 }),
    messages: Type.Array(Message, { minItems: 1, maxItems: 100_000 }),
    stream: Type.Optional(Type.Boolean()),
    user: Type.Optional(Type.String({ maxLength: 500, description: 'also names the taint session when X-Parapet-Session is absent' })),
    stream_options: Type.Optional(Type.Object({}, { additionalProperties: true })),
    parapet_context: ParapetContext,
  },
  { additionalProperties: true, 'x-body-limit': PROXY_BODY_LIMIT, description: 'a chat-completions request; fields besides these pass to the upstream as given' },
);
export type ChatCompletionsBody = Static<typeof ChatCompletionsBody>;

export const ChatCompletionSchema = Type.Object(
  {
    id: Type.String(),
    object: Type.String(),
    choices: Type.Array(Type.Object({}, { additionalProperties: true })),
    parapet: Type.Object({}, { additionalProperties: true, description: 'the decisive Decision, with `forwarded` and every check in `decisions`' }),
  },
  { additionalProperties: true, description: 'a chat completion (or, with stream: true, text/event-stream chunks)' },
);

const UpstreamStatsSchema = Type.Object({
  name: Type.String(),
  base_url: Type.String(),
  state: StringEnum(['closed', 'open', 'half_open']),
  consecutive_failures: Type.Integer(),
  opened_at: Nullable(Type.String()),
  requests: Type.Integer(),
  failures: Type.Integer(),
  retries: Type.Integer(),
});

export const ReliabilitySchema = Type.Object({
  upstreams: Type.Array(UpstreamStatsSchema),
  settings: Type.Object({
    upstream_timeout_ms: Type.Integer(),
    upstream_retries: Type.Integer(),
    upstream_breaker_failures: Type.Integer(),
    upstream_breaker_cooldown_ms: Type.Integer(),
    stream_holdback_chars: Type.Integer(),
  }),
  usage: Type.Array(
    Type.Object({
      agent: Type.String(),
      model: Type.String(),
      calls: Type.Integer(),
      blocked_calls: Type.Integer(),
      prompt_tokens: Type.Integer(),
      completion_tokens: Type.Integer(),
      total_tokens: Type.Integer(),
    }),
    { description: 'proxied model calls per agent and model since this process started' },
  ),
});

/** A messages content block: only its `type` is read here; the proxy reads text and tool blocks. */
const ContentBlock = Type.Object({ type: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: true });

export const MessagesBody = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 256 }),
    messages: Type.Array(
      Type.Object(
        {
          role: StringEnum(['user', 'assistant']),
          content: Type.Union([Type.String(), Type.Array(ContentBlock)]),
        },
        { additionalProperties: true },
      ),
      { minItems: 1, maxItems: 100_000 },
    ),
    max_tokens: Type.Integer({ minimum: 1 }),
    system: Type.Optional(Type.Union([Type.String(), Type.Array(ContentBlock)])),
    stream: Type.Optional(Type.Boolean()),
    metadata: Type.Optional(
      Type.Object({ user_id: Type.Optional(Nullable(Type.String({ maxLength: 500, description: 'also names the taint session when X-Parapet-Session is absent' }))) }, { additionalProperties: true }),
    ),
    parapet_context: ParapetContext,
  },
  { additionalProperties: true, 'x-body-limit': PROXY_BODY_LIMIT, description: 'a messages request; fields besides these pass to the upstream as given' },
);
export type MessagesBody = Static<typeof MessagesBody>;

export const MessageSchema = Type.Object(
  {
    id: Type.String(),
    type: Type.String(),
    role: Type.String(),
    content: Type.Array(Type.Object({}, { additionalProperties: true })),
    stop_reason: Nullable(Type.String()),
    parapet: Type.Object({}, { additionalProperties: true, description: 'the decisive Decision, with `forwarded` and every check in `decisions`' }),
  },
  { additionalProperties: true, description: 'a message (or, with stream: true, text/event-stream events; `parapet` on the final message_delta)' },
);
