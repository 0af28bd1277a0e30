// GET /console/ and below: the operator console, a single-page app built by Vite into
// dist/console (console/ at the package root). Files under assets/ have hashed names and are
// cached for a year; every other path answers index.html, never cached, so a new build is picked up
// at once and the app's own router shows the page. Public like /docs: the app asks for a token and
// calls the operator API with it. Only /console paths reach this wildcard, never /v1 or /api.
import { existsSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { problem } from '../../infra/http/problems.js';
import { packagePath } from '../../infra/lib/package-root.js';

export const CONSOLE_PREFIX = '/console/';
const IMMUTABLE = 'public, max-age=31536000, immutable';
const NO_CACHE = 'no-cache';
// The console loads its scripts and styles from itself only and is never framed.
const CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'";

export interface ConsoleRoutesOptions {
  /** The built app (index.html and assets/); default dist/console of the package. */
  root?: string;
}

export const consoleRoutes: FastifyPluginAsyncTypebox<ConsoleRoutesOptions> = async (app, options) => {
  const root = options.root ?? packagePath('dist', 'console');
  const built = existsSync(path.join(root, 'index.html'));
  if (built) await app.register(fastifyStatic, { root, serve: false, index: false, cacheControl: false });
  const route = { config: { access: 'public' as const }, schema: { hide: true } };

  const page = (reply: FastifyReply) => {
    // Built by `npm run build` (and `npm install`): a checkout run from the sources before that has none.
    if (!built) throw problem('unavailable', 'the console is not built: run `npm run build`');
    reply.header('cache-control', NO_CACHE).header('content-security-policy', CONTENT_SECURITY_POLICY).header('x-content-type-options', 'nosniff');
    return reply.sendFile('index.html');
  };

  app.get('/console', route, async (_request, reply) => reply.redirect(CONSOLE_PREFIX, 302));
  app.get('/console/', route, async (_request, reply) => page(reply));
  app.get('/console/*', route, async (request, reply) => {
    const file = (request.params as { '*': string })['*'];
    if (built && file.startsWith('assets/') && !file.includes('..') && existsSync(path.join(root, file))) {
      reply.header('cache-control', IMMUTABLE).header('x-content-type-options', 'nosniff');
      return reply.sendFile(file);
    }
    // A missing asset is a 404, not the app: a stale page asking for an old chunk must not get HTML.
    if (file.startsWith('assets/')) throw problem('unknown-route', `no console asset ${file}`);
    return page(reply);
  });
};
