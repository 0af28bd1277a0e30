// The console's API client: openapi-fetch typed by src/api/openapi.ts (generated from the gateway's
// own /openapi.json), with the signed-in token on every request. A problem (RFC 9457) answer comes
// back as `error`; `problemText` turns it into one line for the page.
import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from '../../../src/api/openapi';

export type { paths };

const TOKEN_KEY = 'parapet.token';

/** The token is kept for this tab only (sessionStorage), never in localStorage or a cookie. */
export const tokenStore = {
  get: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  set: (token: string) => sessionStorage.setItem(TOKEN_KEY, token),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

const withToken: Middleware = {
  onRequest({ request }) {
    const token = tokenStore.get();
    if (token !== null) request.headers.set('authorization', `Bearer ${token}`);
    return request;
  },
};

export const api = createClient<paths>({ baseUrl: window.location.origin });
api.use(withToken);

/** A problem body's title and detail (or whatever the error was) as one line. */
export function problemText(error: unknown): string {
  if (error !== null && typeof error === 'object') {
    const problem = error as { title?: unknown; detail?: unknown };
    const parts = [problem.title, problem.detail].filter((part): part is string => typeof part === 'string' && part !== '');
    if (parts.length > 0) return parts.join(': ');
  }
  return error instanceof Error ? error.message : 'The request failed.';
}
