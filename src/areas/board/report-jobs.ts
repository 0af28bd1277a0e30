// The board report a reader thread runs (src/infra/store/reader.ts).
import type { Clock } from '../../infra/lib/clock.js';
import type { ReadStore } from '../../infra/store/reader.js';
import { boardCounts, type BoardCountsQuery } from './service.js';

export const BOARD_REPORT_JOBS = {
  'board.counts': (store: ReadStore, clock: Clock, query: BoardCountsQuery) => boardCounts(store, clock, query),
};
