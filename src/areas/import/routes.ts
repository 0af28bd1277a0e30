// POST /api/import/{tool}/plan (viewer: reads nothing secret, stores nothing) and
// POST /api/import/{tool} (operator: stores through the owning services; audited).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../infra/auth/principal.js';
import { ApplySchema, IMPORT_BODY_LIMIT, ImportBody, PlanSchema, ToolParams } from './schemas.js';
import type { ImportService } from './service.js';

export const importRoutes: FastifyPluginAsyncTypebox<{ imports: ImportService }> = async (app, { imports }) => {
  const tags = ['import'];
  app.post(
    '/api/import/:tool/plan',
    {
      config: { access: 'viewer' },
      bodyLimit: IMPORT_BODY_LIMIT,
      schema: {
        tags,
        summary: 'What a LiteLLM, Portkey, NeMo Guardrails, LLM Guard or promptfoo configuration maps onto, item by item: mapped, approximate (and how) or unmapped (and why); stores nothing',
        params: ToolParams,
        body: ImportBody,
        response: { 200: PlanSchema },
      },
    },
    async (request) => imports.plan(request.params.tool, request.body),
  );
  app.post(
    '/api/import/:tool',
    {
      config: { access: 'operator' },
      bodyLimit: IMPORT_BODY_LIMIT,
      schema: {
        tags,
        summary: 'Apply the plan: mapped and approximate items not in skip become custom rules, rules of the tool\'s policy pack (live in observe) and evaluation cases; idempotent; audited once with the counts',
        params: ToolParams,
        body: ImportBody,
        response: { 200: ApplySchema },
      },
    },
    async (request) => imports.apply(request.principal as Principal, request.params.tool, request.body),
  );
};
