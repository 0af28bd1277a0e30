// What every resource kind of the workspace document provides, and the field-level diff they share.
// A kind reads the gateway's current items (export), says how an item is keyed, compares a desired
// item with the current one, and applies a change through the owning area's service. Pure but for
// the services a kind is handed.
import type { TSchema } from 'typebox';
import type { Principal } from '../../../infra/auth/principal.js';
import { canonicalJson } from '../../../infra/lib/canonical-json.js';

export type Item = Record<string, unknown>;
export type Action = 'create' | 'change' | 'delete';

export interface FieldChange {
  path: string;
  from: unknown;
  to: unknown;
}

/** One planned change of one resource. `blocked` says why the gateway cannot make it (it stays planned, apply reports it failed). */
export interface Change {
  kind: string;
  key: string;
  action: Action;
  fields: FieldChange[];
  blocked?: string;
}

/** What a kind's apply receives: the change, and the desired and current items it was planned from. */
export interface PlannedChange extends Change {
  desired: Item | null;
  current: Item | null;
}

export interface ApplyContext {
  caller: Principal;
  /** A variable of the gateway's environment (credentials are referenced by name, never written in the document). */
  env: (name: string) => string | undefined;
}

/** The whole desired document, parsed: kinds that depend on another kind's items read it (agents read grants). */
export type DesiredDocument = Partial<Record<string, Item[]>>;

export interface ResourceKind {
  /** The list's name in the document (`agents`, `mcp_servers`, …). */
  readonly name: string;
  /** One item of the list, strict (unknown fields refused), every string bounded. */
  readonly itemSchema: TSchema;
  readonly description: string;
  /** The natural key of an item (slug, key, agent/tool …), unique within the kind. */
  key(item: Item): string;
  /** Every current item, complete and without secrets, in key order. */
  current(): Promise<Item[]>;
  /**
   * The desired item as the gateway would store it: defaults filled where the owning service
   * replaces the whole record, values normalised as it normalises them. Fields left out of a
   * desired item are not compared (the gateway keeps them) unless normalise fills them.
   */
  normalise?(item: Item, document: DesiredDocument): Item;
  /** The current item as the document writes it, when the kind compares another shape (default: as is). */
  toDocument?(item: Item): Item;
  /** What the item schema cannot say (policy text that does not parse …): each problem with its field under the item. */
  check?(item: Item): Array<{ field: string; message: string }>;
  /** Field changes from current to desired; the default compares every desired field (comment excepted). */
  diff?(desired: Item, current: Item): FieldChange[];
  /** Whether a current item absent from the document is planned for deletion (default yes; shipped packs never are). */
  prunable?(current: Item): boolean;
  /** Why a planned change cannot be made (no route changes that field, the kind has no delete), or null. */
  blocked?(change: Change, desired: Item | null, current: Item | null): string | null;
  apply(change: PlannedChange, context: ApplyContext): Promise<void>;
}

/** Fields that never describe gateway state: a note for people, kept in the document only. */
export const IGNORED_FIELDS = new Set(['comment']);
/** Nested objects deeper than this are compared whole (the document itself is at most 64 deep). */
const MAX_DIFF_DEPTH = 16;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function sameValue(a: unknown, b: unknown): boolean {
  return canonicalJson(a ?? null) === canonicalJson(b ?? null);
}

/**
 * The field changes from `current` to `desired` over the fields `desired` names: nested objects
 * are compared key by key (path `protections.message`), lists and scalars whole. An absent value
 * and null are the same.
 */
export function fieldDiff(desired: Item, current: Item, prefix = '', depth = 0): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const [field, to] of Object.entries(desired)) {
    if (depth === 0 && IGNORED_FIELDS.has(field)) continue;
    const from = current[field];
    const path = prefix === '' ? field : `${prefix}.${field}`;
    if (isPlainObject(to) && isPlainObject(from) && depth < MAX_DIFF_DEPTH) {
      changes.push(...fieldDiff(to, from, path, depth + 1));
      // Keys the gateway holds that the desired object no longer names are removed.
      for (const [gone, value] of Object.entries(from)) if (!(gone in to) && value !== null && value !== undefined) changes.push({ path: `${path}.${gone}`, from: value, to: null });
      continue;
    }
    if (!sameValue(to, from)) changes.push({ path, from: from ?? null, to: to ?? null });
  }
  return changes;
}

/** Every field of a new item, as changes from nothing. */
export function creationFields(desired: Item): FieldChange[] {
  return Object.entries(desired)
    .filter(([field, value]) => !IGNORED_FIELDS.has(field) && value !== undefined && value !== null)
    .map(([path, to]) => ({ path, from: null, to }));
}

/** Every field of an item that goes, as changes to nothing. */
export function deletionFields(current: Item): FieldChange[] {
  return Object.entries(current)
    .filter(([field, value]) => !IGNORED_FIELDS.has(field) && value !== undefined && value !== null)
    .map(([path, from]) => ({ path, from, to: null }));
}

/** The item without undefined and null fields (a body for a service that reads absent as "keep"). */
export function withoutEmpty(item: Item): Item {
  return Object.fromEntries(Object.entries(item).filter(([field, value]) => value !== undefined && value !== null && !IGNORED_FIELDS.has(field)));
}

/** Paths of `fields` that start with one of `names` (a top-level field or below it). */
export function touches(fields: readonly FieldChange[], names: readonly string[]): string[] {
  return fields.filter((field) => names.some((name) => field.path === name || field.path.startsWith(`${name}.`))).map((field) => field.path);
}

/** A sorted copy of a list of strings: lists the gateway treats as sets compare in any order. */
export function sortedStrings(value: unknown): string[] | undefined {
  return Array.isArray(value) ? [...new Set(value.filter((entry): entry is string => typeof entry === 'string'))].sort() : undefined;
}

/** Keys in key order: exports are stable from one run to the next. */
export function byKey<T extends Item>(kind: Pick<ResourceKind, 'key'>, items: T[]): T[] {
  return [...items].sort((a, b) => (kind.key(a) < kind.key(b) ? -1 : kind.key(a) > kind.key(b) ? 1 : 0));
}

/** A service's paginated list read to the end, bounded: a runaway cursor stops. */
export async function allPages<T>(page: (cursor: string | undefined) => Promise<{ items: T[]; next_cursor: string | null }>, maxPages = 200): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let read = 0; read < maxPages; read++) {
    const answer = await page(cursor);
    items.push(...answer.items);
    if (answer.next_cursor === null) break;
    cursor = answer.next_cursor;
  }
  return items;
}

/** The reason a kind without a delete route gives for a planned delete. */
export const NO_DELETE = (what: string, instead: string) => `${what} cannot be removed through the gateway's API; ${instead}`;
