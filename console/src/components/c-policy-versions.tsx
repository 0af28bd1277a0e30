// A pack's version history: each saved version with its status, source and notes, and on request
// its rule-level diff (recorded by the change proposal the version opened; the shipped first
// version has none).
import { Fragment, useState } from 'react';
import { api } from '../api/client';
import type { PolicyVersion, Proposal } from './c-api';
import { PackDiffView } from './c-policy-diff';
import { TableWrap } from './ui';
import { Badge, ErrorNote, Loading, When, useLoad } from './ui';

export function VersionHistory({ versions, live, proposals }: { versions: PolicyVersion[]; live: number | null; proposals: Proposal[] }) {
  const [open, setOpen] = useState<number | null>(null);
  const proposalOf = (version: number) => proposals.find((proposal) => proposal.to_version === version);
  return (
    <TableWrap label="Versions table">
      <table>
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Status</th>
            <th scope="col">Mode</th>
            <th scope="col">Source</th>
            <th scope="col">Notes</th>
            <th scope="col">Saved</th>
            <th scope="col">Diff</th>
          </tr>
        </thead>
        <tbody>
          {versions.map((version) => {
            const proposal = proposalOf(version.version);
            return (
              <Fragment key={version.version}>
                <tr>
                  <td>
                    v{version.version}
                    {version.version === live && (
                      <>
                        {' '}
                        <Badge value="live" />
                      </>
                    )}
                  </td>
                  <td>
                    <Badge value={version.status} />
                  </td>
                  <td>{version.mode}</td>
                  <td>{version.source}</td>
                  <td>{version.notes ?? '—'}</td>
                  <td>
                    {version.created_by}, <When at={version.created_at} />
                  </td>
                  <td>
                    {proposal === undefined ? (
                      <span className="muted">none recorded</span>
                    ) : (
                      <button type="button" aria-expanded={open === version.version} onClick={() => setOpen(open === version.version ? null : version.version)}>
                        {open === version.version ? 'Hide' : 'Show'} changes<span className="muted"> in v{version.version}</span>
                      </button>
                    )}
                  </td>
                </tr>
                {open === version.version && proposal !== undefined && (
                  <tr>
                    <td colSpan={7}>
                      <ProposalDiff id={proposal.id} />
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </TableWrap>
  );
}

function ProposalDiff({ id }: { id: string }) {
  const detail = useLoad(() => api.GET('/api/proposals/{proposal_id}', { params: { path: { proposal_id: id } } }), [id]);
  if (detail.data === undefined) return detail.error === null ? <Loading /> : <ErrorNote error={detail.error} />;
  return <PackDiffView diff={detail.data.diff} />;
}
