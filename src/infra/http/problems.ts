// The problem catalogue (RFC 9457). Services throw `problem(...)`; one error handler writes them as
// application/problem+json. A verdict is a value and never goes through here.

export interface FieldError {
  /** JSON pointer-like path of the bad field, e.g. `/body/ttl_days`. */
  field: string;
  message: string;
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  errors?: FieldError[];
}

const CATALOGUE = {
  'invalid-request': { status: 400, title: 'The request is malformed or invalid' },
  'unauthenticated': { status: 401, title: 'No valid credential was presented' },
  'forbidden': { status: 403, title: 'The credential may not do this' },
  'unknown-id': { status: 404, title: 'No such resource' },
  'unknown-route': { status: 404, title: 'No such route' },
  'conflict': { status: 409, title: 'The request conflicts with the current state' },
  'body-too-large': { status: 413, title: 'The request body is too large' },
  'request-timeout': { status: 408, title: 'The request did not arrive in time' },
  'uri-too-long': { status: 414, title: 'The request URI is too long' },
  'unsupported-media-type': { status: 415, title: 'The request body has an unsupported content type' },
  'refused': { status: 422, title: 'The request was understood and refused' },
  'rate-limited': { status: 429, title: 'Too many requests' },
  'headers-too-large': { status: 431, title: 'The request headers are too large' },
  'internal': { status: 500, title: 'Internal error' },
  'unavailable': { status: 503, title: 'The service is not available' },
  'bad-gateway': { status: 502, title: 'A service the gateway called did not answer as it should' },
} as const;

export type ProblemSlug = keyof typeof CATALOGUE;

export const PROBLEM_TYPE_PREFIX = 'urn:parapet:problem:';

export class Problem extends Error {
  readonly status: number;
  readonly type: string;
  readonly title: string;

  constructor(
    readonly slug: ProblemSlug,
    readonly detail: string,
    readonly errors?: FieldError[],
    /** Extra response headers, such as Retry-After on 429. */
    readonly headers?: Record<string, string>,
  ) {
    super(detail);
    this.status = CATALOGUE[slug].status;
    this.title = CATALOGUE[slug].title;
    this.type = PROBLEM_TYPE_PREFIX + slug;
  }

  toBody(instance?: string): ProblemBody {
    const body: ProblemBody = { type: this.type, title: this.title, status: this.status, detail: this.detail };
    if (instance !== undefined) body.instance = instance;
    if (this.errors !== undefined) body.errors = this.errors;
    return body;
  }
}

export function problem(slug: ProblemSlug, detail: string, errors?: FieldError[]): Problem {
  return new Problem(slug, detail, errors);
}

export const notFound = (what: string, id: string): Problem => problem('unknown-id', `no ${what} with id ${id}`);
