// Authentication and role checks for every route. Each route declares `config.access` (see
// Access); a route without one is a startup error, so nothing is left open by omission.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hasRole, type Access, type Principal } from './principal.js';
import type { CredentialResolver } from './resolver.js';
import { problem } from '../http/problems.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
    /** Also accept the credential from `x-api-key` (the messages wire format's own header). */
    acceptApiKeyHeader?: boolean;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

function presentedCredential(request: FastifyRequest, acceptApiKey: boolean): string | undefined {
  const header = request.headers.authorization;
  if (typeof header === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (match === null) throw problem('unauthenticated', 'the Authorization header must be "Bearer <credential>"');
    return match[1];
  }
  const apiKey = request.headers['x-api-key'];
  if (acceptApiKey && typeof apiKey === 'string' && apiKey !== '') return apiKey;
  return undefined;
}

function admits(access: Access, principal: Principal): boolean {
  switch (access) {
    case 'public':
    case 'optional':
    case 'any':
      return true;
    case 'traffic':
      return principal.kind === 'agent' || principal.kind === 'traffic';
    case 'viewer-or-agent':
      return principal.kind === 'agent' || hasRole(principal, 'viewer');
    default:
      return hasRole(principal, access);
  }
}

function refusal(access: Access, principal: Principal): string {
  if (access === 'traffic') return 'this route is for agent traffic: use an agent credential or a traffic token';
  if (principal.kind !== 'operator') return 'this route needs an operator token';
  const needed = access === 'viewer-or-agent' ? 'viewer' : access;
  return `this route needs the ${needed} role or stronger; the token has ${principal.role}`;
}

/**
 * Checks a request's credential against its route's access level and sets `request.principal`.
 * Hot path: callback style, so that a credential found in the cache costs no promise; the route's
 * access level is passed in (read once when the route is registered).
 */
export function createAuthenticator(resolver: CredentialResolver) {
  return function authenticate(
    request: FastifyRequest,
    access: Access,
    acceptApiKeyHeader: boolean,
    done: (error?: Error) => void,
  ): void {
    if (access === 'public') return done();
    let raw: string | undefined;
    try {
      raw = presentedCredential(request, acceptApiKeyHeader);
    } catch (error) {
      return done(error as Error);
    }
    if (raw === undefined) {
      return access === 'optional'
        ? done()
        : done(problem('unauthenticated', 'send a credential as "Authorization: Bearer <credential>"'));
    }
    const admit = (principal: Principal | null) => {
      if (principal === null) return done(problem('unauthenticated', 'the credential is unknown, expired or revoked'));
      if (!admits(access, principal)) return done(problem('forbidden', refusal(access, principal)));
      request.principal = principal;
      done();
    };
    const cached = resolver.cached(raw);
    if (cached !== undefined) return admit(cached);
    resolver.lookup(raw).then(admit, done);
  };
}

/** Declares `request.principal` and refuses to register a route that names no access level. */
export const authPlugin = fp(
  async (app: FastifyInstance) => {
    app.decorateRequest('principal', null);

    app.addHook('onRoute', (route) => {
      route.config ??= {};
      if (route.config.access !== undefined) return;
      throw new Error(`route ${String(route.method)} ${route.url} declares no access level`);
    });
  },
  { name: 'parapet-auth' },
);

