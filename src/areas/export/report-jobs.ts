// The SIEM export a reader thread runs (src/infra/store/reader.ts).
import type { Clock } from '../../infra/lib/clock.js';
import type { ReadStore } from '../../infra/store/reader.js';
import { GATEWAY_VERSION } from '../system/version.js';
import type { ExportSiemQuery } from './schemas.js';
import { ExportService } from './service.js';

export const EXPORT_REPORT_JOBS = {
  'export.siem': (store: ReadStore, clock: Clock, query: ExportSiemQuery) => new ExportService(store, clock, GATEWAY_VERSION).siem(query),
};
