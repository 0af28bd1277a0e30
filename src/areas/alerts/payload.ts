// What is posted to a chat tool's incoming webhook (the common JSON shape: `text` for notifications
// and clients without blocks, `blocks` for the message itself), and how a webhook URL is shown.
// Only a finding's title, ids and plain facts go out, never its evidence: evidence can hold
// secrets or personal data, and a chat channel is read by more people than the gateway's console.

/** The chat tool refuses a header block longer than this. */
export const HEADER_MAX_CHARS = 150;
/** Each section field is cut to this many characters (the chat tool allows 2000; a subject can be long). */
export const FIELD_MAX_CHARS = 300;
/** The URL tail shown in a masked URL, and the shortest path (after the host) that shows it at all. */
const MASK_TAIL_CHARS = 4;
const MASK_MIN_HIDDEN_CHARS = 12;

export interface ChatText {
  type: 'plain_text' | 'mrkdwn';
  text: string;
}

export type ChatBlock =
  | { type: 'header'; text: ChatText }
  | { type: 'section'; fields: ChatText[] }
  | { type: 'context'; elements: ChatText[] };

export interface ChatMessage {
  text: string;
  blocks: ChatBlock[];
}

/** The finding facts an alert carries (a row of `findings`, evidence left out). */
export interface AlertedFinding {
  id: string;
  fingerprint: string;
  type: string;
  severity: string;
  title: string;
  subject: string;
  agent: string | null;
  at: string;
  occurrences: number;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/**
 * The text with `&`, `<` and `>` escaped, cut to at most `max` characters (an escape is never cut
 * in half; a cut text ends in an ellipsis). The chat tool reads `<...>` as links and mentions
 * (`<!channel>`), so a finding title must never be able to make one.
 * @example escapeChat('a <b> & c') // 'a &lt;b&gt; &amp; c'
 */
export function escapeChat(text: string, max = Number.POSITIVE_INFINITY): string {
  let out = '';
  for (const char of text) {
    const piece = ESCAPES[char] ?? char;
    if (out.length + piece.length > max) return `${trimToFit(out, max - 1)}…`;
    out += piece;
  }
  return out;
}

/** Cuts escaped text to `max` characters without splitting an escape or a surrogate pair. */
function trimToFit(escaped: string, max: number): string {
  let cut = Math.max(0, max);
  const amp = escaped.lastIndexOf('&', cut);
  // An escape is at most 5 characters (&amp;): one that starts in the last five may be cut short.
  if (amp !== -1 && amp >= cut - 4 && escaped.indexOf(';', amp) >= cut) cut = amp;
  const code = escaped.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  return escaped.slice(0, cut);
}

const field = (label: string, value: string): ChatText => ({ type: 'mrkdwn', text: `*${label}*\n${escapeChat(value, FIELD_MAX_CHARS)}` });

/** The message announcing one finding. */
export function findingMessage(finding: AlertedFinding): ChatMessage {
  return {
    text: `${escapeChat(finding.severity)} finding: ${escapeChat(finding.title, 1000)}`,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: escapeChat(finding.title, HEADER_MAX_CHARS) } },
      {
        type: 'section',
        fields: [
          field('Severity', finding.severity),
          field('Type', finding.type),
          field('Subject', finding.subject),
          field('Agent', finding.agent ?? '—'),
          field('First seen', finding.at),
          field('Occurrences', String(finding.occurrences)),
        ],
      },
      {
        type: 'context',
        elements: [{ type: 'mrkdwn', text: `Parapet finding ${escapeChat(finding.id, 100)} · fingerprint ${escapeChat(finding.fingerprint.slice(0, 12))}` }],
      },
    ],
  };
}

/** Something other than a finding that people must hear about (a hand-off): a title, labelled values and a line of context. */
export interface Notice {
  title: string;
  fields: Array<[label: string, value: string]>;
  context: string;
}

/** The message announcing a notice, in the same shape as a finding's. */
export function noticeMessage(notice: Notice): ChatMessage {
  return {
    text: escapeChat(notice.title, 1000),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: escapeChat(notice.title, HEADER_MAX_CHARS) } },
      { type: 'section', fields: notice.fields.slice(0, 10).map(([label, value]) => field(label, value)) },
      { type: 'context', elements: [{ type: 'mrkdwn', text: escapeChat(notice.context, 300) }] },
    ],
  };
}

/** The message POST /api/alerts/chat/test sends: the same shape, saying who asked for it. */
export function testMessage(input: { sentBy: string; at: string; minSeverity: string }): ChatMessage {
  return {
    text: 'Parapet test alert',
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: 'Parapet test alert' } },
      {
        type: 'section',
        fields: [field('Sent by', input.sentBy), field('Sent at', input.at), field('Minimum severity', input.minSeverity)],
      },
      {
        type: 'context',
        elements: [{ type: 'mrkdwn', text: 'This channel receives Parapet findings at or above the minimum severity, monitor changes and missed escalations.' }],
      },
    ],
  };
}

/**
 * The URL as it may be shown: scheme, host and the last characters, never the path (where chat
 * tools put the secret). A short path shows no tail at all: four of a few characters is too much.
 * @example maskUrl('https://hooks.chat.example/services/T0/B0/abcdefgh1234') // 'https://hooks.chat.example/…1234'
 */
export function maskUrl(raw: string): string {
  const url = new URL(raw);
  const hidden = raw.length - `${url.protocol}//${url.host}`.length;
  const tail = hidden >= MASK_MIN_HIDDEN_CHARS ? raw.slice(-MASK_TAIL_CHARS) : '';
  return `${url.protocol}//${url.host}/…${tail}`;
}

/**
 * The text with the URL (and its path, the secret part) replaced by its masked form, so that an
 * error message that quotes the URL can be stored, logged or answered.
 */
export function withoutUrl(text: string, raw: string): string {
  let out = text.split(raw).join(maskUrl(raw));
  const url = new URL(raw);
  const secretPart = `${url.pathname}${url.search}`;
  if (secretPart.length > 1) out = out.split(secretPart).join('/…');
  return out;
}
