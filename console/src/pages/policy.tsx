// One pack: its live version, mode and rules; the version history with each version's rule-level
// diff; its change proposals with evidence, decide and apply; its canary; a simulation of a
// candidate against recorded traffic; and its lint findings.
import { useState } from 'react';
import { Link, useParams } from 'wouter';
import { api } from '../api/client';
import { LintResults } from '../components/c-lint';
import { ModeSwitch } from '../components/c-mode';
import { CanaryPanel } from '../components/c-policy-canary';
import { ProposalList } from '../components/c-policy-proposals';
import { SimulationForm } from '../components/c-policy-simulate';
import { VersionHistory } from '../components/c-policy-versions';
import { TableWrap } from '../components/ui';
import { Badge, ErrorNote, Loading, PageHeader, useLoad } from '../components/ui';

export default function PolicyPage() {
  const { key = '' } = useParams<{ key: string }>();
  const policy = useLoad(() => api.GET('/api/policies/{key}', { params: { path: { key } } }), [key]);
  // The proposals route has no pack filter: the newest 500, narrowed to this pack here.
  const proposals = useLoad(() => api.GET('/api/proposals', { params: { query: { limit: 500 } } }), [key]);
  // Changes here can change the lint of the set: remount it to load again.
  const [round, setRound] = useState(0);
  const changed = () => {
    policy.reload();
    proposals.reload();
    setRound((value) => value + 1);
  };
  if (policy.data === undefined) {
    return (
      <>
        <PageHeader title={`Policy ${key}`} />
        {policy.error === null ? <Loading /> : <ErrorNote error={policy.error} />}
        <p>
          <Link href="/policies">All policies</Link>
        </p>
      </>
    );
  }
  const detail = policy.data;
  const ours = (proposals.data?.items ?? []).filter((proposal) => proposal.policy_key === key);
  return (
    <>
      <PageHeader title={`Policy ${detail.key}`}>
        <ModeSwitch policyKey={detail.key} mode={detail.mode} onChanged={changed} />
      </PageHeader>
      <p>
        <Link href="/policies">All policies</Link>
      </p>
      <p>{detail.description}</p>
      <dl style={{ display: 'grid', gridTemplateColumns: 'max-content 1fr', gap: '4px 12px' }}>
        <dt>Mode</dt>
        <dd>
          <Badge value={detail.mode} />
        </dd>
        <dt>Live version</dt>
        <dd>{detail.version === null ? 'none live' : `v${detail.version}`}</dd>
        <dt>Scope</dt>
        <dd>
          {detail.level}
          {detail.scope_id !== '' && ` ${detail.scope_id}`}, {detail.compose}
        </dd>
        <dt>Origin</dt>
        <dd>{detail.origin}</dd>
        <dt>When a detector fails</dt>
        <dd>fail {detail.fail_mode}</dd>
      </dl>

      <section aria-labelledby="rules-heading">
        <h2 id="rules-heading">Rules</h2>
        <TableWrap label="Rules table">
          <table>
            <thead>
              <tr>
                <th scope="col">Rule</th>
                <th scope="col">Effect</th>
                <th scope="col">Mode</th>
                <th scope="col">Enabled</th>
                <th scope="col">Message</th>
              </tr>
            </thead>
            <tbody>
              {detail.rules.map((rule) => (
                <tr key={rule.id}>
                  <td>
                    <code>{rule.id}</code>
                  </td>
                  <td>
                    <Badge value={rule.effect} />
                  </td>
                  <td>{rule.mode}</td>
                  <td>{rule.enabled ? 'yes' : 'no'}</td>
                  <td>{rule.message}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </section>

      <section aria-labelledby="versions-heading">
        <h2 id="versions-heading">Version history</h2>
        <ErrorNote error={proposals.error} />
        <VersionHistory versions={detail.versions} live={detail.version} proposals={ours} />
      </section>

      <section aria-labelledby="proposals-heading">
        <h2 id="proposals-heading">Change proposals</h2>
        {proposals.data === undefined ? proposals.error === null && <Loading /> : <ProposalList proposals={ours} onChanged={changed} />}
      </section>

      <section aria-labelledby="canary-heading">
        <h2 id="canary-heading">Canary</h2>
        <CanaryPanel key={round} policyKey={detail.key} live={detail.version} versions={detail.versions} onChanged={changed} />
      </section>

      <section aria-labelledby="simulate-heading">
        <h2 id="simulate-heading">Simulate a candidate</h2>
        <p className="hint">Edit the live text and replay recorded traffic against it: nothing is saved or enforced.</p>
        {/* Keyed by the live version: a new live text restarts the candidate from it. */}
        <SimulationForm key={detail.version ?? 0} initialText={detail.text ?? ''} />
      </section>

      <section aria-labelledby="lint-heading">
        <h2 id="lint-heading">Lint</h2>
        <LintResults key={round} policy={detail.key} />
      </section>
    </>
  );
}
