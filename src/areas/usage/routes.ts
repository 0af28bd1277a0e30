// GET /api/usage: model usage per agent, model and UTC day from the database (every process's calls).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Clock } from '../../infra/lib/clock.js';
import type { Reports } from '../../infra/store/reader.js';
import type { USAGE_REPORT_JOBS } from './report-jobs.js';
import { UsageQuery, UsageSchema, type Usage, type UsageRow } from './schemas.js';
import { dayOf, type RunGovernor } from './service.js';

const DAY_MS = 86_400_000;

export const usageRoutes: FastifyPluginAsyncTypebox<{ clock: Clock; runs: RunGovernor; reports: Reports<typeof USAGE_REPORT_JOBS> }> = async (app, { clock, runs, reports }) => {
  // Counts still held by this process are written before the database closes.
  app.addHook('onClose', async () => runs.flush());

  app.get(
    '/api/usage',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['reliability'],
        summary: 'Proxied model calls, tokens and cost per agent, model and UTC day, with totals',
        querystring: UsageQuery,
        response: { 200: UsageSchema },
      },
    },
    async (request): Promise<Usage> => {
      // This process's pending counts first; other processes write theirs within a fraction of a second.
      await runs.flush();
      const days = request.query.days ?? 7;
      const now = clock.now();
      const from = dayOf(new Date(now.getTime() - (days - 1) * DAY_MS));
      const rows = await reports.run('usage.rows', {
        fromDay: from,
        ...(request.query.agent === undefined ? {} : { agent: request.query.agent }),
        ...(request.query.model === undefined ? {} : { model: request.query.model }),
      });
      const items: UsageRow[] = rows.map((row) => {
        const prompt = Number(row.prompt_tokens);
        const completion = Number(row.completion_tokens);
        return {
          agent: row.agent,
          model: row.model,
          day: row.day,
          calls: Number(row.calls),
          blocked: Number(row.blocked),
          unpriced: Number(row.unpriced),
          prompt_tokens: prompt,
          completion_tokens: completion,
          total_tokens: prompt + completion,
          cost_usd: Number(row.cost_usd),
        };
      });
      const totals = { calls: 0, blocked: 0, unpriced: 0, prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, cost_usd: 0 };
      for (const item of items) for (const key of Object.keys(totals) as Array<keyof typeof totals>) totals[key] += item[key];
      return { from, to: dayOf(now), items, totals };
    },
  );
};
