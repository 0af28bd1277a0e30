// Wire shapes of the public area: GET /api/public/showcase.
import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, Timestamp } from '../../infra/http/schemas.js';

export const SHOWCASE_OUTCOMES = ['through', 'blocked', 'masked', 'error'] as const;
export type ShowcaseOutcome = (typeof SHOWCASE_OUTCOMES)[number];

/** `allow`, `escalate` or `block`; `none` when the probe was not evaluated (outcome error). */
export const SHOWCASE_VERDICTS = ['allow', 'escalate', 'block', 'none'] as const;
export type ShowcaseVerdict = (typeof SHOWCASE_VERDICTS)[number];

/** One probe of a round. The probe's text is deliberately absent: see the area README. */
export const ShowcaseEventSchema = Type.Object({
  at: Timestamp,
  probe_id: Type.String({ description: 'the library probe (GET /api/redteam/probes lists the library to operators)' }),
  class: Type.String(),
  kind: StringEnum(['attack', 'benign'] as const),
  mutation: Nullable(Type.String({ description: 'the mutation class applied, null for the probe as written' })),
  verdict: StringEnum(SHOWCASE_VERDICTS, { description: 'the decisive verdict: where the probe was stopped, else allow' }),
  outcome: StringEnum(SHOWCASE_OUTCOMES, {
    description: 'through: it reached the demo agent and its answer went out unchanged (for a benign probe: passed, as it should); blocked: the gateway stopped it on the way in or the answer on the way out; masked: the answer went out with personal data masked; error: not evaluated',
  }),
  rules: Type.Array(Type.String(), { description: 'rules that fired' }),
});
export type ShowcaseEvent = Static<typeof ShowcaseEventSchema>;

export const PostureDaySchema = Type.Object({
  day: Type.String({ description: 'UTC date, YYYY-MM-DD' }),
  probes: Type.Integer(),
  blocked_attacks: Type.Integer({ description: 'attacks stopped: blocked, or their answer masked' }),
  attacks: Type.Integer(),
  benign_blocked: Type.Integer({ description: 'benign probes blocked or masked (over-blocking)' }),
  benign: Type.Integer(),
});
export type PostureDay = Static<typeof PostureDaySchema>;

export const ShowcaseTotalsSchema = Type.Object({
  probes: Type.Integer(),
  attacks: Type.Integer(),
  blocked_attacks: Type.Integer({ description: 'attacks stopped: blocked, or their answer masked' }),
  benign: Type.Integer(),
  benign_blocked: Type.Integer({ description: 'benign probes blocked or masked (over-blocking)' }),
  errors: Type.Integer(),
  attack_block_rate: Nullable(Type.Number({ description: 'blocked_attacks / attacks; null before any attack' })),
  over_block_rate: Nullable(Type.Number({ description: 'benign_blocked / benign; null before any benign probe' })),
  since: Nullable(Type.String({ description: 'the oldest kept probe; the newest 1000 are kept' })),
});
export type ShowcaseTotals = Static<typeof ShowcaseTotalsSchema>;

/**
 * One object rather than a union (answers avoid anyOf): `{ enabled: false }` alone where the
 * showcase is not run; every other field is present when it is.
 */
export const ShowcaseFeedSchema = Type.Object(
  {
    enabled: Type.Boolean(),
    agent: Type.Optional(Type.String()),
    interval_seconds: Type.Optional(Type.Integer()),
    generated_at: Type.Optional(Timestamp),
    recent: Type.Optional(Type.Array(ShowcaseEventSchema, { description: 'the newest 50 probes, newest first' })),
    posture: Type.Optional(Type.Array(PostureDaySchema, { description: 'the last 14 UTC days, oldest first; days without probes count zero' })),
    totals: Type.Optional(ShowcaseTotalsSchema),
  },
  { additionalProperties: false },
);
export type ShowcaseFeed = Static<typeof ShowcaseFeedSchema>;
