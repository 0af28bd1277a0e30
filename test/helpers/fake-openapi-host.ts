// A hosted API on 127.0.0.1 that serves OpenAPI documents the way real hosts do: JSON (OpenAPI
// 3.0, at /openapi.json and /v1/openapi.json), YAML (OpenAPI 3.1), Swagger 2.0, a same-origin
// redirect, and the hostile kinds: a document over the 5 MiB cap, a redirect to another host,
// garbage, a YAML alias bomb, a document nested too deep and a 404.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A chat-completions API with bearer auth whose answers carry an email and a card number. */
export const CHAT_API_DOCUMENT = {
  openapi: '3.0.3',
  info: { title: 'Acme Model API', version: '1.4.0' },
  components: {
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    schemas: {
      ChatRequest: {
        type: 'object',
        properties: {
          model: { type: 'string' },
          messages: { type: 'array', items: { $ref: '#/components/schemas/Message' } },
          temperature: { type: 'number' },
          max_tokens: { type: 'integer' },
        },
      },
      Message: { type: 'object', properties: { role: { type: 'string' }, content: { type: 'string' } } },
      ChatResponse: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          customer: { $ref: '#/components/schemas/Customer' },
          choices: { type: 'array', items: { type: 'object', properties: { message: { $ref: '#/components/schemas/Message' } } } },
        },
      },
      Customer: {
        type: 'object',
        properties: {
          email: { type: 'string' },
          card_number: { type: 'string' },
          // A cycle: the reader must expand each $ref once.
          referred_by: { $ref: '#/components/schemas/Customer' },
        },
      },
    },
  },
  security: [{ bearerAuth: [] }],
  paths: {
    '/v1/chat/completions': {
      post: {
        operationId: 'createChatCompletion',
        summary: 'Create a chat completion',
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/ChatRequest' } } } },
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/ChatResponse' } } } } },
      },
    },
    '/v1/models': { get: { operationId: 'listModels', responses: { '200': { description: 'ok' } } } },
    '/health': { get: { security: [], responses: { '200': { description: 'ok' } } } },
  },
};

/** The same kind of API in YAML (OpenAPI 3.1), with an anchor reused through an alias. */
export const CHAT_API_YAML = `openapi: 3.1.0
info:
  title: Acme Model API (YAML)
  version: 2.0.0
components:
  securitySchemes:
    bearerAuth:
      type: http
      scheme: bearer
  schemas:
    Message: &message
      type: object
      properties:
        role: { type: string }
        content: { type: string }
    Reply: *message
    Account:
      type: object
      properties:
        email: { type: string }
        cardNumber: { type: string }
security:
  - bearerAuth: []
paths:
  /v1/chat/completions:
    post:
      operationId: chatCompletions
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                messages:
                  type: array
                  items: { $ref: '#/components/schemas/Message' }
                prompt: { type: string }
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Account' }
`;

/** Swagger 2.0 with an API key in the query string and an unauthenticated embeddings operation. */
export const SWAGGER_DOCUMENT = {
  swagger: '2.0',
  info: { title: 'Legacy Embeddings', version: '0.9' },
  securityDefinitions: { queryKey: { type: 'apiKey', in: 'query', name: 'api_key' } },
  paths: {
    '/embeddings': {
      post: {
        security: [],
        parameters: [{ in: 'body', name: 'body', schema: { type: 'object', properties: { input: { type: 'string' }, patient_id: { type: 'string' } } } }],
        responses: { '200': { description: 'ok', schema: { type: 'object', properties: { embedding: { type: 'array', items: { type: 'number' } } } } } },
      },
    },
    '/users/{id}': {
      get: {
        security: [{ queryKey: [] }],
        parameters: [{ in: 'path', name: 'id', type: 'string' }],
        responses: { '200': { description: 'ok', schema: { type: 'object', properties: { password: { type: 'string' }, date_of_birth: { type: 'string' } } } } },
      },
    },
  },
};

/** "Billion laughs": nine levels of nine aliases each. */
export const ALIAS_BOMB_YAML = [
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  ...['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'].map((name, index) => {
    const previous = String.fromCharCode('a'.charCodeAt(0) + index);
    return `${name}: &${name} [${Array.from({ length: 9 }, () => `*${previous}`).join(',')}]`;
  }),
  'openapi: 3.0.0',
  'paths: {}',
].join('\n');

export const HUGE_DOCUMENT_BYTES = 6 * 1024 * 1024;

export interface FakeOpenApiHost {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  /** Paths requested, in order. */
  requests: string[];
  close(): Promise<void>;
}

export async function startFakeOpenApiHost(): Promise<FakeOpenApiHost> {
  const requests: string[] = [];
  let port = 0;
  const server: Server = createServer((request, response) => {
    const path = request.url ?? '/';
    requests.push(path);
    const send = (status: number, type: string, body: string) => response.writeHead(status, { 'content-type': type }).end(body);
    switch (path) {
      case '/openapi.json':
      case '/v1/openapi.json':
        return send(200, 'application/json', JSON.stringify(CHAT_API_DOCUMENT));
      case '/specs/chat.yaml':
        return send(200, 'application/yaml', CHAT_API_YAML);
      case '/specs/swagger.json':
        return send(200, 'application/json', JSON.stringify(SWAGGER_DOCUMENT));
      case '/moved.json':
        return response.writeHead(301, { location: '/openapi.json' }).end();
      case '/elsewhere.json':
        // localhost is another origin than 127.0.0.1: the reader must not follow.
        return response.writeHead(302, { location: `http://localhost:${port}/openapi.json` }).end();
      case '/huge.json': {
        response.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        response.write('{"openapi":"3.0.0","x-padding":"');
        let sent = 0;
        const pump = () => {
          while (sent < HUGE_DOCUMENT_BYTES) {
            sent += chunk.length;
            if (!response.write(chunk)) {
              response.once('drain', pump);
              return;
            }
          }
          response.end('","paths":{}}');
        };
        response.on('error', () => undefined);
        return pump();
      }
      case '/garbage':
        return send(200, 'text/html', '<html><body>Not an API document</body></html>');
      case '/broken.json':
        return send(200, 'application/json', '{"openapi": "3.0.0", "paths": {');
      case '/bomb.yaml':
        return send(200, 'application/yaml', ALIAS_BOMB_YAML);
      case '/deep.json':
        return send(200, 'application/json', `{"openapi":"3.0.0","paths":{},"x":${'['.repeat(100)}${']'.repeat(100)}}`);
      case '/not-a-spec.json':
        return send(200, 'application/json', JSON.stringify({ hello: 'world' }));
      default:
        return send(404, 'application/json', '{"error":"not found"}');
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
