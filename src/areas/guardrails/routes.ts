// GET|POST /api/guardrails/feedback, GET /api/guardrails/latency, /precision, /recommendations,
// GET|POST /api/guardrails/suppressions, DELETE /api/guardrails/suppressions/{suppression_id}.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../infra/auth/principal.js';
import type { Reports } from '../../infra/store/reader.js';
import type { GUARDRAIL_REPORT_JOBS } from './report-jobs.js';
import {
  CreateFeedbackBody,
  CreateSuppressionBody,
  FeedbackList,
  FeedbackSchema,
  LatencyQuery,
  LatencyReport,
  ListFeedbackQuery,
  ListSuppressionsQuery,
  PrecisionQuery,
  PrecisionReport,
  RecommendationList,
  RecommendationsQuery,
  SuppressionIdParams,
  SuppressionList,
  SuppressionSchema,
} from './schemas.js';
import type { FeedbackService } from './service.js';

const tags = ['guardrails'];

export const feedbackRoutes: FastifyPluginAsyncTypebox<{ feedback: FeedbackService; reports: Reports<typeof GUARDRAIL_REPORT_JOBS> }> = async (app, { feedback, reports }) => {
  app.get(
    '/api/guardrails/feedback',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'Labels on recorded decisions, newest first', querystring: ListFeedbackQuery, response: { 200: FeedbackList } },
    },
    async (request) => feedback.listFeedback(request.query),
  );

  app.post(
    '/api/guardrails/feedback',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Label what a decision detected (false or true positive) or missed (false negative); audited',
        body: CreateFeedbackBody,
        response: { 201: FeedbackSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await feedback.createFeedback(request.principal as Principal, request.body)),
  );

  app.get(
    '/api/guardrails/precision',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'Precision tp / (tp + fp) from the labels, per detector, entity type and agent', querystring: PrecisionQuery, response: { 200: PrecisionReport } },
    },
    async (request) => reports.run('guardrails.precision', request.query),
  );

  app.get(
    '/api/guardrails/latency',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'Detector run times (p50, p95, max) and degraded runs, per detector and per agent', querystring: LatencyQuery, response: { 200: LatencyReport } },
    },
    async (request) => reports.run('guardrails.latency', request.query),
  );

  app.get(
    '/api/guardrails/recommendations',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'Thresholds to raise and rules to narrow, with the counts behind them', querystring: RecommendationsQuery, response: { 200: RecommendationList } },
    },
    async (request) => reports.run('guardrails.recommendations', request.query),
  );

  app.get(
    '/api/guardrails/suppressions',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'Suppressions not deleted, newest first (with agent: those that apply to it)', querystring: ListSuppressionsQuery, response: { 200: SuppressionList } },
    },
    async (request) => feedback.listSuppressions(request.query),
  );

  app.post(
    '/api/guardrails/suppressions',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Suppress the finding a false-positive label names, for its agent or every agent; audited',
        body: CreateSuppressionBody,
        response: { 201: SuppressionSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await feedback.createSuppression(request.principal as Principal, request.body)),
  );

  app.delete(
    '/api/guardrails/suppressions/:suppression_id',
    {
      config: { access: 'operator' },
      schema: { tags, summary: 'Delete a suppression (kept as deleted); audited', params: SuppressionIdParams, response: { 200: SuppressionSchema } },
    },
    async (request) => feedback.deleteSuppression(request.principal as Principal, request.params.suppression_id),
  );
};
