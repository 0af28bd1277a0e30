// The reports a reader thread runs (src/store/reader.ts): each builds its answer with the area's
// own service over the reader's read-only store, at the caller's time.
import { ExportService } from './export/service.js';
import type { ExportSiemQuery } from './export/schemas.js';
import { GuardrailReports } from './guardrails/reports.js';
import type { LatencyQuery, PrecisionQuery, RecommendationsQuery } from './guardrails/schemas.js';
import type { Clock } from '../infra/lib/clock.js';
import { listUsage } from './usage/store.js';
import { GATEWAY_VERSION } from './system/version.js';
import { MetricsService } from './traces/metrics.js';
import type { BreakdownQuery, ListTracesQuery, MetricsQuery } from './traces/schemas.js';
import { TraceService } from './traces/service.js';
import type { ReadStore } from '../infra/store/reader.js';

export const REPORT_JOBS = {
  'metrics.summary': (store: ReadStore, clock: Clock, query: MetricsQuery) => new MetricsService(store, clock).summary(query),
  'metrics.errors': (store: ReadStore, clock: Clock, query: MetricsQuery) => new MetricsService(store, clock).errors(query),
  'metrics.rules': (store: ReadStore, clock: Clock, query: MetricsQuery) => new MetricsService(store, clock).rules(query),
  'metrics.breakdown': (store: ReadStore, clock: Clock, query: BreakdownQuery) => new MetricsService(store, clock).breakdown(query),
  'guardrails.precision': (store: ReadStore, clock: Clock, query: PrecisionQuery) => new GuardrailReports(store, clock).precision(query),
  'guardrails.latency': (store: ReadStore, clock: Clock, query: LatencyQuery) => new GuardrailReports(store, clock).latency(query),
  'guardrails.recommendations': (store: ReadStore, clock: Clock, query: RecommendationsQuery) => new GuardrailReports(store, clock).recommendations(query),
  'traces.search': (store: ReadStore, clock: Clock, query: ListTracesQuery) => new TraceService(store, clock).list(query),
  'export.siem': (store: ReadStore, clock: Clock, query: ExportSiemQuery) => new ExportService(store, clock, GATEWAY_VERSION).siem(query),
  'usage.rows': (store: ReadStore, _clock: Clock, filter: Parameters<typeof listUsage>[1]) => listUsage(store.db, filter),
};

export type ReportJobs = typeof REPORT_JOBS;
