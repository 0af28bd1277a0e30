// PLACEHOLDER (helper fills in): /api/workspace/plan, /api/workspace/apply, /api/workspace/export.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { WorkspaceService } from './service.js';

export const workspaceRoutes: FastifyPluginAsyncTypebox<{ workspace: WorkspaceService }> = async () => {};
