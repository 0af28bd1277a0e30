// Wire shapes of the waitlist: POST /api/waitlist (public) and GET /api/waitlist (operator).
import { Type, type Static } from 'typebox';
import { Body, ListOf, ListQuery, Nullable, StringEnum, Timestamp } from '../../infra/http/schemas.js';

/** RFC 5321: a path is at most 256 octets including the angle brackets, so an address at most 254. */
export const MAX_EMAIL = 254;
export const MAX_SOURCE = 100;
export const MAX_COMPANY = 200;
export const MAX_NOTE = 2000;
export const WAITLIST_BODY_LIMIT = 16_384;

export const JoinWaitlistBody = Body(
  {
    email: Type.String({ minLength: 1, maxLength: MAX_EMAIL, description: 'an e-mail address; trimmed and lower-cased it names the entry (a second sign-up changes nothing)' }),
    source: Type.Optional(Type.String({ maxLength: MAX_SOURCE, description: 'where the visitor came from (a page, a campaign)' })),
    company: Type.Optional(Type.String({ maxLength: MAX_COMPANY })),
    note: Type.Optional(Type.String({ maxLength: MAX_NOTE })),
  },
  { bodyLimit: WAITLIST_BODY_LIMIT },
);
export type JoinWaitlistBody = Static<typeof JoinWaitlistBody>;

/** All a visitor learns: that the address is on the list. Nothing about anyone else's entry. */
export const JoinedSchema = Type.Object({ status: StringEnum(['joined'] as const) });

export const WaitlistEntrySchema = Type.Object({
  id: Type.String(),
  email: Type.String({ description: 'as first given, trimmed' }),
  source: Nullable(Type.String()),
  company: Nullable(Type.String()),
  note: Nullable(Type.String()),
  signups: Type.Integer({ description: 'how many times the address was sent' }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type WaitlistEntry = Static<typeof WaitlistEntrySchema>;

export const ListWaitlistQuery = Type.Object({
  ...ListQuery.properties,
  format: Type.Optional(StringEnum(['json', 'csv'] as const, { description: 'csv: every entry as a CSV file (cells that a spreadsheet would run as a formula are quoted with a leading apostrophe)' })),
});
export type ListWaitlistQuery = Static<typeof ListWaitlistQuery>;

export const WaitlistListSchema = ListOf(WaitlistEntrySchema);
