// GET /api/jobs, GET /api/jobs/{job_id}, POST /api/jobs/{job_id}/retry (spec 02 "Jobs").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../infra/auth/principal.js';
import { JobIdParams, JobList, JobSchema, ListJobsQuery, RetryJobBody } from './schemas.js';
import type { JobService } from './service.js';

const tags = ['jobs'];

export const jobRoutes: FastifyPluginAsyncTypebox<{ jobs: JobService }> = async (app, { jobs }) => {
  app.get(
    '/api/jobs',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'Jobs, newest first; dead (dead-lettered) jobs are included unless status narrows the list', querystring: ListJobsQuery, response: { 200: JobList } },
    },
    async (request) => jobs.list(request.query),
  );

  app.get(
    '/api/jobs/:job_id',
    { config: { access: 'viewer' }, schema: { tags, summary: 'One job', params: JobIdParams, response: { 200: JobSchema } } },
    async (request) => jobs.get(request.params.job_id),
  );

  app.post(
    '/api/jobs/:job_id/retry',
    {
      config: { access: 'operator' },
      schema: { tags, summary: 'Requeue a dead job with its attempts reset (409 unless it is dead)', params: JobIdParams, body: RetryJobBody, response: { 200: JobSchema } },
    },
    async (request) => jobs.retry(request.principal as Principal, request.params.job_id),
  );
};
