// GET /api/probes/warning, GET|POST /api/probes/targets, GET|PATCH /api/probes/targets/{target_id},
// GET .../campaigns, POST .../opt-in, .../opt-out, .../run. GETs viewer; the rest operator.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../infra/auth/principal.js';
import { EmptyBody } from '../../infra/http/schemas.js';
import {
  CampaignsQuery,
  CreateTargetBody,
  OptInBody,
  RunAcceptedSchema,
  TargetListSchema,
  TargetParams,
  TargetSchema,
  UpdateTargetBody,
  WarningSchema,
} from './schemas.js';
import { CampaignListSchema } from '../redteam/schemas.js';
import type { ProbeTargetService } from './service.js';

export const probeRoutes: FastifyPluginAsyncTypebox<{ probeTargets: ProbeTargetService }> = async (app, { probeTargets }) => {
  const tags = ['probes'];
  app.get(
    '/api/probes/warning',
    {
      config: { access: 'viewer' },
      schema: {
        tags,
        summary: 'What to read before opting a live agent in to probes: the warning, the acknowledgement asked for, the probe library, the hard caps, the allowed hosts, how answers are judged and the adapter contract',
        response: { 200: WarningSchema },
      },
    },
    async () => probeTargets.warning(),
  );
  app.get(
    '/api/probes/targets',
    {
      config: { access: 'viewer' },
      schema: { tags, summary: 'Probe targets, newest first (auth headers never shown: auth_header_set)', response: { 200: TargetListSchema } },
    },
    async () => probeTargets.list(),
  );
  app.post(
    '/api/probes/targets',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Register a live agent as a probe target, created disabled: nothing is sent before opt-in; URL on loopback or a listed host; caps under hard ceilings (422)',
        body: CreateTargetBody,
        response: { 201: TargetSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await probeTargets.create(request.principal as Principal, request.body)),
  );
  app.get(
    '/api/probes/targets/:target_id',
    { config: { access: 'viewer' }, schema: { tags, summary: 'One probe target', params: TargetParams, response: { 200: TargetSchema } } },
    async (request) => probeTargets.get(request.params.target_id),
  );
  app.patch(
    '/api/probes/targets/:target_id',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: "Change a probe target's URL, forbidden tools, leak markers, probes or caps; a new URL withdraws the opt-in",
        params: TargetParams,
        body: UpdateTargetBody,
        response: { 200: TargetSchema },
      },
    },
    async (request) => probeTargets.update(request.principal as Principal, request.params.target_id, request.body),
  );
  app.get(
    '/api/probes/targets/:target_id/campaigns',
    {
      config: { access: 'viewer' },
      schema: {
        tags,
        summary: "The runs of a probe target (red-team campaigns with runner target), newest first, with their summary and the comparison with the run before",
        params: TargetParams,
        querystring: CampaignsQuery,
        response: { 200: CampaignListSchema },
      },
    },
    async (request) => probeTargets.campaigns(request.params.target_id, request.query.limit ?? 20),
  );
  app.post(
    '/api/probes/targets/:target_id/opt-in',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Opt a probe target in with an acknowledgement (audited): probes may be sent from now on and the first scheduled run is an interval away; 409 when already opted in',
        params: TargetParams,
        body: OptInBody,
        response: { 200: TargetSchema },
      },
    },
    async (request) => probeTargets.optIn(request.principal as Principal, request.params.target_id, request.body),
  );
  app.post(
    '/api/probes/targets/:target_id/opt-out',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Opt a probe target out: nothing more is sent and a run in progress stops before its next probe',
        params: TargetParams,
        body: EmptyBody,
        response: { 200: TargetSchema },
      },
    },
    async (request) => probeTargets.optOut(request.principal as Principal, request.params.target_id),
  );
  app.post(
    '/api/probes/targets/:target_id/run',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: 'Queue a run of a probe target now (job probes.run; its campaign appears under .../campaigns): 409 when not opted in or a run is in progress, 429 with Retry-After within probe_min_run_gap_seconds of the last run',
        params: TargetParams,
        body: EmptyBody,
        response: { 202: RunAcceptedSchema },
      },
    },
    async (request, reply) => reply.code(202).send(await probeTargets.requestRun(request.principal as Principal, request.params.target_id)),
  );
};
