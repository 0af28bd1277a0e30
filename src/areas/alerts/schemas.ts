// Wire shapes of the chat alert channel: GET|PUT|DELETE /api/alerts/chat, POST /api/alerts/chat/test.
import { Type, type Static } from 'typebox';
import { Body, StringEnum, Timestamp } from '../../infra/http/schemas.js';

export const ALERT_SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export type AlertSeverity = (typeof ALERT_SEVERITIES)[number];
export const DEFAULT_MIN_SEVERITY: AlertSeverity = 'high';
export const MAX_WEBHOOK_URL_CHARS = 2048;

const MinSeverity = StringEnum(ALERT_SEVERITIES, { description: 'findings at or above this severity are posted (monitor changes and missed escalations always)' });

export const PutChatChannelBody = Body({
  url: Type.String({
    minLength: 1,
    maxLength: MAX_WEBHOOK_URL_CHARS,
    description: "the chat tool's incoming-webhook URL: a secret, sealed at once and never answered (https; http and private addresses only with outbound_allow_private)",
  }),
  min_severity: Type.Optional(StringEnum(ALERT_SEVERITIES, { default: DEFAULT_MIN_SEVERITY, description: 'default high' })),
});
export type PutChatChannelBody = Static<typeof PutChatChannelBody>;

/** The channel as shown; without a channel only `configured: false` (no anyOf: see StringEnum). */
export const ChatChannelSchema = Type.Object({
  configured: Type.Boolean(),
  url_masked: Type.Optional(Type.String({ description: 'scheme://host/… and the last 4 characters; never the URL' })),
  min_severity: Type.Optional(MinSeverity),
  updated_at: Type.Optional(Timestamp),
  updated_by: Type.Optional(Type.String()),
});
export type ChatChannelView = Static<typeof ChatChannelSchema>;

export const DeletedChannelSchema = Type.Object({ deleted: Type.Literal(true), url_masked: Type.String() });
export type DeletedChannel = Static<typeof DeletedChannelSchema>;

export const TestSentSchema = Type.Object({
  sent: Type.Literal(true),
  status: Type.Integer({ description: "the webhook's HTTP status (2xx)" }),
});
export type TestSent = Static<typeof TestSentSchema>;
