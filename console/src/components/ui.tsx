// Small pieces every page uses: loading and error states, a hook that loads from the API, badges,
// and a form that asks for a required reason before an action. Pages compose these; they do not
// write their own copies.
import { useCallback, useEffect, useId, useState, type FormEvent, type ReactNode } from 'react';
import { problemText } from '../api/client';

export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p className="loading" role="status">
      {what}…
    </p>
  );
}

export function ErrorNote({ error }: { error: string | null }) {
  if (error === null) return null;
  return (
    <p role="alert" className="error">
      {error}
    </p>
  );
}

export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="page-header">
      <h1>{title}</h1>
      {children !== undefined && <div className="actions">{children}</div>}
    </div>
  );
}

export interface Loaded<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  reload(): void;
}

/**
 * Loads with an openapi-fetch call and reloads when `deps` change or on `reload()`.
 * @example const findings = useLoad(() => api.GET('/api/findings', { params: { query: { status } } }), [status]);
 */
export function useLoad<T>(load: () => Promise<{ data?: T; error?: unknown }>, deps: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: string | null; loading: boolean }>({ data: undefined, error: null, loading: true });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (answer) => {
        if (!current) return;
        if (answer.data !== undefined) setState({ data: answer.data, error: null, loading: false });
        else setState({ data: undefined, error: problemText(answer.error), loading: false });
      },
      (error: unknown) => current && setState({ data: undefined, error: problemText(error), loading: false }),
    );
    return () => {
      current = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, round]);
  const reload = useCallback(() => setRound((value) => value + 1), []);
  return { ...state, reload };
}

const TONE: Record<string, string> = {
  allow: 'ok',
  block: 'bad',
  escalate: 'warn',
  mask: 'warn',
  tokenize: 'warn',
  critical: 'bad',
  high: 'bad',
  medium: 'warn',
  low: 'info',
  info: 'info',
  enforce: 'bad',
  observe: 'info',
  open: 'warn',
  resolved: 'ok',
  suppressed: 'info',
  pending: 'warn',
  approved: 'ok',
  denied: 'bad',
  acknowledged: 'info',
  active: 'ok',
  advanced: 'ok',
  applied: 'ok',
  at_risk: 'warn',
  better: 'ok',
  breached: 'bad',
  broken: 'bad',
  building: 'info',
  canary: 'warn',
  closed: 'ok',
  completed: 'ok',
  covered: 'ok',
  expired: 'info',
  fail: 'bad',
  failed: 'bad',
  failing: 'bad',
  held: 'warn',
  intact: 'ok',
  killed: 'bad',
  live: 'ok',
  loosens: 'warn',
  met: 'ok',
  never_computed: 'info',
  no_data: 'info',
  not_evidenced: 'warn',
  overdue: 'bad',
  pass: 'ok',
  passed: 'ok',
  quarantined: 'warn',
  queued: 'info',
  queued_for_retry: 'warn',
  ready: 'ok',
  rejected: 'bad',
  rolled_back: 'warn',
  running: 'info',
  used: 'ok',
  verified: 'ok',
  worse: 'bad',
};

/** A verdict, severity, mode or status as a coloured word (the word itself carries the meaning). */
export function Badge({ value }: { value: string | null | undefined }) {
  if (value === null || value === undefined) return null;
  return <span className={`badge ${TONE[value] ?? 'info'}`}>{value}</span>;
}

export function When({ at }: { at: string | null | undefined }) {
  if (at === null || at === undefined) return <span>—</span>;
  return <time dateTime={at}>{new Date(at).toLocaleString()}</time>;
}

/**
 * A button that opens a small form asking for a reason (required unless `optional`), then runs the
 * action; its refusal is shown next to it.
 */
export function ReasonAction({
  label,
  field = 'Reason',
  optional = false,
  danger = false,
  onSubmit,
}: {
  label: string;
  field?: string;
  optional?: boolean;
  danger?: boolean;
  /** Resolves with an error text to show, or null when done. */
  onSubmit(reason: string): Promise<string | null>;
}) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();
  if (!open) {
    return (
      <button type="button" className={danger ? 'danger' : undefined} onClick={() => setOpen(true)}>
        {label}
      </button>
    );
  }
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    const failed = await onSubmit(reason.trim());
    setBusy(false);
    setError(failed);
    if (failed === null) {
      setOpen(false);
      setReason('');
    }
  };
  return (
    <form className="reason" onSubmit={(event) => void submit(event)} aria-label={label}>
      <label htmlFor={id}>{field}</label>
      <input id={id} value={reason} onChange={(event) => setReason(event.target.value)} required={!optional} autoFocus />
      <button type="submit" disabled={busy} className={danger ? 'danger' : undefined}>
        {label}
      </button>
      <button type="button" className="link" onClick={() => setOpen(false)}>
        Cancel
      </button>
      <ErrorNote error={error} />
    </form>
  );
}

/**
 * Runs an openapi-fetch call; null when it succeeded (then `onDone`, usually a reload), otherwise
 * the problem as one line. A network failure is a refusal too, never an unhandled rejection.
 */
export async function outcome(call: Promise<{ error?: unknown; response: Response }>, onDone: () => void): Promise<string | null> {
  try {
    const answer = await call;
    if (answer.response.ok) {
      onDone();
      return null;
    }
    return problemText(answer.error);
  } catch (error) {
    return problemText(error);
  }
}

/** A button whose action needs no reason (approve a proposed grant): disabled while it runs, shows the refusal. */
export function ActionButton({
  label,
  name,
  className,
  primary = false,
  onRun,
}: {
  label: string;
  /** Accessible name when the label alone is ambiguous (one button per row). */
  name?: string;
  className?: string;
  primary?: boolean;
  onRun(): Promise<string | null>;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async () => {
    setBusy(true);
    setError(await onRun());
    setBusy(false);
  };
  return (
    <span>
      <button type="button" className={className ?? (primary ? 'primary' : undefined)} disabled={busy} aria-label={name} onClick={() => void run()}>
        {busy ? `${label}…` : label}
      </button>
      <ErrorNote error={error} />
    </span>
  );
}

/** Cursor paging: the API gives the next cursor; going back starts over from the first page. */
export function Pager({ cursor, next, onChange }: { cursor: string | undefined; next: string | null | undefined; onChange(cursor: string | undefined): void }) {
  if (cursor === undefined && (next === null || next === undefined)) return null;
  return (
    <div className="actions">
      {cursor !== undefined && (
        <button type="button" onClick={() => onChange(undefined)}>
          First page
        </button>
      )}
      {next !== null && next !== undefined && (
        <button type="button" onClick={() => onChange(next)}>
          Next page
        </button>
      )}
    </div>
  );
}

// The shared stylesheet has no definition-list layout; two columns that wrap long values.
const FACTS_LAYOUT = { display: 'grid', gridTemplateColumns: 'minmax(7rem, max-content) 1fr', gap: '4px 12px', margin: 0, overflowWrap: 'anywhere' } as const;

/**
 * A table that may scroll sideways on a phone: named and focusable, so a keyboard can scroll it even
 * when it holds no link or button (axe: scrollable-region-focusable).
 */
export function TableWrap({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-wrap" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}

/** Label/value pairs as a definition list; empty values print a dash. */
export function Facts({ items }: { items: Array<[string, ReactNode]> }) {
  return (
    <dl style={FACTS_LAYOUT}>
      {items.map(([term, value]) => (
        <div key={term} style={{ display: 'contents' }}>
          <dt className="muted">{term}</dt>
          <dd style={{ margin: 0 }}>{value === null || value === undefined || value === '' ? '—' : value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A list of names (tools, models) as one comma-separated line, or a dash. */
export function names(values: readonly string[]): string {
  return values.length === 0 ? '—' : values.join(', ');
}

/**
 * A loaded list: its error, a loading note until the first answer, a sentence when it is empty, and
 * otherwise what `children` makes of it.
 * @example <Listing loaded={runs} empty="No run yet.">{(data) => <RunsTable runs={data.items} />}</Listing>
 */
export function Listing<T extends { items: readonly unknown[] }>({ loaded, empty, children }: { loaded: Loaded<T>; empty: string; children(data: T): ReactNode }) {
  return (
    <>
      <ErrorNote error={loaded.error} />
      {loaded.data === undefined ? loaded.loading && <Loading /> : loaded.data.items.length === 0 ? <p className="muted">{empty}</p> : children(loaded.data)}
    </>
  );
}
