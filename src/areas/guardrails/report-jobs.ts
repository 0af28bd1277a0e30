// The guardrail reports a reader thread runs (src/infra/store/reader.ts).
import type { Clock } from '../../infra/lib/clock.js';
import type { ReadStore } from '../../infra/store/reader.js';
import { GuardrailReports } from './reports.js';
import type { LatencyQuery, PrecisionQuery, RecommendationsQuery } from './schemas.js';

export const GUARDRAIL_REPORT_JOBS = {
  'guardrails.precision': (store: ReadStore, clock: Clock, query: PrecisionQuery) => new GuardrailReports(store, clock).precision(query),
  'guardrails.latency': (store: ReadStore, clock: Clock, query: LatencyQuery) => new GuardrailReports(store, clock).latency(query),
  'guardrails.recommendations': (store: ReadStore, clock: Clock, query: RecommendationsQuery) => new GuardrailReports(store, clock).recommendations(query),
};
