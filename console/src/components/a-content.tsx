// A recorded decision's checked content with each detected span highlighted by its entity. What
// the record holds depends on record_content when it was written: the full text (spans by offset),
// the redacted text (each span replaced by `[ENTITY]`), or nothing; the page says which.
import type { ReactNode } from 'react';
import type { paths } from '../api/client';

export type Trace = paths['/api/traces/{trace_id}']['get']['responses'][200]['content']['application/json'];
export type FiredRule = Trace['rules'][number];

interface Span {
  start: number;
  end: number;
  entity: string;
}

/** The detected spans rules name, one per place, earliest first; an overlapping later span is left out. */
function spansOf(rules: readonly FiredRule[]): Span[] {
  const all = rules
    .filter((rule): rule is FiredRule & { span: { start: number; end: number }; entity: string } => rule.span !== undefined && rule.entity !== undefined)
    .map((rule) => ({ start: rule.span.start, end: rule.span.end, entity: rule.entity }))
    .sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: Span[] = [];
  for (const span of all) {
    const last = kept[kept.length - 1];
    if (last !== undefined && span.start < last.end) continue;
    kept.push(span);
  }
  return kept;
}

function Marked({ entity, children }: { entity: string; children: ReactNode }) {
  return (
    <mark className="span" title={entity} data-entity={entity}>
      {children}
      <sup> {entity}</sup>
    </mark>
  );
}

/** The full text with spans marked by offset. */
function byOffset(content: string, spans: readonly Span[]): ReactNode[] {
  const parts: ReactNode[] = [];
  let cursor = 0;
  for (const span of spans) {
    parts.push(content.slice(cursor, span.start));
    parts.push(
      <Marked key={span.start} entity={span.entity}>
        {content.slice(span.start, span.end)}
      </Marked>,
    );
    cursor = span.end;
  }
  parts.push(content.slice(cursor));
  return parts;
}

/** The redacted text with each `[ENTITY]` placeholder of a detected entity marked. */
function byPlaceholder(content: string, entities: readonly string[]): ReactNode[] {
  const escaped = entities.map((entity) => entity.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const pattern = new RegExp(`\\[(${escaped.join('|')})\\]`, 'g');
  const parts: ReactNode[] = [];
  let cursor = 0;
  for (const match of content.matchAll(pattern)) {
    const entity = match[1] as string;
    parts.push(content.slice(cursor, match.index));
    parts.push(
      <mark key={match.index} className="span" title={entity} data-entity={entity}>
        {match[0]}
      </mark>,
    );
    cursor = match.index + match[0].length;
  }
  parts.push(content.slice(cursor));
  return parts;
}

export function RecordedContent({ trace }: { trace: Trace }) {
  const { content } = trace;
  if (content === null) {
    return <p className="muted">No content is recorded for this decision: record_content was none when it was checked, or retention has cleared it. Its SHA-256 is {trace.content_sha256}.</p>;
  }
  const spans = spansOf(trace.rules);
  const entities = [...new Set([...trace.entities, ...spans.map((span) => span.entity)])];
  const hasPlaceholder = entities.some((entity) => content.includes(`[${entity}]`));
  const full = content.length === trace.content_length && !hasPlaceholder && spans.every((span) => span.end <= content.length);
  let note: string;
  let parts: ReactNode[];
  if (full) {
    note = spans.length === 0 ? 'Recorded in full; no span was detected.' : 'Recorded in full; each detected span is marked with its entity.';
    parts = byOffset(content, spans);
  } else if (hasPlaceholder) {
    note = 'Recorded redacted (record_content: redacted): each detected span was replaced by its entity before it was stored.';
    parts = byPlaceholder(content, entities);
  } else {
    note = `The recorded text (${content.length} characters) is not the checked text (${trace.content_length} characters), so spans cannot be placed on it.`;
    parts = [content];
  }
  return (
    <>
      <p className="muted">{note}</p>
      <pre className="content">{parts}</pre>
    </>
  );
}

const STRENGTH: Record<string, number> = { allow: 0, mask: 1, tokenize: 1, escalate: 2, block: 3 };

/**
 * The rule that decided the outcome, found as the engine finds it (src/engine/policy/evaluate.ts
 * `strongest`): the strongest effect, an enforcing rule first on a tie, the earliest otherwise. The
 * trace does not record it, so the page recomputes it from the rules in recorded order.
 */
export function decisiveOf(rules: readonly FiredRule[]): FiredRule | null {
  let decisive: FiredRule | null = null;
  for (const rule of rules) {
    const strength = STRENGTH[rule.effect] ?? 0;
    const current = decisive === null ? -1 : (STRENGTH[decisive.effect] ?? 0);
    if (strength > current || (decisive !== null && strength === current && rule.mode === 'enforce' && decisive.mode !== 'enforce')) decisive = rule;
  }
  return decisive;
}
