// Platform routes: GET /, /health, /ready, /api/health, /api/me, /api/version, /metrics.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from 'prom-client';
import { Type } from 'typebox';
import type { Principal } from '../../infra/auth/principal.js';
import { DOCS_PREFIX } from '../../infra/http/docs.js';
import { problem } from '../../infra/http/problems.js';
import type { CheckResult, HealthRegistry } from './health.js';
import { HealthOrLivenessSchema, HealthSchema, MeSchema, ReadySchema, RootSchema, VersionSchema, type Health, type Me } from './schemas.js';
import { GATEWAY_VERSION, type VersionRegistry } from './version.js';

export interface SystemRoutesOptions {
  health: HealthRegistry;
  metrics: Registry;
  versions: VersionRegistry;
  schemaMigration: () => string;
  configHash: string;
}

export const systemRoutes: FastifyPluginAsyncTypebox<SystemRoutesOptions> = async (app, options) => {
  const { health, versions } = options;
  const tags = ['platform'];

  async function fullHealth(): Promise<Health> {
    const checks = [await health.database()];
    return {
      status: checks.every((check) => check.status === 'ok') ? 'ok' : 'down',
      version: GATEWAY_VERSION,
      uptime_seconds: health.uptimeSeconds(),
      checks,
      unchecked: health.gaps(),
    };
  }

  app.get(
    '/',
    {
      config: { access: 'public' },
      schema: { tags, summary: 'Names the service and says where to go next', response: { 200: RootSchema } },
    },
    async (request, reply) => {
      // A browser (it asks for HTML first) goes to the console; API clients keep the JSON.
      if (prefersHtml(request.headers.accept)) return reply.redirect('/console/', 302);
      return {
        name: 'Parapet',
        description: 'Governance gateway for AI agents: checks content and tool calls against policy and records every decision.',
        version: GATEWAY_VERSION,
        links: {
          docs: DOCS_PREFIX,
          openapi: '/openapi.json',
          health: '/health',
          operator_api: '/api',
          agent_traffic: '/v1',
          console: '/console/',
        },
      };
    },
  );

  app.get(
    '/health',
    {
      config: { access: 'optional' },
      schema: {
        tags,
        summary: 'Liveness without a credential; with one, the same payload as GET /api/health',
        response: { 200: HealthOrLivenessSchema, 503: HealthOrLivenessSchema },
      },
    },
    (request, reply) => {
      if (request.principal !== null) {
        void fullHealth().then((payload) => reply.code(payload.status === 'ok' ? 200 : 503).send(payload));
        return;
      }
      // Probes call this often: a recent database check is answered without a promise.
      const answer = (database: CheckResult) =>
        reply.code(database.status === 'ok' ? 200 : 503).send({ status: database.status });
      const recent = health.recentDatabase();
      if (recent !== undefined) answer(recent);
      else void health.database().then(answer);
    },
  );

  // Not in the spec: what a load balancer or orchestrator asks before sending traffic here (README).
  // Never rate-limited: a refused probe would take a healthy replica out of rotation.
  app.get(
    '/ready',
    {
      config: { access: 'public', rateLimit: false },
      schema: {
        tags,
        summary: 'Readiness for a load balancer: 200 when this process should get traffic, else a 503 problem naming the failing checks',
        response: { 200: ReadySchema },
      },
    },
    async () => {
      const { ready, checks } = await health.readiness();
      if (ready) return { status: 'ready' as const, checks };
      const failed = checks.filter((check) => check.status === 'down');
      throw problem(
        'unavailable',
        `not ready: ${failed.map((check) => check.name).join(', ')}`,
        failed.map((check) => ({ field: `/checks/${check.name}`, message: check.detail })),
      );
    },
  );

  app.get(
    '/api/health',
    {
      config: { access: 'viewer' },
      schema: {
        tags,
        summary: 'Liveness plus what is currently unchecked',
        response: { 200: HealthSchema, 503: HealthSchema },
      },
    },
    async (_request, reply) => {
      const payload = await fullHealth();
      return reply.code(payload.status === 'ok' ? 200 : 503).send(payload);
    },
  );

  app.get(
    '/api/me',
    {
      config: { access: 'any' },
      schema: { tags, summary: 'The signed-in identity', response: { 200: MeSchema } },
    },
    // Synchronous: the hot authenticated read pays for no promise.
    (request, reply) => {
      reply.send(describe(request.principal as Principal));
    },
  );

  app.get(
    '/api/version',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'Every version that takes part in a decision', response: { 200: VersionSchema } },
    },
    async () => ({
      gateway: GATEWAY_VERSION,
      schema_migration: options.schemaMigration(),
      config_hash: options.configHash,
      node: process.version,
      components: versions.snapshot(),
    }),
  );

  app.get(
    '/metrics',
    {
      config: { access: 'any' },
      schema: {
        tags,
        summary: 'Metrics in the Prometheus text exposition format',
        response: {
          200: {
            description: 'Prometheus text format',
            content: { 'text/plain': { schema: Type.String() } },
          },
        },
      },
    },
    async (_request, reply) => reply.type(options.metrics.contentType).send(await options.metrics.metrics()),
  );
};

function describe(principal: Principal): Me {
  if (principal.kind === 'agent') {
    return {
      kind: 'agent',
      role: null,
      name: principal.agentSlug,
      owner: null,
      token_id: null,
      credential_id: principal.credentialId,
      identity_id: principal.identityId,
      agent: principal.agentSlug,
      expires_at: principal.expiresAt,
    };
  }
  return {
    kind: principal.kind,
    role: principal.kind === 'operator' ? principal.role : null,
    name: principal.name,
    owner: principal.owner,
    token_id: principal.tokenId,
    credential_id: null,
    identity_id: null,
    agent: null,
    expires_at: principal.expiresAt,
  };
}

/** Whether an Accept header ranks text/html above JSON, as a browser's navigation does. */
export function prefersHtml(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  let html = -1;
  let json = -1;
  for (const part of accept.slice(0, 1024).split(',')) {
    const [type = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((param) => param.trim()).find((param) => param.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (!Number.isFinite(weight)) continue;
    if (type === 'text/html' || type === 'application/xhtml+xml') html = Math.max(html, weight);
    if (type === 'application/json' || type === 'application/problem+json') json = Math.max(json, weight);
  }
  return html > 0 && html > json;
}
