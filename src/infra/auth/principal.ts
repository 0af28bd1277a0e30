// Who is calling: the principal a credential resolves to, and the access levels routes declare.
import { problem } from '../http/problems.js';
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

/** The longest agent name a request may give, as in the guard bodies' `agent` field. */
const MAX_AGENT_HEADER = 200;

/**
 * The agent an agent-traffic request speaks for (CONTRACT.md "Naming the agent"). An agent
 * credential speaks only for its own agent; a traffic token names the agent in the body or the
 * `X-Parapet-Agent` header, and the two must agree.
 * @example speakingAgent(principal, { body: request.body.agent, header: request.headers['x-parapet-agent'] })
 */
export function speakingAgent(principal: Principal, named: { body?: string; header?: string }): string {
  const { body, header } = named;
  // Node strips the spaces around a header value, so a header of only whitespace arrives empty:
  // present, it must name an agent, as the body field would (1 to 200 characters).
  if (header !== undefined && (header.trim() === '' || header.length > MAX_AGENT_HEADER)) {
    throw problem('invalid-request', `X-Parapet-Agent must name the agent: 1 to ${MAX_AGENT_HEADER} characters, not blank`);
  }
  if (principal.kind === 'agent') {
    for (const claimed of [body, header]) {
      if (claimed !== undefined && claimed !== principal.agentSlug) {
        throw problem('forbidden', `this credential speaks for agent ${principal.agentSlug}, not ${claimed}`);
      }
    }
    return principal.agentSlug;
  }
  if (principal.kind !== 'traffic') throw problem('forbidden', 'agent traffic needs an agent credential or a traffic token');
  if (body !== undefined && header !== undefined && body !== header) {
    throw problem('forbidden', `X-Parapet-Agent names ${header} but the body names ${body}`);
  }
  const agent = body ?? header;
  if (agent === undefined) throw problem('invalid-request', 'name the agent in the X-Parapet-Agent header');
  return agent;
}
