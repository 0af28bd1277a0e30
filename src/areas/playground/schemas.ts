// Wire shapes of the public sandbox: /api/playground/sessions and its chat, tool-call, enforce and
// state routes. Every body is closed (unknown fields refused) and every string bounded.
import { Type, type Static } from 'typebox';
import { Body, Nullable, StringEnum, Timestamp } from '../../infra/http/schemas.js';
import { DecisionSchema } from '../guard/schemas.js';
import { AuditVerificationSchema } from '../audit/schemas.js';

/** Longest message and pasted document, in characters (8 KiB and 32 KiB of text). */
export const MAX_MESSAGE_CHARS = 8192;
export const MAX_DOCUMENT_CHARS = 32_768;
/** A tool call's arguments, as JSON, in bytes. */
export const MAX_ARGUMENTS_BYTES = 8192;
/**
 * Per-route body limits: what the largest valid body can take when every character is sent as a
 * six-byte JSON escape, with room for the field names; far below the gateway-wide limit.
 */
export const CHAT_BODY_LIMIT = 6 * (MAX_MESSAGE_CHARS + MAX_DOCUMENT_CHARS) + 4096;
export const TOOL_CALL_BODY_LIMIT = 6 * MAX_ARGUMENTS_BYTES + 16_384;
/** Bodies with a field or none: room for a deeply nested body to be refused as such (400) rather than by size. */
export const SMALL_BODY_LIMIT = 16_384;

export const SessionParams = Type.Object({
  session_id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description: 'the id POST /api/playground/sessions answered' }),
});
export type SessionParams = Static<typeof SessionParams>;

const AgentName = Type.String({ minLength: 1, maxLength: 200, description: 'the sandbox agent: demo-agent' });

export const CreateSessionBody = Body({}, { bodyLimit: SMALL_BODY_LIMIT });

export const ChatBody = Body(
  {
    agent: Type.Optional(AgentName),
    message: Type.String({ minLength: 1, maxLength: MAX_MESSAGE_CHARS, description: "the user's turn, checked as input" }),
    document: Type.Optional(Type.String({ maxLength: MAX_DOCUMENT_CHARS, description: 'a pasted document, checked as retrieved content (untrusted: its values taint later tool calls)' })),
  },
  { bodyLimit: CHAT_BODY_LIMIT },
);
export type ChatBody = Static<typeof ChatBody>;

export const ToolCallBody = Body(
  {
    agent: AgentName,
    tool: Type.String({ minLength: 1, maxLength: 200, description: 'a tool key: kb.search, orders.query, email.send, payments.refund (or any other: default deny)' }),
    arguments: Type.Optional(Type.Record(Type.String({ maxLength: 200 }), Type.Unknown(), { maxProperties: 50, description: `the call's arguments (at most ${MAX_ARGUMENTS_BYTES} bytes as JSON)` })),
    provenance: Type.Optional(
      Type.Record(Type.String({ minLength: 1, maxLength: 200 }), Type.String({ minLength: 1, maxLength: 100 }), {
        maxProperties: 50,
        description: 'argument name → where its value came from (user, operator, document, web, email, tool, hostile, …)',
      }),
    ),
    intent: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'what the agent says it is doing' })),
  },
  { bodyLimit: TOOL_CALL_BODY_LIMIT },
);
export type ToolCallBody = Static<typeof ToolCallBody>;

export const PLAYGROUND_MODES = ['observe', 'enforce'] as const;
export type PlaygroundMode = (typeof PLAYGROUND_MODES)[number];

export const EnforceBody = Body({ mode: StringEnum(PLAYGROUND_MODES, { description: 'the baseline pack mode in this sandbox' }) }, { bodyLimit: SMALL_BODY_LIMIT });
export type EnforceBody = Static<typeof EnforceBody>;

export const LimitsSchema = Type.Object({
  max_calls: Type.Integer({ description: 'chat and tool calls this session may make' }),
  calls_used: Type.Integer(),
  ttl_minutes: Type.Integer(),
  max_message_chars: Type.Integer(),
  max_document_chars: Type.Integer(),
  max_arguments_bytes: Type.Integer(),
});

export const DemoToolSchema = Type.Object({
  key: Type.String(),
  description: Type.String(),
  impact: Type.String(),
  granted: Type.Boolean(),
});

export const SessionSchema = Type.Object({
  session_id: Type.String({ description: '128 random bits; names the sandbox only, and is no credential anywhere' }),
  expires_at: Timestamp,
  agent: Type.String(),
  tools: Type.Array(DemoToolSchema),
  mode: StringEnum(PLAYGROUND_MODES),
  limits: LimitsSchema,
});
export type Session = Static<typeof SessionSchema>;

export const ChatReplySchema = Type.Object({
  answer: Nullable(Type.String({ description: "the agent's answer as it left the gateway (masked where a rule masked it); null when the gateway blocked the exchange" })),
  blocked: Type.Boolean(),
  blocked_at: Nullable(StringEnum(['input', 'retrieved', 'output'] as const)),
  answered_by: StringEnum(['demo-agent', 'upstream', 'none'] as const),
  decisions: Type.Object({
    input: DecisionSchema,
    retrieved: Type.Optional(DecisionSchema),
    output: Type.Optional(DecisionSchema),
  }),
});
export type ChatReply = Static<typeof ChatReplySchema>;

export const ToolCallReplySchema = Type.Object({
  allowed: Type.Boolean({ description: 'the enforced verdict is allow' }),
  decision: DecisionSchema,
});
export type ToolCallReply = Static<typeof ToolCallReplySchema>;

export const ModeReplySchema = Type.Object({ mode: StringEnum(PLAYGROUND_MODES), pack: Type.String() });

export const TraceSummarySchema = Type.Object({
  id: Type.String(),
  at: Timestamp,
  surface: Type.String(),
  tool: Nullable(Type.String()),
  verdict: Type.String(),
  effective_verdict: Type.String(),
  mode: Type.String(),
  rules: Type.Array(Type.String()),
});

export const PostureSummarySchema = Type.Object({
  computed_at: Nullable(Timestamp),
  frameworks: Type.Array(
    Type.Object({
      key: Type.String(),
      title: Type.String(),
      clauses: Type.Integer(),
      covered: Type.Integer(),
      failing: Type.Integer(),
      not_evidenced: Type.Integer(),
      pass_rate: Type.Number(),
    }),
  ),
});
export type PostureSummary = Static<typeof PostureSummarySchema>;

export const StateSchema = Type.Object({
  session_id: Type.String(),
  expires_at: Timestamp,
  mode: StringEnum(PLAYGROUND_MODES),
  limits: LimitsSchema,
  traces: Type.Array(TraceSummarySchema, { description: "the sandbox's newest decisions (at most 50), newest first" }),
  audit: Type.Object(
    { ok: AuditVerificationSchema.properties.ok, checked: AuditVerificationSchema.properties.checked, first_bad: AuditVerificationSchema.properties.first_bad },
    { description: "the sandbox's audit chain verified entry by entry" },
  ),
  posture: PostureSummarySchema,
});
export type State = Static<typeof StateSchema>;
