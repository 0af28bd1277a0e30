// Policies: every pack with its live version, mode, scope and pending work, a one-click switch
// between observe and enforce for operators, and the lint of the set in force.
import { useState } from 'react';
import { Link } from 'wouter';
import { api } from '../api/client';
import { useAuth } from '../auth';
import { LintResults } from '../components/c-lint';
import { ModeSwitch } from '../components/c-mode';
import { TableWrap } from '../components/ui';
import { Badge, ErrorNote, Loading, PageHeader, useLoad } from '../components/ui';

export default function PoliciesPage() {
  const { can } = useAuth();
  const policies = useLoad(() => api.GET('/api/policies'), []);
  // A mode change can change the lint of the set too: remount it to load again.
  const [round, setRound] = useState(0);
  const changed = () => {
    policies.reload();
    setRound((value) => value + 1);
  };
  return (
    <>
      <PageHeader title="Policies" />
      <p className="hint">Observe records what a pack would do; enforce applies it. Open a pack for its versions, proposals, canary and simulation.</p>
      <section aria-labelledby="packs-heading">
        <h2 id="packs-heading">Packs</h2>
        <ErrorNote error={policies.error} />
        {policies.data === undefined ? (
          policies.error === null && <Loading />
        ) : (
          <TableWrap label="Packs table">
            <table>
              <thead>
                <tr>
                  <th scope="col">Pack</th>
                  <th scope="col">Mode</th>
                  <th scope="col">Live version</th>
                  <th scope="col">Scope</th>
                  <th scope="col">Rules</th>
                  <th scope="col">Pending</th>
                  <th scope="col">Canary</th>
                  {can('operator') && <th scope="col">Change mode</th>}
                </tr>
              </thead>
              <tbody>
                {policies.data.items.map((policy) => (
                  <tr key={policy.key}>
                    <td>
                      <Link href={`/policies/${encodeURIComponent(policy.key)}`}>{policy.key}</Link>
                      <div className="muted">{policy.description}</div>
                    </td>
                    <td>
                      <Badge value={policy.mode} />
                    </td>
                    <td>{policy.version === null ? 'none live' : `v${policy.version}`}</td>
                    <td>
                      {policy.level}
                      {policy.scope_id !== '' && ` ${policy.scope_id}`} · {policy.compose}
                    </td>
                    <td>{policy.rules.length}</td>
                    <td>{policy.pending_versions.length === 0 ? '—' : policy.pending_versions.map((version) => `v${version}`).join(', ')}</td>
                    <td>{policy.canary === null ? '—' : `v${policy.canary.candidate_version} at ${policy.canary.percent}%`}</td>
                    {can('operator') && (
                      <td>
                        <ModeSwitch policyKey={policy.key} mode={policy.mode} onChanged={changed} />
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </section>
      <section aria-labelledby="lint-heading">
        <h2 id="lint-heading">Lint</h2>
        <LintResults key={round} />
      </section>
    </>
  );
}
