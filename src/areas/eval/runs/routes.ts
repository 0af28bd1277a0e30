// POST /api/eval/runs and POST /api/eval/gate (operator); GET /api/eval/runs and
// GET /api/eval/runs/{run_id} (viewer).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../../infra/auth/principal.js';
import { CreateRunBody, GateBody, GateSchema, ListRunsQuery, QueuedRunSchema, RunListSchema, RunParams, RunSchema } from './schemas.js';
import type { RunService } from './service.js';

export const runRoutes: FastifyPluginAsyncTypebox<{ runs: RunService }> = async (app, { runs }) => {
  const tags = ['evaluations'];
  app.post(
    '/api/eval/runs',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Run a suite against a target (guard, model or http) with scorers, optionally against a baseline run: 201 with the run when answered in the request, 202 with the job when queued',
        body: CreateRunBody,
        response: { 201: RunSchema, 202: QueuedRunSchema },
      },
    },
    async (request, reply) => {
      const started = await runs.create(request.principal as Principal, request.body);
      return started.status === 201 ? reply.code(201).send(started.run) : reply.code(202).send(started.queued);
    },
  );
  app.get(
    '/api/eval/runs',
    {
      config: { access: 'viewer' },
      schema: {
        tags,
        summary: 'Evaluation runs, offline and online, newest first, with their status and pass rate',
        querystring: ListRunsQuery,
        response: { 200: RunListSchema },
      },
    },
    async (request) => runs.list(request.query),
  );
  app.get(
    '/api/eval/runs/:run_id',
    {
      config: { access: 'viewer' },
      schema: {
        tags,
        summary: 'One evaluation run: per-case outputs and results, per-scorer pass rates (annotations counted) and the comparison with its baseline (exact McNemar)',
        params: RunParams,
        response: { 200: RunSchema },
      },
    },
    async (request) => runs.get(request.params.run_id),
  );
  app.post(
    '/api/eval/gate',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Run a suite in the request (or reuse a completed run) and say whether it passes min_pass_rate, per-scorer thresholds and, with a baseline, no significant regression; with the reasons',
        body: GateBody,
        response: { 200: GateSchema },
      },
    },
    async (request) => runs.gate(request.principal as Principal, request.body),
  );
};
