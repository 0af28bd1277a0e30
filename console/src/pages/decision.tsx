// One recorded decision (GET /api/traces/{trace_id}): its facts, the checked content with each
// detected span highlighted by entity, the rules fired with pack, mode and effect (the decisive one
// marked), the detectors and which of them degraded, and a one-click dispute for operators
// (POST /api/guardrails/feedback: a false positive per detected entity, or a missed detection).
import { useState, type ReactNode } from 'react';
import { Link, useParams } from 'wouter';
import { api } from '../api/client';
import { useAuth } from '../auth';
import { RecordedContent, decisiveOf, type Trace } from '../components/a-content';
import { ActionButton, Facts, outcome } from '../components/ui';
import { Badge, ErrorNote, Loading, PageHeader, When, useLoad } from '../components/ui';

export default function DecisionPage() {
  const { id } = useParams<{ id: string }>();
  const { can } = useAuth();
  const trace = useLoad(() => api.GET('/api/traces/{trace_id}', { params: { path: { trace_id: id } } }), [id]);

  if (trace.data === undefined) {
    if (trace.loading) return <Loading what="Loading the decision" />;
    return (
      <>
        <PageHeader title="Decision" />
        <ErrorNote error={trace.error} />
      </>
    );
  }
  const decision = trace.data;
  return (
    <>
      <PageHeader title="Decision">{can('operator') && <Dispute decision={decision} />}</PageHeader>
      <p>
        <Badge value={decision.verdict} /> {decision.agent} on {decision.surface}
        {decision.tool !== null && <> calling {decision.tool}</>}, <When at={decision.at} />
      </p>
      <Facts
        items={[
          ['Decision', <code>{decision.id}</code>],
          ['Agent', <Link href={`/agents/${decision.agent}`}>{decision.agent}</Link>],
          ['Verdict', <Badge value={decision.verdict} />],
          // Observing packs count in the effective verdict, not in the enforced one.
          ...(decision.effective_verdict === decision.verdict ? [] : [['With observing packs', <Badge value={decision.effective_verdict} />] as [string, ReactNode]]),
          ['Mode', <Badge value={decision.mode} />],
          ['Latency', `${decision.latency_ms.toFixed(1)} ms`],
          ['Environment', decision.environment],
          ['Session', decision.session_id],
          ['Caller trace id', decision.trace_id],
          ['Content', `${decision.content_length} characters, SHA-256 ${decision.content_sha256}`],
        ]}
      />

      <h2>Checked content</h2>
      <RecordedContent trace={decision} />

      <h2>Rules fired</h2>
      <RulesFired decision={decision} />

      <h2>Detectors</h2>
      <Detectors decision={decision} />
    </>
  );
}

function RulesFired({ decision }: { decision: Trace }) {
  if (decision.rules.length === 0) return <p>No rule fired: the call was allowed.</p>;
  const decisive = decisiveOf(decision.rules);
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Rule</th>
            <th scope="col">Pack</th>
            <th scope="col">Mode</th>
            <th scope="col">Effect</th>
            <th scope="col">Entity</th>
            <th scope="col">Detector</th>
            <th scope="col">Message</th>
          </tr>
        </thead>
        <tbody>
          {decision.rules.map((rule, index) => (
            <tr key={`${rule.pack}:${rule.rule_id}:${index}`}>
              <td>
                <code>{rule.rule_id}</code>
                {rule === decisive && (
                  <>
                    {' '}
                    <strong className="badge bad">decisive</strong>
                  </>
                )}
              </td>
              <td>
                <Link href={`/policies/${rule.pack}`}>{rule.pack}</Link>
              </td>
              <td>
                <Badge value={rule.mode} />
              </td>
              <td>
                <Badge value={rule.effect} />
              </td>
              <td>{rule.entity ?? '—'}</td>
              <td>
                {rule.detector ?? '—'}
                {rule.score !== undefined && <div className="muted">score {rule.score.toFixed(2)}</div>}
              </td>
              <td>
                {rule.message}
                {rule.approved_by !== undefined && <div className="muted">approved by {rule.approved_by}</div>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Detectors({ decision }: { decision: Trace }) {
  return (
    <>
      {decision.degraded.length > 0 && (
        <p className="error">
          Degraded: {decision.degraded.map((key) => `${key} (${decision.detectors.find((detector) => detector.key === key)?.status ?? 'did not complete'})`).join(', ')}. The
          decision was made on what the detectors answered in time.
        </p>
      )}
      {decision.detectors.length === 0 ? (
        <p>No detector ran.</p>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Detector</th>
                <th scope="col">Status</th>
                <th scope="col">Matched</th>
                <th scope="col">Time</th>
              </tr>
            </thead>
            <tbody>
              {decision.detectors.map((detector) => (
                <tr key={detector.key}>
                  <td>{detector.key}</td>
                  <td>
                    <span className={`badge ${detector.status === 'ok' ? 'ok' : 'bad'}`}>{detector.status}</span>
                  </td>
                  <td>{detector.matched ? 'yes' : 'no'}</td>
                  <td>{detector.cached === true ? 'cached' : `${detector.ms.toFixed(1)} ms`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

/**
 * Dispute in one click: a false positive on what was detected (one button per entity, since the
 * API needs the entity when several were detected), or a missed detection when nothing was.
 */
function Dispute({ decision }: { decision: Trace }) {
  const [done, setDone] = useState<string[]>([]);
  const entities = decision.entities;
  const send = (what: string, entity: string | undefined) => () =>
    outcome(
      api.POST('/api/guardrails/feedback', {
        body: { decision_id: decision.id, label: entity === undefined ? 'false_negative' : 'false_positive', ...(entity === undefined ? {} : { entity_type: entity }) },
      }),
      () => setDone((previous) => [...previous, what]),
    );
  return (
    <>
      {entities.length === 0 ? (
        <ActionButton label="Report a missed detection" onRun={send('a missed detection', undefined)} />
      ) : (
        entities.map((entity) => (
          <ActionButton key={entity} label={entities.length === 1 ? 'Dispute' : `Dispute ${entity}`} onRun={send(`${entity} as a false positive`, entity)} />
        ))
      )}
      {done.length > 0 && (
        <p role="status" className="muted">
          Recorded {done.join(' and ')}.
        </p>
      )}
    </>
  );
}
