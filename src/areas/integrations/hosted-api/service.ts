// Hosted APIs (spec 02 "Integrations"): POST /api/integrations/hosted-api/scan reads an API's
// OpenAPI document under the outbound policy (10 s, 5 MiB, two same-origin redirects at most),
// finds its model-serving operations, how callers authenticate and the data its operations take
// and answer, and records the result (completed, or failed with the reason). Monitors read the same
// document through readDocument to notice changes.
import { createHash } from 'node:crypto';
import { actorOf, type Principal } from '../../../infra/auth/principal.js';
import { outboundRequest, outboundUrlProblem, type OutboundPolicy } from '../../../infra/http/outbound.js';
import { problem, type FieldError } from '../../../infra/http/problems.js';
import type { Clock } from '../../../infra/lib/clock.js';
import { newId } from '../../../infra/lib/ids.js';
import { storableText, storableValue } from '../../../infra/lib/storable-text.js';
import type { Store } from '../../../infra/store/db.js';
import { readJson, writeJson } from '../../../infra/store/json-columns.js';
import type { HostedApiScanRow } from '../../../infra/store/tables.js';
import type { AuditLog } from '../../audit/log.js';
import type { HostedApiDocument, HostedApiReading } from '../contracts.js';
import { DocumentUnreadable, parseDocumentText, summariseDocument } from './openapi.js';
import type { ScanBody, ScanResult, ScanView } from './schemas.js';
import * as scans from './store.js';

export const DOCUMENT_TIMEOUT_MS = 10_000;
export const MAX_DOCUMENT_BYTES = 5 * 1024 * 1024;
export const MAX_DOCUMENT_REDIRECTS = 2;
const MAX_ERROR_CHARS = 500;

export interface HostedApiServiceDeps {
  store: Store;
  audit: AuditLog;
  clock: Clock;
  outbound: OutboundPolicy;
}

interface ReadDocument {
  sha256: string;
  result: ScanResult;
}

/** A read that failed after bytes arrived keeps their digest. */
class ReadFailed extends Error {
  constructor(
    message: string,
    readonly sha256: string | null,
  ) {
    super(message);
  }
}

export class HostedApiService implements HostedApiReading {
  constructor(readonly deps: HostedApiServiceDeps) {}

  /** Scans the API's document and records the outcome (completed or failed); a URL the policy forbids is 422 and not recorded. */
  async scan(caller: Principal, body: ScanBody): Promise<ScanView> {
    const { audit, clock, outbound } = this.deps;
    const errors: FieldError[] = [];
    for (const field of ['endpoint_url', 'docs_url', 'openapi_spec_url'] as const) {
      const url = body[field];
      if (url === undefined || url === null) continue;
      const refusal = outboundUrlProblem(url, outbound);
      if (refusal !== null) errors.push({ field: `/body/${field}`, message: refusal });
    }
    if (errors.length > 0) throw problem('refused', `the outbound policy forbids ${errors.map((error) => error.field.slice('/body/'.length)).join(', ')}`, errors);
    const documentUrl = documentUrlOf(body.endpoint_url, body.openapi_spec_url ?? null);

    let read: ReadDocument | undefined;
    let failure: ReadFailed | undefined;
    try {
      read = await this.read(documentUrl);
    } catch (error) {
      failure = error instanceof ReadFailed ? error : new ReadFailed(reasonOf(error), null);
    }
    const actor = actorOf(caller);
    const row: HostedApiScanRow = {
      id: newId('has'),
      endpoint_url: storableText(body.endpoint_url),
      docs_url: optionalText(body.docs_url),
      openapi_spec_url: optionalText(body.openapi_spec_url),
      purpose: optionalText(body.purpose),
      status: read === undefined ? 'failed' : 'completed',
      document_sha256: read?.sha256 ?? failure?.sha256 ?? null,
      result: read === undefined ? null : writeJson(storableValue(read.result)),
      error: failure === undefined ? null : storableText(failure.message.slice(0, MAX_ERROR_CHARS)),
      created_by: actor,
      created_at: clock.now().toISOString(),
    };
    await audit.transact(async (trx, append) => {
      await scans.insertScan(trx, row);
      await append({
        actor,
        action: 'hosted_api.scanned',
        target: row.id,
        detail: {
          endpoint_url: row.endpoint_url,
          document_url: storableText(documentUrl),
          status: row.status,
          document_sha256: row.document_sha256,
          operations: read?.result.operations_count ?? null,
          model_serving: read?.result.model_serving.length ?? null,
          data_classes: read?.result.data_classes ?? [],
          error: row.error,
        },
      });
    });
    return scanToWire(row);
  }

  async readDocument(url: string, signal?: AbortSignal): Promise<HostedApiDocument> {
    const refusal = outboundUrlProblem(url, this.deps.outbound);
    if (refusal !== null) throw new Error(`the outbound policy forbids ${url}: ${refusal}`);
    let read: ReadDocument;
    try {
      read = await this.read(url, signal);
    } catch (error) {
      throw new Error(error instanceof ReadFailed ? error.message : reasonOf(error));
    }
    return {
      url,
      sha256: read.sha256,
      operations: read.result.operations,
      model_serving: read.result.model_serving.map((item) => item.operation),
      auth: read.result.auth.summary,
    };
  }

  /** Fetches and summarises one document; throws ReadFailed (or the fetch's own error) with the reason. */
  private async read(url: string, signal?: AbortSignal): Promise<ReadDocument> {
    const answer = await outboundRequest(url, this.deps.outbound, {
      headers: { accept: 'application/json, application/yaml;q=0.9, text/yaml;q=0.9, */*;q=0.1' },
      timeoutMs: DOCUMENT_TIMEOUT_MS,
      maxBytes: MAX_DOCUMENT_BYTES,
      maxRedirects: MAX_DOCUMENT_REDIRECTS,
      ...(signal === undefined ? {} : { signal }),
    });
    if (answer.truncated) throw new ReadFailed(`the document is larger than ${MAX_DOCUMENT_BYTES / 1024 / 1024} MiB; not read`, null);
    const bytes = Buffer.byteLength(answer.body, 'utf8');
    const sha256 = createHash('sha256').update(answer.body, 'utf8').digest('hex');
    if (answer.status < 200 || answer.status > 299) throw new ReadFailed(`the document URL answered HTTP ${answer.status}`, sha256);
    try {
      const parsed = parseDocumentText(answer.body);
      const summary = summariseDocument(parsed.value);
      return { sha256, result: { document_url: answer.url, format: parsed.format, bytes, ...summary } };
    } catch (error) {
      if (error instanceof DocumentUnreadable) throw new ReadFailed(error.message, sha256);
      throw error;
    }
  }
}

/** `openapi_spec_url`, else `<endpoint_url>/openapi.json` (without the endpoint's query or fragment). */
export function documentUrlOf(endpointUrl: string, specUrl: string | null): string {
  if (specUrl !== null) return specUrl;
  const url = new URL(endpointUrl);
  let path = url.pathname;
  while (path.endsWith('/')) path = path.slice(0, -1);
  url.pathname = `${path}/openapi.json`;
  url.search = '';
  url.hash = '';
  return url.href;
}

function optionalText(text: string | null | undefined): string | null {
  return text === undefined || text === null ? null : storableText(text);
}

/** A fetch failure in words an operator can act on (no stack, bounded). */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return 'the document could not be read';
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return `no complete answer within ${DOCUMENT_TIMEOUT_MS / 1000} s`;
  const code = (error as { code?: unknown }).code;
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  const detail = typeof cause?.message === 'string' && cause.message !== '' ? `: ${cause.message}` : '';
  const prefix = typeof code === 'string' ? `${code}: ` : typeof cause?.code === 'string' ? `${cause.code}: ` : '';
  return `${prefix}${error.message}${detail}`.slice(0, MAX_ERROR_CHARS);
}

function scanToWire(row: HostedApiScanRow): ScanView {
  return {
    id: row.id,
    status: row.status === 'completed' ? 'completed' : 'failed',
    endpoint_url: row.endpoint_url,
    docs_url: row.docs_url,
    openapi_spec_url: row.openapi_spec_url,
    purpose: row.purpose,
    document_url: documentUrlOf(row.endpoint_url, row.openapi_spec_url),
    document_sha256: row.document_sha256,
    result: row.result === null ? null : readJson<ScanResult | null>(row.result, null),
    error: row.error,
    created_by: row.created_by,
    created_at: row.created_at,
  };
}
