// The usage rows a reader thread reads (src/infra/store/reader.ts).
import type { Clock } from '../../infra/lib/clock.js';
import type { ReadStore } from '../../infra/store/reader.js';
import { listUsage } from './store.js';

export const USAGE_REPORT_JOBS = {
  'usage.rows': (store: ReadStore, _clock: Clock, filter: Parameters<typeof listUsage>[1]) => listUsage(store.db, filter),
};
