// The metrics reports a reader thread runs (src/infra/store/reader.ts).
import type { Clock } from '../../infra/lib/clock.js';
import type { ReadStore } from '../../infra/store/reader.js';
import type { BreakdownQuery, MetricsQuery } from './schemas.js';
import { MetricsService } from './service.js';

export const METRICS_REPORT_JOBS = {
  'metrics.summary': (store: ReadStore, clock: Clock, query: MetricsQuery) => new MetricsService(store, clock).summary(query),
  'metrics.errors': (store: ReadStore, clock: Clock, query: MetricsQuery) => new MetricsService(store, clock).errors(query),
  'metrics.rules': (store: ReadStore, clock: Clock, query: MetricsQuery) => new MetricsService(store, clock).rules(query),
  'metrics.breakdown': (store: ReadStore, clock: Clock, query: BreakdownQuery) => new MetricsService(store, clock).breakdown(query),
};
