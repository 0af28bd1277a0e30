// Setup the proxy tests share: a fake model provider and a gateway pointed at it for the tests of
// the enclosing describe block, and a registered agent with its credential (and, when asked, its
// grants and protections).
import { afterAll, beforeAll, expect } from 'vitest';
import type { Config } from '../../src/infra/config/schema.js';
import { json, startGateway, type StartOptions, type TestGateway } from './gateway.js';
import type { ScriptedUpstream } from './scripted-upstream.js';

export interface ProxySetup<F> {
  gateway: TestGateway;
  fake: F;
}

/**
 * @example const ctx = withFakeUpstream(() => new FakeOpenAI(), (fake) => ({ upstream_openai_base_url: fake.url, upstream_openai_api_key: 'sk-x' }));
 */
export function withFakeUpstream<F extends ScriptedUpstream<unknown>>(
  makeFake: () => F,
  overridesFor: (fake: F) => Partial<Config>,
  options: StartOptions = {},
): ProxySetup<F> {
  const ctx = {} as ProxySetup<F>;
  beforeAll(async () => {
    ctx.fake = makeFake();
    await ctx.fake.start();
    ctx.gateway = await startGateway({ ...options, overrides: { ...overridesFor(ctx.fake), ...options.overrides } });
  });
  afterAll(async () => {
    await ctx.gateway?.close();
    await ctx.fake?.close();
  });
  return ctx;
}

export interface AgentSetup {
  /** Tools the agent declares. */
  declaredTools?: string[];
  /** Tools granted (and so declared). */
  grants?: string[];
  protections?: Record<string, unknown>;
}

/** Registers an agent and mints its credential; returns the raw credential. */
export async function agentCredential(gateway: TestGateway, slug: string, setup: AgentSetup = {}): Promise<string> {
  const declared = [...(setup.declaredTools ?? []), ...(setup.grants ?? [])];
  const created = await json(gateway.request('/api/agents', { method: 'POST', json: { slug, owner_email: 'owner@example.com', declared_tools: declared } }));
  expect(created.identity_id).toMatch(/^idn_/);
  for (const tool of setup.grants ?? []) {
    expect((await gateway.request(`/api/agents/${slug}/access`, { method: 'POST', json: { tool_key: tool } })).status).toBe(201);
  }
  if (setup.protections !== undefined) {
    expect((await gateway.request(`/api/agents/${slug}/protection`, { method: 'POST', json: { protections: setup.protections } })).status).toBe(200);
  }
  const minted = await json(gateway.request(`/api/identities/${created.identity_id}/credentials`, { method: 'POST', json: {} }));
  return minted.credential as string;
}
