// A saved version's rule-level diff, as its change proposal records it (the engine's PackDiff:
// from the version live when it was saved to the saved one): rules added, removed and changed, the
// fields that differ, and whether and why the change loosens policy.
import { TableWrap } from './ui';
import { Badge } from './ui';

interface RuleDiff {
  rule_id: string;
  fields: string[];
  loosens: boolean;
  reasons: string[];
}
interface PackDiff {
  from_version: number | null;
  to_version: number;
  fields: string[];
  added: RuleDiff[];
  removed: RuleDiff[];
  changed: RuleDiff[];
  loosens: boolean;
  reasons: string[];
}

/** The proposal's diff is typed loosely on the wire; this checks the shape before it is drawn. */
function asPackDiff(value: unknown): PackDiff | null {
  if (value === null || typeof value !== 'object') return null;
  const diff = value as Partial<PackDiff>;
  const lists = [diff.added, diff.removed, diff.changed, diff.fields, diff.reasons];
  return lists.every(Array.isArray) && typeof diff.to_version === 'number' ? (diff as PackDiff) : null;
}

export function PackDiffView({ diff }: { diff: unknown }) {
  const packDiff = asPackDiff(diff);
  if (packDiff === null) return <p className="muted">No diff recorded.</p>;
  const rows = [
    ...packDiff.added.map((rule) => ({ change: 'added', rule })),
    ...packDiff.removed.map((rule) => ({ change: 'removed', rule })),
    ...packDiff.changed.map((rule) => ({ change: 'changed', rule })),
  ];
  return (
    <div>
      <p>
        {packDiff.from_version === null ? 'A new pack' : `From v${packDiff.from_version}`} to v{packDiff.to_version}:{' '}
        <Badge value={packDiff.loosens ? 'loosens' : 'does not loosen'} />
        {packDiff.fields.length > 0 && <> · pack fields changed: {packDiff.fields.join(', ')}</>}
        {packDiff.reasons.length > 0 && <> · {packDiff.reasons.join('; ')}</>}
      </p>
      {rows.length === 0 ? (
        <p className="muted">No rule changed.</p>
      ) : (
        <TableWrap label={`Rule changes to v${packDiff.to_version} table`}>
          <table>
            <thead>
              <tr>
                <th scope="col">Change</th>
                <th scope="col">Rule</th>
                <th scope="col">Fields</th>
                <th scope="col">Loosens</th>
              </tr>
            </thead>
            <tbody>
              {rows.map(({ change, rule }) => (
                <tr key={`${change}-${rule.rule_id}`}>
                  <td>{change}</td>
                  <td>
                    <code>{rule.rule_id}</code>
                  </td>
                  <td>{rule.fields.length === 0 ? '—' : rule.fields.join(', ')}</td>
                  <td>{rule.loosens ? `yes: ${rule.reasons.join('; ')}` : 'no'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </div>
  );
}
