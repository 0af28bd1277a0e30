// GET|POST /api/monitors, GET|PATCH|DELETE /api/monitors/{monitor_id}, POST .../pause, .../resume,
// .../run. GETs viewer; the rest operator.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../infra/auth/principal.js';
import { EmptyBody } from '../../infra/http/schemas.js';
import {
  CreateMonitorBody,
  DeletedSchema,
  ListMonitorsQuery,
  MonitorDetailSchema,
  MonitorListSchema,
  MonitorParams,
  MonitorSchema,
  RunAcceptedSchema,
  RunBody,
  UpdateMonitorBody,
} from './schemas.js';
import type { MonitorService } from './service.js';

export const monitorRoutes: FastifyPluginAsyncTypebox<{ monitors: MonitorService }> = async (app, { monitors }) => {
  const tags = ['monitors'];
  app.get(
    '/api/monitors',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'Monitors, newest first, with their baseline and last run', querystring: ListMonitorsQuery, response: { 200: MonitorListSchema } },
    },
    async (request) => monitors.list(request.query),
  );
  app.post(
    '/api/monitors',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary:
          'Create a monitor: an MCP server tool listing, a hosted API OpenAPI document, a code-host repository or a knowledge source freshness; the first run stores the baseline, later runs report differences as findings. Target checked per kind (422)',
        body: CreateMonitorBody,
        response: { 201: MonitorSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await monitors.create(request.principal as Principal, request.body)),
  );
  app.get(
    '/api/monitors/:monitor_id',
    { config: { access: 'viewer' }, schema: { tags, summary: 'One monitor with its last runs (≤ 20) and what each found', params: MonitorParams, response: { 200: MonitorDetailSchema } } },
    async (request) => monitors.get(request.params.monitor_id),
  );
  app.patch(
    '/api/monitors/:monitor_id',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: "Change a monitor's name, interval, config (a new config clears the baseline) or enabled (false pauses, true resumes: due now)",
        params: MonitorParams,
        body: UpdateMonitorBody,
        response: { 200: MonitorSchema },
      },
    },
    async (request) => monitors.update(request.principal as Principal, request.params.monitor_id, request.body),
  );
  app.delete(
    '/api/monitors/:monitor_id',
    {
      config: { access: 'operator' },
      schema: { tags, summary: 'Delete a monitor and its runs; the findings it raised are kept', params: MonitorParams, response: { 200: DeletedSchema } },
    },
    async (request) => monitors.remove(request.principal as Principal, request.params.monitor_id),
  );
  app.post(
    '/api/monitors/:monitor_id/pause',
    {
      config: { access: 'operator' },
      schema: { tags, summary: 'Pause a monitor: no scheduled run until it is resumed', params: MonitorParams, body: EmptyBody, response: { 200: MonitorSchema } },
    },
    async (request) => monitors.pause(request.principal as Principal, request.params.monitor_id),
  );
  app.post(
    '/api/monitors/:monitor_id/resume',
    {
      config: { access: 'operator' },
      schema: { tags, summary: 'Resume a paused monitor: its next run is due now', params: MonitorParams, body: EmptyBody, response: { 200: MonitorSchema } },
    },
    async (request) => monitors.resume(request.principal as Principal, request.params.monitor_id),
  );
  app.post(
    '/api/monitors/:monitor_id/run',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Run a monitor now through the job queue (job monitors.run); with rebaseline the run becomes the new baseline, accepting the changes seen so far',
        params: MonitorParams,
        body: RunBody,
        response: { 202: RunAcceptedSchema },
      },
    },
    async (request, reply) => reply.code(202).send(await monitors.requestRun(request.principal as Principal, request.params.monitor_id, request.body)),
  );
};
