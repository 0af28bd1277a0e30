// Who is calling: the principal a credential resolves to, and the access levels routes declare.
import type { OperatorRole } from '../store/tables.js';

export type Principal =
  | { kind: 'operator'; role: OperatorRole; tokenId: string; tokenHash: string; name: string; owner: string; expiresAt: string | null }
  | { kind: 'traffic'; tokenId: string; tokenHash: string; name: string; owner: string; expiresAt: string | null }
  | { kind: 'agent'; credentialId: string; identityId: string; agentSlug: string; expiresAt: string | null };

/**
 * What a route lets in (CONTRACT.md "Credentials"):
 * - `public`: nothing is checked.
 * - `optional`: a presented credential must be valid; none is fine (GET /health).
 * - `any`: any valid credential.
 * - `traffic`: an agent credential or a traffic token (agent traffic, /v1/*).
 * - `viewer` | `operator` | `admin`: an operator token with at least that role.
 * - `viewer-or-agent`: a viewer (or stronger) operator token, or an agent credential; the route
 *   itself limits an agent to its own records.
 */
export type Access = 'public' | 'optional' | 'any' | 'traffic' | OperatorRole | 'viewer-or-agent';

export const ROLE_RANK: Record<OperatorRole, number> = { viewer: 1, operator: 2, admin: 3 };

export function hasRole(principal: Principal | null, role: OperatorRole): boolean {
  return principal?.kind === 'operator' && ROLE_RANK[principal.role] >= ROLE_RANK[role];
}

/** How an actor is named in audit entries and records. */
export function actorOf(principal: Principal | null): string {
  if (principal === null) return 'anonymous';
  if (principal.kind === 'agent') return `agent:${principal.agentSlug}`;
  return `${principal.owner} (${principal.tokenId})`;
}
