// One finding (GET /api/findings/{finding_id}): what it is, its occurrence history (first and last
// seen, the status changes from the audit trail, and — for findings raised by a rule — the recorded
// decisions behind each occurrence), its evidence, and the status moves for operators.
import { Link, useParams } from 'wouter';
import { api, type paths } from '../api/client';
import { useAuth } from '../auth';
import { FindingActions, type Finding } from '../components/a-findings';
import { Facts } from '../components/ui';
import { Badge, ErrorNote, Loading, PageHeader, When, useLoad } from '../components/ui';

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

type AuditEntry = paths['/api/audit/entries']['get']['responses'][200]['content']['application/json']['items'][number];

/** First and last seen and every audited status change, oldest first. */
function historyOf(finding: Finding, entries: readonly AuditEntry[]): Array<{ key: string; at: string; what: string }> {
  const changes = entries.map((entry) => {
    const said = text(entry.detail.suppression_reason) ?? text(entry.detail.note);
    return { key: entry.id, at: entry.at, what: `${entry.action} by ${entry.actor}${said === undefined ? '' : `: “${said}”`}` };
  });
  const events = [{ key: 'first', at: finding.at, what: 'first seen' }, ...changes];
  if (finding.occurrences > 1) events.push({ key: 'last', at: finding.last_seen_at, what: `last seen (occurrence ${finding.occurrences})` });
  return events.sort((a, b) => a.at.localeCompare(b.at));
}

export default function FindingPage() {
  const { id } = useParams<{ id: string }>();
  const { can } = useAuth();
  const finding = useLoad(() => api.GET('/api/findings/{finding_id}', { params: { path: { finding_id: id } } }), [id]);
  const history = useLoad(() => api.GET('/api/audit/entries', { params: { query: { target: id, limit: 100 } } }), [id, finding.data?.status]);

  if (finding.data === undefined) {
    if (finding.loading) return <Loading what="Loading the finding" />;
    return (
      <>
        <PageHeader title="Finding" />
        <ErrorNote error={finding.error} />
      </>
    );
  }
  const current = finding.data;
  return (
    <>
      <PageHeader title={current.title}>{can('operator') && <FindingActions finding={current} onChanged={finding.reload} />}</PageHeader>
      <p>
        <Badge value={current.severity} /> <Badge value={current.status} /> <span className="muted">{current.type}</span>
      </p>
      <Facts
        items={[
          ['Finding', <code>{current.id}</code>],
          ['Subject', current.agent === null ? current.subject : <Link href={`/agents/${current.agent}`}>{current.agent}</Link>],
          ['Occurrences', `${current.occurrences} (reopened ${current.reopened_count}×)`],
          ['Latest decision', current.decision_id === null ? null : <Link href={`/decisions/${current.decision_id}`}>{current.decision_id}</Link>],
          ['Suppression reason', current.suppression_reason],
          ['Resolution note', current.resolution_note],
        ]}
      />

      <h2>History</h2>
      <ErrorNote error={history.error} />
      <ol>
        {historyOf(current, history.data?.items ?? []).map((event) => (
          <li key={event.key}>
            <When at={event.at} /> — {event.what}
          </li>
        ))}
      </ol>

      <Occurrences finding={current} />

      <h2>Evidence</h2>
      <pre className="content">{JSON.stringify(current.evidence, null, 2)}</pre>
    </>
  );
}

/**
 * The recorded decisions behind a finding a rule raised: its agent's decisions in which the rule
 * fired (on the same entity) since the finding was first seen. Other findings name only their latest decision.
 */
function Occurrences({ finding }: { finding: Finding }) {
  const rule = text(finding.evidence.rule_id);
  const agent = finding.agent ?? text(finding.evidence.agent);
  if (rule === undefined || agent === undefined) return null;
  return <RuleDecisions agent={agent} rule={rule} entity={text(finding.evidence.entity)} since={finding.at} seen={finding.last_seen_at} />;
}

function RuleDecisions({ agent, rule, entity, since, seen }: { agent: string; rule: string; entity: string | undefined; since: string; seen: string }) {
  const decisions = useLoad(() => api.GET('/api/traces', { params: { query: { agent, rule, entity_type: entity, start: since, limit: 20 } } }), [agent, rule, entity, since, seen]);
  const all = new URLSearchParams({ agent, rule, ...(entity === undefined ? {} : { entity_type: entity }) });
  return (
    <>
      <h2>Decisions behind it</h2>
      <p className="muted">
        Decisions of {agent} in which {rule} fired{entity === undefined ? '' : ` on ${entity}`} since the finding was first seen, newest first.{' '}
        <Link href={`/decisions?${all.toString()}`}>All such decisions</Link>
      </p>
      <ErrorNote error={decisions.error} />
      {decisions.loading && decisions.data === undefined ? (
        <Loading what="Loading decisions" />
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">At</th>
                <th scope="col">Surface</th>
                <th scope="col">Verdict</th>
                <th scope="col">Decision</th>
              </tr>
            </thead>
            <tbody>
              {(decisions.data?.items ?? []).map((decision) => (
                <tr key={decision.id}>
                  <td>
                    <When at={decision.at} />
                  </td>
                  <td>{decision.surface}</td>
                  <td>
                    <Badge value={decision.verdict} />
                  </td>
                  <td>
                    <Link href={`/decisions/${decision.id}`}>{decision.id}</Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
