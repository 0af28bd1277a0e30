// Authentication and role checks for every route. Each route declares `config.access` (see
// Access); a route without one is a startup error, so nothing is left open by omission.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hasRole, type Access, type Principal } from '../auth/principal.js';
import type { CredentialResolver } from '../auth/resolver.js';
import { problem } from './problems.js';

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

export interface AuthOptions {
  resolver: CredentialResolver;
  /** Route prefixes registered by third-party plugins that are public (the API explorer). */
  publicPrefixes: string[];
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

export const authPlugin = fp<AuthOptions>(
  async (app: FastifyInstance, { resolver, publicPrefixes }) => {
    app.decorateRequest('principal', null);

    app.addHook('onRoute', (route) => {
      route.config ??= {};
      if (route.config.access !== undefined) return;
      if (publicPrefixes.some((prefix) => route.url.startsWith(prefix))) {
        route.config.access = 'public';
        return;
      }
      throw new Error(`route ${String(route.method)} ${route.url} declares no access level`);
    });

    app.addHook('onRequest', async (request) => {
      // The not-found handler has no declared access: it answers 404 to everyone.
      const access = request.routeOptions.config.access ?? 'public';
      if (access === 'public') return;
      const raw = presentedCredential(request, request.routeOptions.config.acceptApiKeyHeader === true);
      if (raw === undefined) {
        if (access === 'optional') return;
        throw problem('unauthenticated', 'send a credential as "Authorization: Bearer <credential>"');
      }
      const principal = await resolver.resolve(raw);
      if (principal === null) throw problem('unauthenticated', 'the credential is unknown, expired or revoked');
      if (!admits(access, principal)) throw problem('forbidden', refusal(access, principal));
      request.principal = principal;
    });
  },
  { name: 'parapet-auth' },
);

