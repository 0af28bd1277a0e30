// The guardrail feedback loop through the real gateway: needs the wiring of src/feedback into
// app.ts (routes, the SuppressionFilter and its sync) and decide.ts (findings filtered before they
// are recorded). Spec 02's done-when: a false-positive label plus a suppression stops the same
// finding recurring for that agent, and precision figures move accordingly.
import { describe, expect, it } from 'vitest';
import { DIALECTS, json, withGateway, type TestGateway } from '../../../test/helpers/gateway.js';

const CONTENT = 'Customer contact for invoices: jane.doe@example.com';

async function memoryWrite(gateway: TestGateway, agent: string): Promise<any> {
  const response = await gateway.request('/v1/guard/memory_write', { method: 'POST', json: { agent, content: CONTENT } });
  expect(response.status).toBe(200);
  await gateway.app.services.recorder.flush();
  return response.json();
}

async function detectionFinding(gateway: TestGateway, agent: string): Promise<any> {
  const response = await gateway.request(`/api/findings?type=guardrail_detection&agent=${agent}&limit=500`);
  expect(response.status).toBe(200);
  const items = (await json(response)).items.filter((item: any) => item.evidence.entity === 'PII.EMAIL');
  expect(items).toHaveLength(1);
  return items[0];
}

describe.each(DIALECTS)('guardrail feedback wired into the gateway (%s)', (dialect) => {
  const ctx = withGateway({ dialect });

  it('a false positive plus a suppression stops the finding recurring for that agent only; deleting it brings it back; precision moves', async () => {
    const gateway = ctx.gateway;
    for (const slug of ['wired-a', 'wired-b']) {
      expect((await gateway.request('/api/agents', { method: 'POST', json: { slug, owner_email: 'owner@example.com' } })).status).toBe(201);
    }
    const first = await memoryWrite(gateway, 'wired-a');
    const raised = await detectionFinding(gateway, 'wired-a');
    expect(raised.occurrences).toBe(1);

    const labelled = await gateway.request('/api/guardrails/feedback', { method: 'POST', json: { decision_id: first.decision_id, label: 'false_positive' } });
    expect(labelled.status).toBe(201);
    const feedback: any = await labelled.json();
    expect((await json(gateway.request('/api/guardrails/precision?agent=wired-a'))).total).toEqual({ tp: 0, fp: 1, fn: 0, precision: 0 });

    const created = await gateway.request('/api/guardrails/suppressions', { method: 'POST', json: { feedback_id: feedback.id, scope: 'agent' } });
    expect(created.status).toBe(201);
    const suppression: any = await created.json();

    const again = await memoryWrite(gateway, 'wired-a');
    expect(again.verdict).toBe(first.verdict);
    expect(await detectionFinding(gateway, 'wired-a')).toMatchObject({ id: raised.id, occurrences: 1 });
    await memoryWrite(gateway, 'wired-b');
    expect((await detectionFinding(gateway, 'wired-b')).occurrences).toBe(1);

    expect((await gateway.request(`/api/guardrails/suppressions/${suppression.id}`, { method: 'DELETE' })).status).toBe(200);
    await memoryWrite(gateway, 'wired-a');
    expect((await detectionFinding(gateway, 'wired-a')).occurrences).toBe(2);
  });

  it('lists the routes in the OpenAPI document', async () => {
    const document = await json(ctx.gateway.request('/openapi.json', { token: null }));
    for (const route of ['/api/guardrails/feedback', '/api/guardrails/latency', '/api/guardrails/precision', '/api/guardrails/recommendations', '/api/guardrails/suppressions', '/api/guardrails/suppressions/{suppression_id}']) {
      expect(Object.keys(document.paths)).toContain(route);
    }
  });
});
