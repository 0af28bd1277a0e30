// The packaged deployment (docs/deployment.md "Containers"), checked without a container daemon:
// deploy/compose.yaml parses and wires two gateway replicas to PostgreSQL, Redis, one shared
// secret key and a round-robin load balancer; the Dockerfile is multi-stage, runs as a non-root
// user with production dependencies only, exposes the port and checks /health.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { packagePath } from '../src/infra/lib/package-root.js';

const compose = parse(readFileSync(packagePath('deploy', 'compose.yaml'), 'utf8')) as { services: Record<string, any>; volumes?: Record<string, unknown> };
/** The nginx configuration without its comments. */
const nginx = readFileSync(packagePath('deploy', 'nginx.conf'), 'utf8')
  .split('\n')
  .filter((line) => !line.trim().startsWith('#'))
  .join('\n');
const dockerfile = readFileSync(packagePath('Dockerfile'), 'utf8');

/** Dockerfile instructions by stage, continuation lines joined, comments dropped. */
function stages(text: string): Array<{ name: string; from: string; instructions: string[] }> {
  const lines = text.replace(/\\\n/g, ' ').split('\n').map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'));
  const result: Array<{ name: string; from: string; instructions: string[] }> = [];
  for (const line of lines) {
    const [keyword = '', ...rest] = line.split(/\s+/);
    if (keyword.toUpperCase() === 'FROM') {
      const asIndex = rest.findIndex((word) => word.toUpperCase() === 'AS');
      result.push({ name: asIndex === -1 ? '' : (rest[asIndex + 1] ?? ''), from: rest[0] ?? '', instructions: [] });
    } else result.at(-1)?.instructions.push(line);
  }
  return result;
}

describe('deploy/compose.yaml', () => {
  const gateways = Object.entries(compose.services).filter(([, service]) => service.image === 'parapet:local');

  it('runs two gateway replicas of one image, PostgreSQL, Redis and a load balancer', () => {
    expect(gateways.map(([name]) => name).sort()).toEqual(['gateway-a', 'gateway-b']);
    expect(compose.services.postgres.image).toMatch(/^postgres:/);
    expect(compose.services.redis.image).toMatch(/^redis:/);
    expect(compose.services.lb.image).toMatch(/^nginx:/);
    expect(compose.services.lb.volumes).toContain('./nginx.conf:/etc/nginx/nginx.conf:ro');
    expect(compose.services.lb.ports).toEqual(['8080:80']);
    // Only the load balancer is published: callers never pick a replica.
    expect(gateways.every(([, service]) => service.ports === undefined)).toBe(true);
    expect(compose.services['gateway-a'].build).toEqual({ context: '..', dockerfile: 'Dockerfile' });
  });

  it('gives every replica the same database, Redis and secret key, and waits for them to be healthy', () => {
    const environments = gateways.map(([, service]) => service.environment);
    expect(environments[0]).toEqual(environments[1]);
    expect(environments[0]).toMatchObject({
      DATABASE_URL: 'postgres://parapet:parapet@postgres:5432/parapet',
      PARAPET_REDIS_URL: 'redis://redis:6379',
      HOST: '0.0.0.0',
      PORT: '8080',
    });
    // The secret key is required from the shell, never a value written in the file.
    expect(environments[0].PARAPET_SECRET_KEY).toMatch(/^\$\{PARAPET_SECRET_KEY:\?/);
    for (const [, service] of gateways) {
      expect(service.depends_on).toMatchObject({ postgres: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } });
    }
    expect(compose.services.lb.depends_on).toEqual({ 'gateway-a': { condition: 'service_healthy' }, 'gateway-b': { condition: 'service_healthy' } });
    expect(compose.services.postgres.healthcheck.test.join(' ')).toContain('pg_isready');
    expect(compose.services.redis.healthcheck.test).toEqual(['CMD', 'redis-cli', 'ping']);
  });

  it('balances round-robin over both replicas with no stickiness and never resends a POST', () => {
    const upstream = /upstream parapet \{([^}]*)\}/.exec(nginx)?.[1] ?? '';
    expect([...upstream.matchAll(/server (\S+)/g)].map((match) => match[1])).toEqual(['gateway-a:8080', 'gateway-b:8080']);
    for (const sticky of ['ip_hash', 'hash ', 'sticky', 'least_conn']) expect(upstream).not.toContain(sticky);
    expect(nginx).toContain('proxy_pass http://parapet;');
    expect(nginx).toContain('proxy_buffering off;');
    expect(nginx).not.toContain('non_idempotent');
  });
});

describe('Dockerfile', () => {
  const all = stages(dockerfile);
  const runtime = all.at(-1);

  it('builds in stages: compile with every dependency, then production dependencies only', () => {
    expect(all.map((stage) => stage.name)).toEqual(['build', 'deps', 'runtime']);
    const build = all[0]?.instructions.join('\n') ?? '';
    expect(build).toContain('npm ci --ignore-scripts');
    expect(build).toContain('tsc -p tsconfig.build.json');
    expect(all[1]?.instructions.join('\n')).toContain('npm ci --omit=dev');
  });

  it('runs as a non-root user, with no dev dependencies and no compiler in the runtime stage', () => {
    const instructions = runtime?.instructions ?? [];
    const users = instructions.filter((line) => line.startsWith('USER '));
    expect(users).toEqual(['USER node']);
    // node_modules come from the production-only stage; the build stage gives dist/ alone.
    const copies = instructions.filter((line) => line.startsWith('COPY --from='));
    expect(copies).toEqual(['COPY --from=deps /app/node_modules ./node_modules', 'COPY --from=build /app/dist ./dist']);
    const text = instructions.join('\n');
    for (const forbidden of ['npm ci', 'npm install', 'g++', 'src ./src', 'tsc']) expect(text).not.toContain(forbidden);
  });

  it('serves with the start command, exposes the port and checks liveness on /health', () => {
    const text = runtime?.instructions.join('\n') ?? '';
    expect(text).toContain('CMD ["node", "bin/parapet.js", "serve"]');
    expect(text).toMatch(/^EXPOSE 8080$/m);
    expect(text).toMatch(/^HEALTHCHECK .*\/health/m);
    expect(text).toContain('HOST=0.0.0.0');
    // The data files package.json ships are in the image.
    for (const folder of ['bin', 'proto', 'packs', 'models', 'catalogue', 'schemas']) expect(text).toContain(`COPY ${folder} ./${folder}`);
  });
});
