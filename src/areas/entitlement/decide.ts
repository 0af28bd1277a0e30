// The entitlement decision over grants and principals held in memory: which chunks a subject may
// see, and for each chunk withheld the first rule it failed. Deny by default: a chunk passes only
// when a grant allows it and the subject's own clearances, purposes and residency do too.
import { storableText } from '../../infra/lib/storable-text.js';
import { compileGlob, type Glob } from './match.js';

export const WITHHOLD_REASONS = [
  'unknown_subject',
  'no_grant',
  'not_cleared',
  'purpose_not_permitted',
  'residency_mismatch',
  'class_not_granted',
  'purpose_not_granted',
  'residency_not_granted',
] as const;
export type WithholdReason = (typeof WITHHOLD_REASONS)[number];

export const PRINCIPAL_KINDS = ['subject', 'group', 'agent', '*'] as const;
export type PrincipalKind = (typeof PRINCIPAL_KINDS)[number];

export interface GrantInput {
  id: string;
  resource: string;
  principal: string;
  principal_kind: string;
  classes: readonly string[];
  purposes: readonly string[];
  residency: string | null;
}

export interface PrincipalInput {
  subject: string;
  agent: string | null;
  groups: readonly string[];
  clearances: readonly string[];
  purposes: readonly string[];
  residency: string | null;
}

export interface ChunkInput {
  id?: string;
  source: string;
  classes?: readonly string[];
  purpose?: string;
  residency?: string;
}

export interface Withheld {
  index: number;
  id: string | null;
  source: string;
  reason: WithholdReason;
  detail: string;
}

export interface Decision {
  allowed: number[];
  withheld: Withheld[];
  /** Grants that allowed at least one chunk (their last use is this call). */
  usedGrants: Set<string>;
  /** Sources of the allowed chunks. */
  retrievedSources: Set<string>;
}

interface CompiledGrant {
  id: string;
  glob: Glob;
  /** Null: any class (an empty list on the grant). */
  classes: Set<string> | null;
  purposes: Set<string> | null;
  residency: string | null;
}

interface CompiledPrincipal {
  subject: string;
  agent: string | null;
  groups: string[];
  clearances: Set<string>;
  purposes: Set<string> | null;
  residency: string | null;
}

/** Data classes, purposes and residencies compare as trimmed lower case; storable like what is stored. */
export function normaliseCode(value: string): string {
  return storableText(value).trim().toLowerCase();
}

const setOrNull = (values: readonly string[]): Set<string> | null => (values.length === 0 ? null : new Set(values.map(normaliseCode)));
const principalKey = (kind: string, name: string): string => `${kind}\u0001${name}`;

/** Stages of a grant's own checks, in order: the furthest one a grant reached names the reason. */
const GRANT_STAGES: WithholdReason[] = ['class_not_granted', 'purpose_not_granted', 'residency_not_granted'];

export class EntitlementIndex {
  private readonly grantsByPrincipal = new Map<string, CompiledGrant[]>();
  private readonly principals = new Map<string, CompiledPrincipal>();
  readonly grantCount: number;

  constructor(grants: readonly GrantInput[], principals: readonly PrincipalInput[]) {
    for (const grant of grants) {
      let glob: Glob;
      try {
        glob = compileGlob(grant.resource);
      } catch {
        // A grant whose glob no longer compiles allows nothing (deny by default) rather than failing every call.
        continue;
      }
      const compiled: CompiledGrant = {
        id: grant.id,
        glob,
        classes: setOrNull(grant.classes),
        purposes: setOrNull(grant.purposes),
        residency: grant.residency === null ? null : normaliseCode(grant.residency),
      };
      const key = grant.principal_kind === '*' ? principalKey('*', '*') : principalKey(grant.principal_kind, grant.principal);
      const list = this.grantsByPrincipal.get(key);
      if (list === undefined) this.grantsByPrincipal.set(key, [compiled]);
      else list.push(compiled);
    }
    this.grantCount = grants.length;
    for (const principal of principals) {
      this.principals.set(principal.subject, {
        subject: principal.subject,
        agent: principal.agent,
        groups: [...principal.groups],
        clearances: new Set(principal.clearances.map(normaliseCode)),
        purposes: setOrNull(principal.purposes),
        residency: principal.residency === null ? null : normaliseCode(principal.residency),
      });
    }
  }

  hasSubject(subject: string): boolean {
    return this.principals.has(storableText(subject));
  }

  /** The grants that apply to a subject (its own, its groups', its agent's and the requesting agent's, and `*` grants), deduplicated. */
  grantsFor(subject: string, requestingAgent: string | null): CompiledGrant[] {
    const principal = this.principals.get(storableText(subject));
    const keys = [principalKey('*', '*')];
    if (principal !== undefined) {
      keys.push(principalKey('subject', principal.subject));
      for (const group of principal.groups) keys.push(principalKey('group', group));
      if (principal.agent !== null) keys.push(principalKey('agent', principal.agent));
    }
    if (requestingAgent !== null) keys.push(principalKey('agent', storableText(requestingAgent)));
    const seen = new Set<string>();
    const grants: CompiledGrant[] = [];
    for (const key of keys) {
      for (const grant of this.grantsByPrincipal.get(key) ?? []) {
        if (seen.has(grant.id)) continue;
        seen.add(grant.id);
        grants.push(grant);
      }
    }
    return grants;
  }

  /** Every chunk decided; the work is one glob pass per distinct source and applicable grant, then set lookups per chunk. */
  decide(request: { subject: string; agent: string | null; purpose: string | null; chunks: readonly ChunkInput[] }): Decision {
    const decision: Decision = { allowed: [], withheld: [], usedGrants: new Set(), retrievedSources: new Set() };
    const principal = this.principals.get(storableText(request.subject));
    if (principal === undefined) {
      request.chunks.forEach((chunk, index) =>
        decision.withheld.push(withheld(index, chunk, 'unknown_subject', `subject ${request.subject} is not a registered principal`)),
      );
      return decision;
    }
    const grants = this.grantsFor(request.subject, request.agent);
    const requestPurpose = request.purpose === null ? null : normaliseCode(request.purpose);
    const matchingBySource = new Map<string, CompiledGrant[]>();
    for (const [index, chunk] of request.chunks.entries()) {
      const source = storableText(chunk.source);
      let matching = matchingBySource.get(source);
      if (matching === undefined) {
        matching = grants.filter((grant) => grant.glob.matches(source));
        matchingBySource.set(source, matching);
      }
      if (matching.length === 0) {
        decision.withheld.push(withheld(index, chunk, 'no_grant', `no grant covers source ${chunk.source} for subject ${request.subject}, its groups or agents`));
        continue;
      }
      const classes = (chunk.classes ?? []).map(normaliseCode);
      const uncleared = classes.filter((dataClass) => !principal.clearances.has(dataClass));
      if (uncleared.length > 0) {
        decision.withheld.push(withheld(index, chunk, 'not_cleared', `subject ${request.subject} is not cleared for ${uncleared.join(', ')}`));
        continue;
      }
      const purpose = chunk.purpose === undefined ? requestPurpose : normaliseCode(chunk.purpose);
      if (principal.purposes !== null && (purpose === null || !principal.purposes.has(purpose))) {
        const detail = purpose === null ? 'no purpose given; the subject is limited to purposes' : `purpose ${purpose} is not among the subject's purposes`;
        decision.withheld.push(withheld(index, chunk, 'purpose_not_permitted', `${detail} ${[...principal.purposes].join(', ')}`));
        continue;
      }
      const residency = chunk.residency === undefined ? null : normaliseCode(chunk.residency);
      if (principal.residency !== null && residency !== principal.residency) {
        const detail = residency === null ? 'the chunk has no residency' : `the chunk resides in ${residency}`;
        decision.withheld.push(withheld(index, chunk, 'residency_mismatch', `${detail}; subject ${request.subject} is limited to ${principal.residency}`));
        continue;
      }
      let furthest = -1;
      let closest: CompiledGrant | undefined;
      let passed: CompiledGrant | undefined;
      for (const grant of matching) {
        const stage = failedStage(grant, classes, purpose, residency);
        if (stage === GRANT_STAGES.length) {
          passed = grant;
          break;
        }
        if (stage > furthest) {
          furthest = stage;
          closest = grant;
        }
      }
      if (passed !== undefined) {
        decision.allowed.push(index);
        decision.usedGrants.add(passed.id);
        decision.retrievedSources.add(source);
        continue;
      }
      const grant = closest as CompiledGrant;
      const reason = GRANT_STAGES[furthest] as WithholdReason;
      decision.withheld.push(withheld(index, chunk, reason, grantDetail(reason, grant, classes, purpose, residency)));
    }
    return decision;
  }
}

/** How many of a grant's checks pass in order (classes, purpose, residency): GRANT_STAGES.length when all do. */
function failedStage(grant: CompiledGrant, classes: readonly string[], purpose: string | null, residency: string | null): number {
  if (grant.classes !== null && !classes.every((dataClass) => grant.classes?.has(dataClass))) return 0;
  if (grant.purposes !== null && (purpose === null || !grant.purposes.has(purpose))) return 1;
  if (grant.residency !== null && residency !== grant.residency) return 2;
  return GRANT_STAGES.length;
}

function grantDetail(reason: WithholdReason, grant: CompiledGrant, classes: readonly string[], purpose: string | null, residency: string | null): string {
  const on = `grant ${grant.id} (${grant.glob.pattern})`;
  if (reason === 'class_not_granted') {
    const missing = classes.filter((dataClass) => !grant.classes?.has(dataClass));
    return `${on} does not cover class ${missing.join(', ')}`;
  }
  if (reason === 'purpose_not_granted') return `${on} is limited to purposes ${[...(grant.purposes ?? [])].join(', ')}; ${purpose === null ? 'no purpose given' : `purpose is ${purpose}`}`;
  return `${on} is limited to residency ${grant.residency ?? ''}; ${residency === null ? 'the chunk has no residency' : `the chunk resides in ${residency}`}`;
}

function withheld(index: number, chunk: ChunkInput, reason: WithholdReason, detail: string): Withheld {
  return { index, id: chunk.id ?? null, source: chunk.source, reason, detail };
}
