// Figures on the compliance, evaluations, red-team, sources and escalation pages: shares as
// percentages and labelled figures.
import type { ReactNode } from 'react';

/** A share in [0, 1] as a percentage; an unmeasured share (null) as a dash. */
export function percent(share: number | null | undefined): string {
  if (share === null || share === undefined) return '—';
  return `${(share * 100).toFixed(share === 0 || share === 1 ? 0 : 1)} %`;
}

/** A number, or a dash when there is none. */
export function figure(value: number | null | undefined, digits = 0): string {
  if (value === null || value === undefined) return '—';
  return value.toFixed(digits);
}

/**
 * Figures side by side, wrapping on a phone: a definition list so each value keeps its label for
 * screen readers. (Layout inline: the shared stylesheet has no class for a row of figures.)
 */
export function Figures({ items }: { items: Array<[string, ReactNode]> }) {
  return (
    <dl style={{ display: 'flex', flexWrap: 'wrap', gap: '8px 24px', margin: '8px 0' }}>
      {items.map(([name, value]) => (
        <div key={name}>
          <dt className="muted">{name}</dt>
          <dd style={{ margin: 0, fontWeight: 600 }}>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
