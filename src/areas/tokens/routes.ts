// Routes for API tokens: GET|POST /api/tokens, POST /api/tokens/{token_id}/revoke, POST /api/auth/logout.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Principal } from '../../infra/auth/principal.js';
import type { CredentialService } from '../credentials/service.js';
import { EmptyBody } from '../../infra/http/schemas.js';
import { CreatedTokenSchema, CreateTokenBody, ListTokensQuery, TokenIdParams, TokenList, TokenSchema } from './schemas.js';
import type { TokenService } from './service.js';

export interface TokenRoutesOptions {
  tokens: TokenService;
  credentials: CredentialService;
}

const tags = ['tokens'];

export const tokenRoutes: FastifyPluginAsyncTypebox<TokenRoutesOptions> = async (app, { tokens, credentials }) => {
  app.get(
    '/api/tokens',
    {
      config: { access: 'viewer' },
      schema: {
        tags,
        summary: "List tokens: an admin sees every token, others their own owner's",
        querystring: ListTokensQuery,
        response: { 200: TokenList },
      },
    },
    async (request) => tokens.list(request.principal as Principal, request.query),
  );

  app.post(
    '/api/tokens',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: "Mint a token for the caller's own use; the raw value is returned once",
        body: CreateTokenBody,
        response: { 201: CreatedTokenSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await tokens.createForCaller(request.principal as Principal, request.body)),
  );

  app.post(
    '/api/tokens/:token_id/revoke',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        summary: "Revoke a token by id (admins may revoke anyone's)",
        description:
          "Needs a role at least as strong as the token's (viewer < operator < admin; a traffic token counts as operator), or the token itself. The bootstrap admin token (PARAPET_ADMIN_TOKEN or the one minted at first start) is never revoked through the API: 409; `parapet admin token revoke` on the gateway's host can.",
        params: TokenIdParams,
        body: EmptyBody,
        response: { 200: TokenSchema },
      },
    },
    async (request) => tokens.revoke(request.principal as Principal, request.params.token_id),
  );

  app.post(
    '/api/auth/logout',
    {
      config: { access: 'any' },
      schema: {
        tags,
        summary: 'Revoke the credential presented with this request',
        body: EmptyBody,
        response: { 200: Type.Object({ revoked: Type.Boolean(), id: Type.String() }) },
      },
    },
    async (request) => {
      const principal = request.principal as Principal;
      if (principal.kind === 'agent') {
        await credentials.revoke(principal, principal.credentialId, 'credential.logout');
        return { revoked: true, id: principal.credentialId };
      }
      await tokens.revoke(principal, principal.tokenId, 'token.logout');
      return { revoked: true, id: principal.tokenId };
    },
  );
};
