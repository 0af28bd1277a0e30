// What the integration areas offer one another (monitors and discovery use the code host and the
// hosted-API reader), so that each area depends on a shape, not on another area's service.
import type { OutboundPolicy } from '../../infra/http/outbound.js';

export type ScanTrigger = 'manual' | 'webhook' | 'monitor' | 'discovery';

/** What a finished code-host scan reported, as monitors compare it. */
export interface CodehostScanSummary {
  scan_id: string;
  repo_full_name: string;
  ref: string | null;
  commit_sha: string | null;
  status: 'completed' | 'failed';
  error: string | null;
  /** Stable, order-free identifiers of what was found (e.g. `framework:langchain`, `mcp_server:github@.mcp.json`). */
  signature: string[];
}

export interface CodehostScanning {
  /** Whether a code-host connection exists. */
  connected(): Promise<boolean>;
  /** Repositories the connection can read (full names), at most `limit`. */
  listRepoNames(limit: number): Promise<string[]>;
  /** Queues a scan (job codehost.scan); the scan row exists when this resolves. */
  queueScan(input: { repo_full_name: string; ref?: string | null; trigger: ScanTrigger; requested_by: string }): Promise<{ scan_id: string; job_id: string }>;
  /** Runs a scan now, in the caller's job, and waits for it. */
  scanNow(input: { repo_full_name: string; ref?: string | null; trigger: ScanTrigger; requested_by: string; signal?: AbortSignal }): Promise<CodehostScanSummary>;
}

/** A hosted API's OpenAPI document, read and summarised. */
export interface HostedApiDocument {
  url: string;
  sha256: string;
  /** `METHOD /path` of every operation. */
  operations: string[];
  model_serving: string[];
  auth: string[];
}

export interface HostedApiReading {
  /** Fetches and reads an OpenAPI document (JSON or YAML) under the outbound policy; throws with a reason. */
  readDocument(url: string, signal?: AbortSignal): Promise<HostedApiDocument>;
}

export type { OutboundPolicy };
