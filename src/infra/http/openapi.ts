// The API description comes from the route schemas themselves: @fastify/swagger reads them into
// `/openapi.json`, and `/docs` (docs.ts) serves an explorer over it. Every route gets the shared problem
// responses and its security requirement from its declared access level.
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import { docsRoutes } from './docs.js';
import { ProblemRef, ProblemSchema } from './schemas.js';


const problemResponse = {
  description: 'A problem (RFC 9457)',
  content: { 'application/problem+json': { schema: ProblemRef } },
};

export interface OpenApiOptions {
  version: string;
}

export const openApiPlugin = fp<OpenApiOptions>(
  async (app: FastifyInstance, { version }) => {
    app.addSchema(ProblemSchema);

    app.addHook('onRoute', (route) => {
      if (route.schema?.hide === true) return;
      const schema = (route.schema ??= {});
      const response = (schema.response ??= {}) as Record<string, unknown>;
      response['4xx'] ??= problemResponse;
      response['5xx'] ??= problemResponse;
      const access = route.config?.access;
      // OpenAPI's empty requirement `{}` marks a credential as optional.
      if (access === undefined || access === 'public') schema.security ??= [];
      else if (access === 'optional') schema.security ??= [{}, { bearer: [] }];
      else schema.security ??= [{ bearer: [] }];
    });

    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Parapet',
          version,
          description:
            'Governance gateway for AI agents. Agent traffic lives under /v1, the operator API under /api. ' +
            'Errors are application/problem+json (RFC 9457).',
        },
        components: {
          securitySchemes: {
            bearer: { type: 'http', scheme: 'bearer', description: 'Operator token, traffic token or agent credential' },
          },
        },
      },
      refResolver: { buildLocalReference: (json, _baseUri, _fragment, index) => String(json.$id ?? `def-${index}`) },
    });
    await docsRoutes(app);

    app.get(
      '/openapi.json',
      {
        config: { access: 'public' },
        schema: { hide: true, response: { 200: Type.Object({}, { additionalProperties: true }) } },
      },
      async () => app.swagger(),
    );
  },
  { name: 'parapet-openapi' },
);
