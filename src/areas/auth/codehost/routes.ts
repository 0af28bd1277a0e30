// PLACEHOLDER (helper fills in): POST /api/auth/codehost/provision.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { CodehostProvisionService } from './service.js';

export const codehostProvisionRoutes: FastifyPluginAsyncTypebox<{ provision: CodehostProvisionService }> = async () => {};
