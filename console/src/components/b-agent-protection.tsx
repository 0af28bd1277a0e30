// An agent's protections (blocked words, topics, refusal message, limits) with a preview: the
// candidate is replayed against the agent's last week of recorded input and output before anyone
// saves it. Anyone may preview (it stores nothing); saving needs an operator.
import { useId, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { api, problemText, type paths } from '../api/client';
import { useAuth } from '../auth';
import { Facts, names, outcome, TableWrap } from './ui';
import { Badge, ErrorNote, Loading, useLoad } from './ui';

type Protection = paths['/api/agents/{slug}/protection']['get']['responses'][200]['content']['application/json'];
type ProtectionBody = NonNullable<paths['/api/agents/{slug}/protection']['post']['requestBody']>['content']['application/json'];
type Preview = paths['/api/agents/{slug}/protection/preview']['post']['responses'][200]['content']['application/json'];

/** The limits a person edits here; the form shows the stored value (not the default) so an empty box means "none set". */
const LIMITS = [
  ['max_tool_calls_per_hour', 'Tool calls per hour'],
  ['max_calls_per_day', 'Model calls per day'],
  ['max_cost_usd_per_day', 'Model cost per day (USD)'],
  ['loop_threshold', 'Identical calls that make a loop'],
] as const;
type LimitKey = (typeof LIMITS)[number][0];

interface Draft {
  words: string;
  avoid: string;
  allowed: string;
  message: string;
  limits: Record<LimitKey, string>;
}

function draftOf(protection: Protection): Draft {
  const stored = (key: LimitKey): string => {
    const value = protection.protections[key];
    return typeof value === 'number' ? String(value) : '';
  };
  return {
    words: protection.words.join(', '),
    avoid: protection.avoid ?? '',
    allowed: protection.allowed ?? '',
    message: protection.message ?? '',
    limits: { max_tool_calls_per_hour: stored('max_tool_calls_per_hour'), max_calls_per_day: stored('max_calls_per_day'), max_cost_usd_per_day: stored('max_cost_usd_per_day'), loop_threshold: stored('loop_threshold') },
  };
}

/** The body for POST …/protection and …/preview: an emptied field is sent as null, which removes it. */
function bodyOf(draft: Draft): ProtectionBody {
  const text = (value: string): string | null => (value.trim() === '' ? null : value.trim());
  const words = draft.words
    .split(',')
    .map((word) => word.trim())
    .filter((word) => word !== '');
  const limits = Object.fromEntries(LIMITS.map(([key]) => [key, draft.limits[key].trim() === '' ? null : Number(draft.limits[key])]));
  return { words: words.length === 0 ? null : words, avoid: text(draft.avoid), allowed: text(draft.allowed), message: text(draft.message), protections: limits };
}

export function AgentProtection({ slug }: { slug: string }) {
  const protection = useLoad(() => api.GET('/api/agents/{slug}/protection', { params: { path: { slug } } }), [slug]);
  return (
    <section aria-labelledby="protection-heading">
      <h2 id="protection-heading">Protections</h2>
      <ErrorNote error={protection.error} />
      {protection.data === undefined ? (
        protection.loading && <Loading what="Loading protections" />
      ) : (
        <>
          <Facts
            items={[
              ['Blocked words', names(protection.data.words)],
              ['Topics to avoid', protection.data.avoid],
              ['Allowed topics', protection.data.allowed],
              ['Refusal message', protection.data.message],
              ['Tool calls per hour', protection.data.limits.max_tool_calls_per_hour ?? 'no limit'],
              ['Model calls per day', protection.data.limits.max_calls_per_day ?? 'no limit'],
              ['Model cost per day', protection.data.limits.max_cost_usd_per_day === null ? 'no limit' : `$${protection.data.limits.max_cost_usd_per_day}`],
              ['Loop', `${protection.data.limits.loop_threshold} identical calls within ${protection.data.limits.loop_window_seconds} s`],
            ]}
          />
          <ProtectionEditor slug={slug} current={protection.data} onSaved={protection.reload} />
        </>
      )}
    </section>
  );
}

function ProtectionEditor({ slug, current, onSaved }: { slug: string; current: Protection; onSaved(): void }) {
  const { can } = useAuth();
  const [draft, setDraft] = useState<Draft>(() => draftOf(current));
  const [preview, setPreview] = useState<Preview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const id = useId();

  const edit = (change: Partial<Draft>) => {
    setDraft((previous) => ({ ...previous, ...change }));
    setPreview(null);
    setSaved(false);
  };
  const runPreview = async () => {
    setBusy(true);
    setError(null);
    try {
      const answer = await api.POST('/api/agents/{slug}/protection/preview', { params: { path: { slug } }, body: bodyOf(draft) });
      if (answer.data !== undefined) setPreview(answer.data);
      else setError(problemText(answer.error));
    } catch (failure) {
      setError(problemText(failure));
    }
    setBusy(false);
  };
  const save = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    const failed = await outcome(api.POST('/api/agents/{slug}/protection', { params: { path: { slug } }, body: bodyOf(draft) }), onSaved);
    setBusy(false);
    setError(failed);
    setSaved(failed === null);
  };

  return (
    <form onSubmit={(event) => void save(event)} aria-labelledby={`${id}-heading`} className="card" style={{ marginTop: 12 }}>
      <h3 id={`${id}-heading`} style={{ marginTop: 0 }}>
        {can('operator') ? 'Change protections' : 'Try other protections'}
      </h3>
      <div className="filters">
        <div>
          <label htmlFor={`${id}-words`}>Blocked words (comma-separated)</label>
          <input id={`${id}-words`} value={draft.words} onChange={(event) => edit({ words: event.target.value })} />
        </div>
        <div>
          <label htmlFor={`${id}-avoid`}>Topics to avoid</label>
          <input id={`${id}-avoid`} value={draft.avoid} onChange={(event) => edit({ avoid: event.target.value })} />
        </div>
        <div>
          <label htmlFor={`${id}-allowed`}>Allowed topics</label>
          <input id={`${id}-allowed`} value={draft.allowed} onChange={(event) => edit({ allowed: event.target.value })} />
        </div>
        <div>
          <label htmlFor={`${id}-message`}>Refusal message</label>
          <input id={`${id}-message`} value={draft.message} onChange={(event) => edit({ message: event.target.value })} />
        </div>
        {LIMITS.map(([key, label]) => (
          <div key={key}>
            <label htmlFor={`${id}-${key}`}>{label}</label>
            <input
              id={`${id}-${key}`}
              type="number"
              min={0}
              step="any"
              inputMode="decimal"
              value={draft.limits[key]}
              onChange={(event) => edit({ limits: { ...draft.limits, [key]: event.target.value } })}
            />
          </div>
        ))}
      </div>
      <div className="actions">
        <button type="button" disabled={busy} onClick={() => void runPreview()}>
          Preview against last week
        </button>
        {can('operator') && (
          <button type="submit" className="primary" disabled={busy}>
            Save protections
          </button>
        )}
      </div>
      <ErrorNote error={error} />
      {saved && (
        <p role="status" className="muted">
          Saved.
        </p>
      )}
      {preview !== null && <PreviewResult preview={preview} />}
    </form>
  );
}

function PreviewResult({ preview }: { preview: Preview }) {
  return (
    <div role="status" style={{ marginTop: 12 }}>
      <p>
        Over the last {preview.days} days, {preview.replayed} input and output text(s) replayed: <strong>{preview.would_block}</strong> would be blocked,{' '}
        <strong>{preview.newly_blocked}</strong> of them not blocked then.
        {preview.skipped_without_content > 0 && ` ${preview.skipped_without_content} decision(s) had no recorded content.`}
        {preview.truncated && ' More decisions fell in the window than a preview replays.'}
      </p>
      {preview.examples.length > 0 && (
        <TableWrap label="Preview examples">
          <table>
            <thead>
              <tr>
                <th scope="col">Decision</th>
                <th scope="col">Surface</th>
                <th scope="col">Matched</th>
                <th scope="col">Verdict then</th>
              </tr>
            </thead>
            <tbody>
              {preview.examples.map((example) => (
                <tr key={`${example.decision_id}-${example.term}`}>
                  <td>
                    <Link href={`/decisions/${encodeURIComponent(example.decision_id)}`}>{example.decision_id}</Link>
                  </td>
                  <td>{example.surface}</td>
                  <td>{example.term}</td>
                  <td>
                    <Badge value={example.verdict_then} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </div>
  );
}
