// GET /docs: the API explorer (Swagger UI from the swagger-ui-dist package) over /openapi.json.
// Its assets are served through one parametric route and an allow-list: a wildcard route would
// make every request on the gateway slower (find-my-way measured ~8 µs per request with one).
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { problem } from './problems.js';

export const DOCS_PREFIX = '/docs';

const assetDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'index.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

// Scripts come from this origin only; the start-up script is a file, not inline code.
const CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; " +
  "object-src 'none'; frame-ancestors 'none'; base-uri 'self'";

const INIT_SCRIPT = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
  });
};
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Parapet API</title>
  <link rel="stylesheet" href="${DOCS_PREFIX}/static/swagger-ui.css">
  <link rel="stylesheet" href="${DOCS_PREFIX}/static/index.css">
  <link rel="icon" type="image/png" href="${DOCS_PREFIX}/static/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${DOCS_PREFIX}/static/swagger-ui-bundle.js"></script>
  <script src="${DOCS_PREFIX}/static/swagger-ui-standalone-preset.js"></script>
  <script src="${DOCS_PREFIX}/static/parapet-init.js"></script>
</body>
</html>
`;

export async function docsRoutes(app: FastifyInstance): Promise<void> {
  const cache = new Map<string, Buffer>();

  app.get(
    DOCS_PREFIX,
    { config: { access: 'public' }, schema: { hide: true } },
    async (_request, reply) => reply.header('content-security-policy', CSP).type('text/html; charset=utf-8').send(PAGE),
  );

  app.get(
    `${DOCS_PREFIX}/static/:file`,
    {
      config: { access: 'public' },
      schema: { hide: true, params: Type.Object({ file: Type.String({ maxLength: 64 }) }) },
    },
    async (request, reply) => {
      const { file } = request.params as { file: string };
      reply.header('cache-control', 'public, max-age=3600');
      if (file === 'parapet-init.js') return reply.type('text/javascript; charset=utf-8').send(INIT_SCRIPT);
      const type = ASSETS[file];
      if (type === undefined) throw problem('unknown-route', `no explorer asset ${file}`);
      let body = cache.get(file);
      if (body === undefined) {
        body = await readFile(path.join(assetDir, file));
        cache.set(file, body);
      }
      return reply.type(type).send(body);
    },
  );
}
