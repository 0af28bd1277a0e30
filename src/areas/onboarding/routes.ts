// GET /api/onboarding.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { OnboardingSchema } from './schemas.js';
import type { OnboardingService } from './service.js';

export const onboardingRoutes: FastifyPluginAsyncTypebox<{ onboarding: OnboardingService }> = async (app, { onboarding }) => {
  app.get(
    '/api/onboarding',
    {
      config: { access: 'viewer' },
      schema: { tags: ['platform'], summary: 'The install state as a checklist computed live, each item with the command or route that completes it', response: { 200: OnboardingSchema } },
    },
    async () => onboarding.checklist(),
  );
};
