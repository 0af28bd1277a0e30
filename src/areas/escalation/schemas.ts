// Wire shapes of /api/escalation: turns, the policy, hand-offs, missed escalations, scans, the
// report and conversations (spec 02 "Escalation").
import { Type, type Static } from 'typebox';
import { Body, Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../infra/http/schemas.js';
import { CONDITION_NAMES } from './conditions.js';

/** Each text of a turn: at most 32 KiB of characters. */
export const MAX_TURN_TEXT = 32_768;
export const MAX_SESSION_ID = 500;
export const MAX_NOTE = 4000;
export const MODES = ['observe', 'enforce'] as const;
export type EscalationMode = (typeof MODES)[number];
export const HANDOFF_STATUSES = ['open', 'acknowledged', 'closed'] as const;
export type HandoffStatus = (typeof HANDOFF_STATUSES)[number];

const AgentName = Type.String({ minLength: 1, maxLength: 200, description: 'an agent slug' });
const SessionId = Type.String({ minLength: 1, maxLength: MAX_SESSION_ID });
const TurnText = Type.String({ maxLength: MAX_TURN_TEXT });
const ConditionSchema = StringEnum(CONDITION_NAMES);
const Fired = Type.Object({ condition: ConditionSchema, detail: Type.String() });

export const TurnBody = Body({
  session_id: SessionId,
  agent: Type.Optional(AgentName),
  trace_id: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'the trace (X-Parapet-Trace / guard trace_id) of the turn; a tool call of it held for approval is the held_tool_call condition' })),
  user_text: Type.Optional(TurnText),
  agent_text: Type.Optional(TurnText),
  escalated: Type.Optional(Type.Boolean({ description: 'the agent handed the user to a person by itself' })),
  failed: Type.Optional(Type.Boolean({ description: 'the agent could not help on this turn' })),
  confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
});
export type TurnBody = Static<typeof TurnBody>;

const HandoffRef = Type.Object({
  id: Type.String(),
  status: StringEnum(HANDOFF_STATUSES),
  owner_role: Type.String(),
  due_at: Timestamp,
});

export const TurnAnswerSchema = Type.Object({
  turn_id: Type.String(),
  conditions: Type.Array(Fired, { description: 'the conditions of the policy that hold for this turn' }),
  /** The session's active hand-off (open or acknowledged), made now or earlier; null when none. */
  handoff: Nullable(HandoffRef),
  escalate: Type.Boolean({ description: 'route the user to a person now: the session has an active enforce-mode hand-off' }),
});
export type TurnAnswer = Static<typeof TurnAnswerSchema>;

export const PolicyQuery = Type.Object({ agent: Type.Optional(AgentName) });

export const PutPolicyBody = Body({
  agent: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "an agent slug, or '*' (default) for the default policy" })),
  conditions: Type.Optional(
    Type.Object({}, { additionalProperties: true, maxProperties: 20, description: `condition → true | false | { parameters }; conditions: ${CONDITION_NAMES.join(', ')}; unknown → 422` }),
  ),
  owner_role: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'who takes the hand-offs (a team or role name)' })),
  sla_minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_080, description: 'minutes to acknowledge a hand-off' })),
  mode: Type.Optional(StringEnum(MODES, { description: 'observe: record only; enforce: hand off and make the next output check answer escalate' })),
});
export type PutPolicyBody = Static<typeof PutPolicyBody>;

export const PolicySchema = Type.Object({
  agent: Type.String({ description: "the agent asked for, or '*'" }),
  conditions: Type.Object({}, { additionalProperties: true, description: 'the conditions that apply, each with all its parameters' }),
  owner_role: Type.String(),
  sla_minutes: Type.Integer(),
  mode: StringEnum(MODES),
  source: StringEnum(['agent', 'default', 'built_in'], { description: "agent: the agent's own policy; default: the stored '*' policy; built_in: nothing stored" }),
  updated_by: Nullable(Type.String()),
  updated_at: NullableTimestamp,
});
export type PolicyView = Static<typeof PolicySchema>;

export const HandoffsQuery = Type.Object({
  status: Type.Optional(StringEnum(HANDOFF_STATUSES)),
  agent: Type.Optional(AgentName),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
});
export type HandoffsQuery = Static<typeof HandoffsQuery>;

const ConversationTurn = Type.Object({
  turn_id: Type.String(),
  at: Timestamp,
  user_text: Nullable(Type.String()),
  agent_text: Nullable(Type.String()),
});

export const HandoffSchema = Type.Object({
  id: Type.String(),
  session_id: Type.String(),
  agent: Type.String(),
  status: StringEnum(HANDOFF_STATUSES),
  reasons: Type.Array(Fired),
  owner_role: Type.String(),
  mode: StringEnum(MODES),
  retroactive: Type.Boolean({ description: 'made by a scan after the fact' }),
  conversation: Type.Array(ConversationTurn, { description: 'the last 20 turns when it was made, each text cut to 2 KiB' }),
  created_at: Timestamp,
  due_at: Timestamp,
  overdue: Type.Boolean({ description: 'still open past due_at' }),
  acknowledged_at: NullableTimestamp,
  acknowledged_by: Nullable(Type.String()),
  note: Nullable(Type.String()),
  resolution: Nullable(Type.String()),
  closed_at: NullableTimestamp,
  breached: Type.Boolean({ description: 'handoff_sla_breach was raised for it' }),
});
export type HandoffView = Static<typeof HandoffSchema>;

export const HandoffListSchema = Type.Object({ items: Type.Array(HandoffSchema, { description: 'newest first' }) });

export const HandoffParams = Type.Object({ handoff_id: Type.String({ minLength: 1, maxLength: 100 }) });

export const AcknowledgeBody = Body({
  note: Type.Optional(Type.String({ maxLength: MAX_NOTE, description: 'what the person did or will do; required to close completely' })),
  close: Type.Optional(Type.Boolean({ default: false, description: 'true: the person is done (closed); needs note and resolution, else incomplete_handoff is raised' })),
  resolution: Type.Optional(Type.String({ maxLength: MAX_NOTE, description: 'how it ended; required to close completely' })),
});
export type AcknowledgeBody = Static<typeof AcknowledgeBody>;

export const SinceQuery = Type.Object({
  since_hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 720, default: 24 })),
  agent: Type.Optional(AgentName),
});
export type SinceQuery = Static<typeof SinceQuery>;

const MissedSession = Type.Object({
  session_id: Type.String(),
  agent: Type.String(),
  mode: StringEnum(MODES, { description: "the policy's mode now" }),
  turns: Type.Integer(),
  qualifying_turns: Type.Integer(),
  conditions: Type.Array(ConditionSchema, { description: 'the conditions that fired, by first occurrence' }),
  first_qualified_at: Timestamp,
  last_turn_at: Timestamp,
  retroactive_handoff_id: Nullable(Type.String({ description: 'the hand-off a scan made afterwards' })),
});

export const MissedSchema = Type.Object({
  since: Timestamp,
  items: Type.Array(MissedSession, { description: 'by first qualifying turn' }),
  turns_read: Type.Integer(),
  truncated: Type.Boolean({ description: 'more turns than one read takes (20000): the oldest were left out' }),
});
export type Missed = Static<typeof MissedSchema>;

export const ScanSchema = Type.Object({
  since: Timestamp,
  sessions: Type.Integer({ description: 'sessions with turns in the window' }),
  turns_read: Type.Integer(),
  truncated: Type.Boolean(),
  missed: Type.Integer({ description: 'sessions that qualified and got no hand-off in time' }),
  retroactive_handoffs: Type.Array(Type.String(), { description: 'hand-offs made by this scan' }),
  missed_escalation_findings: Type.Integer({ description: 'raised by this scan (once per session)' }),
  sla_breaches: Type.Integer({ description: 'handoff_sla_breach raised by this scan' }),
});
export type ScanResult = Static<typeof ScanSchema>;

const Latency = Type.Object({
  acknowledged: Type.Integer(),
  p50_minutes: Nullable(Type.Number()),
  p95_minutes: Nullable(Type.Number()),
});

const Counts = {
  sessions: Type.Integer(),
  qualified: Type.Integer(),
  handed_off: Type.Integer(),
  missed: Type.Integer(),
};

export const ReportSchema = Type.Object({
  since: Timestamp,
  ...Counts,
  rates: Type.Object({
    qualified: Nullable(Type.Number({ description: 'qualified / sessions' })),
    handed_off: Nullable(Type.Number({ description: 'handed_off / qualified' })),
    missed: Nullable(Type.Number({ description: 'missed / qualified' })),
  }),
  time_to_acknowledge: Latency,
  breaches: Type.Integer({ description: 'hand-offs made in the window that breached their SLA' }),
  open_overdue: Type.Integer({ description: 'hand-offs still open past due_at now' }),
  by_agent: Type.Array(Type.Object({ agent: Type.String(), ...Counts, breaches: Type.Integer(), time_to_acknowledge: Latency })),
  by_reason: Type.Array(Type.Object({ condition: ConditionSchema, turns: Type.Integer(), sessions: Type.Integer(), handoffs: Type.Integer() })),
  truncated: Type.Boolean(),
});
export type Report = Static<typeof ReportSchema>;

export const ConversationParams = Type.Object({ session_id: SessionId });

export const ConversationSchema = Type.Object({
  session_id: Type.String(),
  turns: Type.Array(
    Type.Object({
      id: Type.String(),
      agent: Type.String(),
      origin: StringEnum(['api', 'proxy']),
      trace_id: Nullable(Type.String()),
      at: Timestamp,
      user_text: Nullable(Type.String()),
      agent_text: Nullable(Type.String()),
      escalated: Nullable(Type.Boolean()),
      failed: Nullable(Type.Boolean()),
      confidence: Nullable(Type.Number()),
      conditions: Type.Array(Fired),
      handoff_id: Nullable(Type.String()),
    }),
    { description: 'oldest first; at most the last 500' },
  ),
  handoffs: Type.Array(HandoffSchema, { description: 'oldest first' }),
});
export type Conversation = Static<typeof ConversationSchema>;
