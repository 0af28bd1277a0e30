// The trace search a reader thread runs (src/infra/store/reader.ts): filters on JSON columns can read every decision.
import type { Clock } from '../../infra/lib/clock.js';
import type { ReadStore } from '../../infra/store/reader.js';
import type { ListTracesQuery } from './schemas.js';
import { TraceService } from './service.js';

export const TRACE_REPORT_JOBS = {
  'traces.search': (store: ReadStore, clock: Clock, query: ListTracesQuery) => new TraceService(store, clock).list(query),
};
