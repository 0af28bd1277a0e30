// The kinds without the gateway: code-host and hosted-API monitors against in-process collaborators
// shaped like their contracts (the real ones are other areas; their HTTP paths are tested there),
// the comparisons, the findings a difference raises, config and repository-name checks.
import { describe, expect, it } from 'vitest';
import type { CodehostScanSummary, CodehostScanning, HostedApiDocument, HostedApiReading } from '../integrations/contracts.js';
import type { KnowledgeSourceRow } from '../../infra/store/tables.js';
import { compare, configProblems, findingsFor, MAX_OBSERVED_ITEMS, observe, repoNameProblem, summarise, type KindDeps, type RunSubject } from './kinds.js';

class RecordingCodehost implements CodehostScanning {
  readonly asked: Array<Parameters<CodehostScanning['scanNow']>[0]> = [];
  constructor(public summary: Omit<CodehostScanSummary, 'repo_full_name'>) {}
  async connected() {
    return true;
  }
  async listRepoNames() {
    return [];
  }
  async queueScan(): Promise<{ scan_id: string; job_id: string }> {
    throw new Error('monitors scan in their own job');
  }
  async scanNow(input: Parameters<CodehostScanning['scanNow']>[0]): Promise<CodehostScanSummary> {
    this.asked.push(input);
    return { ...this.summary, repo_full_name: input.repo_full_name };
  }
}

class FixedDocument implements HostedApiReading {
  constructor(public document: Omit<HostedApiDocument, 'url'>) {}
  async readDocument(url: string): Promise<HostedApiDocument> {
    return { ...this.document, url };
  }
}

const unusedMcp = { scanLive: async () => Promise.reject(new Error('not used here')) };

function deps(parts: Partial<KindDeps>): KindDeps {
  return {
    mcp: unusedMcp,
    codehost: new RecordingCodehost({ scan_id: 's', ref: null, commit_sha: null, status: 'completed', error: null, signature: [] }),
    hostedApi: new FixedDocument({ sha256: 'a', operations: [], model_serving: [], auth: [] }),
    readSource: async () => undefined,
    now: () => new Date('2026-11-26T12:00:00Z'),
    ...parts,
  };
}

const subject = (kind: RunSubject['kind'], target: string, config: Record<string, unknown> = {}): RunSubject => ({ monitorId: 'mon_1', kind, target, config });

describe('monitor kinds', () => {
  it('codehost_repo: scans through the contract as the monitor, compares signatures, raises monitor_change', async () => {
    const codehost = new RecordingCodehost({ scan_id: 'scan_1', ref: 'main', commit_sha: 'abc', status: 'completed', error: null, signature: ['framework:langchain', 'mcp_server:github@.mcp.json', 'framework:langchain'] });
    const first = await observe(deps({ codehost }), subject('codehost_repo', 'acme/agents', { ref: 'main' }));
    expect(codehost.asked[0]).toEqual({ repo_full_name: 'acme/agents', ref: 'main', trigger: 'monitor', requested_by: 'monitor:mon_1' });
    expect(first.state).toEqual({ signature: ['framework:langchain', 'mcp_server:github@.mcp.json'] });

    expect(compare('codehost_repo', first.state, first)).toEqual([]);
    codehost.summary = { ...codehost.summary, scan_id: 'scan_2', commit_sha: 'def', signature: ['framework:langchain', 'model_client:openai'] };
    const second = await observe(deps({ codehost }), subject('codehost_repo', 'acme/agents'));
    const changes = compare('codehost_repo', first.state, second);
    expect(changes).toEqual([
      { kind: 'removed', item: 'mcp_server:github@.mcp.json', detail: 'baseline signature entry no longer found' },
      { kind: 'added', item: 'model_client:openai', detail: 'signature entry not in the baseline' },
    ]);
    const [finding] = findingsFor('codehost_repo', 'acme/agents', changes, second);
    expect(finding).toMatchObject({ type: 'monitor_change', subject: 'repo:acme/agents' });
    expect(finding!.title).toContain('added model_client:openai');
    expect(finding!.title).toContain('removed mcp_server:github@.mcp.json');
    // The same change again identifies the same finding.
    expect(findingsFor('codehost_repo', 'acme/agents', changes, second)[0]!.what).toBe(finding!.what);
  });

  it('codehost_repo: a failed scan is a failed run, not a baseline', async () => {
    const codehost = new RecordingCodehost({ scan_id: 's', ref: null, commit_sha: null, status: 'failed', error: 'no code-host connection', signature: [] });
    await expect(observe(deps({ codehost }), subject('codehost_repo', 'acme/agents'))).rejects.toThrow('no code-host connection');
  });

  it('hosted_api: operations added and removed; a changed document with the same operations is one change', async () => {
    const hostedApi = new FixedDocument({ sha256: 'sha-one', operations: ['GET /models', 'POST /v1/chat'], model_serving: [], auth: [] });
    const first = await observe(deps({ hostedApi }), subject('hosted_api', 'https://api.example.com/openapi.json'));
    expect(first.state).toEqual({ sha256: 'sha-one', operations: ['GET /models', 'POST /v1/chat'] });

    hostedApi.document = { ...hostedApi.document, sha256: 'sha-two' };
    const reworded = await observe(deps({ hostedApi }), subject('hosted_api', 'https://api.example.com/openapi.json'));
    expect(compare('hosted_api', first.state, reworded)).toEqual([{ kind: 'changed', item: 'document', detail: 'the document changed, its operations did not (sha256 sha-one → sha-two)' }]);

    hostedApi.document = { ...hostedApi.document, sha256: 'sha-three', operations: ['DELETE /files/{id}', 'GET /models'] };
    const changed = await observe(deps({ hostedApi }), subject('hosted_api', 'https://api.example.com/openapi.json'));
    const changes = compare('hosted_api', first.state, changed);
    expect(changes.map((change) => [change.kind, change.item])).toEqual([
      ['added', 'DELETE /files/{id}'],
      ['removed', 'POST /v1/chat'],
    ]);
    expect(findingsFor('hosted_api', 'https://api.example.com/openapi.json', changes, changed)[0]).toMatchObject({ type: 'monitor_change', subject: 'api:https://api.example.com/openapi.json' });
    expect(findingsFor('hosted_api', 'https://api.example.com/openapi.json', [], changed)).toEqual([]);
  });

  it('bounds what one observation keeps', async () => {
    const many = Array.from({ length: MAX_OBSERVED_ITEMS + 500 }, (_, index) => `GET /items/${index}`);
    const hostedApi = new FixedDocument({ sha256: 'x', operations: [...many, 'x'.repeat(10_000)], model_serving: [], auth: [] });
    const observed = await observe(deps({ hostedApi }), subject('hosted_api', 'https://api.example.com/openapi.json'));
    expect((observed.state.operations as string[]).length).toBe(MAX_OBSERVED_ITEMS);
  });

  it('source_freshness: stale past the SLA or of unknown age under one, deprecated; the finding stands while it lasts', async () => {
    const now = new Date('2026-11-26T12:00:00Z');
    const row = (patch: Partial<KnowledgeSourceRow>): KnowledgeSourceRow => ({
      key: 'kb',
      title: 'kb',
      tier: 'approved',
      owner: null,
      domain: null,
      updated_at_source: '2026-11-26T11:30:00.000Z',
      freshness_sla_hours: 1,
      deprecated: 0,
      metadata: '{}',
      created_by: 't',
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
      last_cited_at: null,
      validated_at: null,
      validation: null,
      validation_ok: null,
      ...patch,
    });
    const fresh = await observe(deps({ readSource: async () => row({}) }), subject('source_freshness', 'kb'));
    expect(fresh.state).toEqual({ stale: false, deprecated: false });
    expect(findingsFor('source_freshness', 'kb', [], fresh)).toEqual([]);

    const old = await observe(deps({ readSource: async () => row({ updated_at_source: '2026-11-26T10:00:00.000Z' }) }), subject('source_freshness', 'kb'));
    expect(old.state).toEqual({ stale: true, deprecated: false });
    expect(compare('source_freshness', fresh.state, old)).toEqual([{ kind: 'changed', item: 'stale', detail: 'last changed 2026-11-26T10:00:00.000Z, more than the 1 h freshness SLA ago' }]);
    expect(findingsFor('source_freshness', 'kb', [], old)[0]).toMatchObject({ type: 'stale_source', subject: 'source:kb', what: 'stale' });

    const unknown = await observe(deps({ readSource: async () => row({ updated_at_source: null }) }), subject('source_freshness', 'kb'));
    expect(unknown.state.stale).toBe(true);
    const noSla = await observe(deps({ readSource: async () => row({ updated_at_source: null, freshness_sla_hours: null, deprecated: 1 }) }), subject('source_freshness', 'kb'));
    expect(noSla.state).toEqual({ stale: false, deprecated: true });
    expect(findingsFor('source_freshness', 'kb', [], noSla)[0]).toMatchObject({ what: 'deprecated', title: 'Knowledge source kb is deprecated' });

    await expect(observe(deps({}), subject('source_freshness', 'gone'))).rejects.toThrow('no longer registered');
  });

  it('mcp_server: tools added, removed, changed, and drifted from their pin', () => {
    const baseline = { tools: { a: 'h1', b: 'h2', c: 'h3' }, drifted_from_pin: [] };
    const changes = compare('mcp_server', baseline, { state: { tools: { a: 'h1', b: 'h2-new', d: 'h4' }, drifted_from_pin: ['a', 'b'] }, facts: {} });
    expect(changes).toEqual([
      { kind: 'changed', item: 'a', detail: 'differs from its review pin' },
      { kind: 'changed', item: 'b', detail: 'definition changed since the baseline (h2 → h2-new); differs from its review pin' },
      { kind: 'removed', item: 'c', detail: 'a baseline tool is no longer listed' },
      { kind: 'added', item: 'd', detail: 'a tool not in the baseline' },
    ]);
    expect(summarise(changes)).toBe('added d; removed c; changed a, b');
  });

  it('checks configs per kind and repository names without a regex', () => {
    expect(configProblems('codehost_repo', { ref: 'main' })).toEqual([]);
    expect(configProblems('codehost_repo', { ref: 7, branch: 'x' })).toEqual([
      { key: 'ref', message: 'must be a branch, tag or commit of 1 to 200 characters' },
      { key: 'branch', message: 'is not read by codehost_repo monitors (they read ref)' },
    ]);
    expect(configProblems('hosted_api', { anything: true })[0]!.message).toContain('they take no config');
    expect(configProblems('mcp_server', { check_pins: 'yes' })[0]!.key).toBe('check_pins');
    expect(configProblems('mcp_server', { __proto__: 1, constructor: 1 } as Record<string, unknown>).map((entry) => entry.key)).toContain('constructor');

    for (const good of ['acme/agents', 'a-b_c.d/x.y-z', 'O/N']) expect(repoNameProblem(good)).toBeNull();
    for (const bad of ['acme', '/agents', 'acme/', 'a/b/c', 'a b/c', 'acme/..', '../x', 'a/b\u0000', `${'a'.repeat(300)}/b`]) expect(repoNameProblem(bad)).not.toBeNull();
  });
});
