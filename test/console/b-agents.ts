// Traffic and registry steps the agents and approvals console tests take through the API, so the
// browser only does what a person would: look and decide.
import { expect } from 'vitest';
import { json, type TestGateway } from '../helpers/gateway.js';

export interface ToolCall {
  agent: string;
  tool: string;
  arguments: Record<string, unknown>;
  approval_id?: string;
}

/** Registers an approved agent (owned, so no unowned_agent finding clutters the page). */
export async function registerAgent(gateway: TestGateway, slug: string, declaredTools: string[] = []): Promise<void> {
  const response = await gateway.request('/api/agents', { method: 'POST', json: { slug, owner_email: `${slug}@example.com`, declared_tools: declaredTools } });
  expect(response.status).toBe(201);
}

export async function grantTool(gateway: TestGateway, slug: string, grant: { tool_key: string; requires_approval?: boolean }): Promise<void> {
  expect((await gateway.request(`/api/agents/${slug}/access`, { method: 'POST', json: grant })).status).toBe(201);
}

/** POST /v1/guard/tool_call with the traffic token; the decision (verdict, approval_id, …). */
export async function toolCall(gateway: TestGateway, call: ToolCall): Promise<any> {
  const response = await gateway.request('/v1/guard/tool_call', { method: 'POST', json: call });
  expect(response.status).toBe(200);
  return response.json();
}

export async function mintToken(gateway: TestGateway, role: 'viewer' | 'operator'): Promise<string> {
  return (await json(gateway.request('/api/tokens', { method: 'POST', json: { name: `console-${role}`, role } }))).token as string;
}
