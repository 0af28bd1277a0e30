// The public waitlist: a visitor leaves an address (and where they came from, a company, a note).
// One entry per normalised address (trimmed, lower-cased): a second sign-up changes nothing a
// visitor can see and answers nothing about the list. Nothing is sent anywhere. Operators list
// the entries and export them as CSV (the export is audited: it hands out personal data).
import type { AuditLog } from '../audit/log.js';
import { actorOf, type Principal } from '../../infra/auth/principal.js';
import { decodeCursor, pageOf } from '../../infra/http/paging.js';
import { problem } from '../../infra/http/problems.js';
import type { Clock } from '../../infra/lib/clock.js';
import { newId } from '../../infra/lib/ids.js';
import { storableText } from '../../infra/lib/storable-text.js';
import type { Store } from '../../infra/store/db.js';
import type { WaitlistEntriesTable } from '../../infra/store/tables.js';
import { MAX_EMAIL, type JoinWaitlistBody, type ListWaitlistQuery, type WaitlistEntry } from './schemas.js';
import * as waitlist from './store.js';

/** Rows the CSV export reads per query, and at most in all. */
const EXPORT_PAGE = 1000;
const EXPORT_MAX = 100_000;
const CSV_COLUMNS = ['email', 'source', 'company', 'note', 'signups', 'created_at', 'updated_at'] as const;

export interface WaitlistServiceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
}

export class WaitlistService {
  constructor(readonly deps: WaitlistServiceDeps) {}

  /** POST /api/waitlist: answers whether the address is new (201) or was already on the list (200). */
  async join(body: JoinWaitlistBody): Promise<{ created: boolean }> {
    const email = body.email.trim();
    const why = emailProblem(email);
    if (why !== null) throw problem('invalid-request', `email: ${why}`, [{ field: '/body/email', message: why }]);
    const normalized = email.toLowerCase();
    const at = this.deps.clock.now().toISOString();
    const optional = (value: string | undefined): string | null => {
      const trimmed = value?.trim();
      return trimmed === undefined || trimmed === '' ? null : storableText(trimmed);
    };
    const fields = { source: optional(body.source), company: optional(body.company), note: optional(body.note) };
    const created = await waitlist.insertIfNew(this.deps.store.db, {
      id: newId('wlt'),
      email_normalized: normalized,
      email,
      ...fields,
      signups: 1,
      created_at: at,
      updated_at: at,
    });
    if (!created) await waitlist.noteRepeat(this.deps.store.db, normalized, fields, at);
    return { created };
  }

  /** GET /api/waitlist: newest first, paged. */
  async list(query: ListWaitlistQuery): Promise<{ items: WaitlistEntry[]; next_cursor: string | null }> {
    const limit = query.limit ?? 50;
    const rows = await waitlist.listEntries(this.deps.store.db, limit + 1, decodeCursor(query.cursor));
    const page = pageOf(rows, limit);
    return { items: page.items.map(toWire), next_cursor: page.next_cursor };
  }

  /** GET /api/waitlist?format=csv: every entry (oldest last), audited. */
  async exportCsv(caller: Principal): Promise<string> {
    const lines: string[] = [CSV_COLUMNS.join(',')];
    let before: string | undefined;
    let exported = 0;
    while (exported < EXPORT_MAX) {
      const rows = await waitlist.listEntries(this.deps.store.db, EXPORT_PAGE, before);
      for (const row of rows) lines.push(CSV_COLUMNS.map((column) => csvCell(row[column])).join(','));
      exported += rows.length;
      if (rows.length < EXPORT_PAGE) break;
      before = rows.at(-1)?.id;
    }
    await this.deps.audit.append({ actor: actorOf(caller), action: 'waitlist.export', target: 'waitlist', detail: { entries: exported, format: 'csv' } });
    return `${lines.join('\r\n')}\r\n`;
  }
}

function toWire(row: WaitlistEntriesTable): WaitlistEntry {
  return {
    id: row.id,
    email: row.email,
    source: row.source,
    company: row.company,
    note: row.note,
    signups: Number(row.signups),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** Characters a spreadsheet reads as the start of a formula (and tab / CR, which some strip first). */
const FORMULA_STARTS = new Set(['=', '+', '-', '@', '\t', '\r']);

/**
 * One CSV cell (RFC 4180): a text a spreadsheet would run as a formula gets a leading apostrophe,
 * and every text cell is quoted with its quotes doubled.
 */
export function csvCell(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const safe = FORMULA_STARTS.has(value.charAt(0)) ? `'${value}` : value;
  return `"${safe.replaceAll('"', '""')}"`;
}

const LOCAL_SPECIALS = new Set([...'()<>[]\\,;:"']);

/**
 * Why the address is not one we accept, or null: one @, a local part of 1-64 characters without
 * spaces, controls, specials or stray dots, a domain of dot-separated labels (letters, digits,
 * hyphens; none at a label's ends) with at least two labels and a top-level label of letters.
 * A linear scan, no regular expression; non-ASCII letters are allowed (internationalised addresses).
 */
export function emailProblem(email: string): string | null {
  if (email.length === 0) return 'is empty';
  if (email.length > MAX_EMAIL) return `is longer than ${MAX_EMAIL} characters`;
  if (!email.isWellFormed()) return 'is not well-formed text';
  for (const char of email) {
    const code = char.codePointAt(0) as number;
    if (code <= 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029 || code === 0xfeff || (code >= 0x200b && code <= 0x200f)) {
      return 'may not contain spaces or control characters';
    }
  }
  const at = email.indexOf('@');
  if (at < 0 || email.indexOf('@', at + 1) >= 0) return 'needs exactly one @';
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  if (local.length === 0 || local.length > 64) return 'the part before @ must be 1 to 64 characters';
  if (local.startsWith('.') || local.endsWith('.') || local.includes('..')) return 'the part before @ has a misplaced dot';
  for (const char of local) if (LOCAL_SPECIALS.has(char)) return `the part before @ may not contain ${char}`;
  const labels = domain.split('.');
  if (labels.length < 2) return 'the domain needs a dot (example.com)';
  for (const label of labels) {
    if (label.length === 0 || label.length > 63) return 'the domain has an empty or overlong label';
    if (label.startsWith('-') || label.endsWith('-')) return 'a domain label may not start or end with a hyphen';
    for (const char of label) {
      if (!(char === '-' || isLetterOrDigit(char))) return `the domain may not contain ${char}`;
    }
  }
  const top = labels.at(-1) as string;
  if (top.length < 2 || [...top].some((char) => !isLetter(char))) return 'the domain must end in a top-level name of letters';
  return null;
}

function isLetterOrDigit(char: string): boolean {
  return (char >= '0' && char <= '9') || isLetter(char);
}

function isLetter(char: string): boolean {
  if ((char >= 'a' && char <= 'z') || (char >= 'A' && char <= 'Z')) return true;
  // Non-ASCII: a character with distinct cases, or beyond Latin-1 punctuation, counts as a letter.
  return char.codePointAt(0)! > 0xbf && char.toLowerCase() !== char.toUpperCase();
}
