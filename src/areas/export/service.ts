// SIEM export (spec 01 §6): findings seen in the last `since_days`, newest first by last_seen_at,
// written as JSON lines, a JSON array, CEF lines or OCSF Detection Findings. Reads only.
import type { Clock } from '../../infra/lib/clock.js';
import type { ReadStore } from '../../infra/store/reader.js';
import { findingEvent, toCef, toOcsf, type SiemFormat } from './formats.js';
import type { ExportSiemQuery } from './schemas.js';
import { listFindingsSeenSince } from './store.js';

export interface SiemExport {
  contentType: string;
  body: string;
}

export const SIEM_CONTENT_TYPES: Record<SiemFormat, string> = {
  jsonl: 'application/x-ndjson; charset=utf-8',
  json: 'application/json; charset=utf-8',
  cef: 'text/plain; charset=utf-8',
  ocsf: 'application/json; charset=utf-8',
};

export class ExportService {
  constructor(
    private readonly store: ReadStore,
    private readonly clock: Clock,
    private readonly version: string,
  ) {}

  async siem(query: ExportSiemQuery): Promise<SiemExport> {
    const format = query.format ?? 'jsonl';
    const since = new Date(this.clock.now().getTime() - (query.since_days ?? 1) * 86_400_000).toISOString();
    const rows = await listFindingsSeenSince(this.store.db, since, query.limit ?? 1000);
    const events = rows.map(findingEvent);
    // Every event is built field by field from the row (formats.ts), so nothing unnamed leaks;
    // the body is written here because three of the four formats are not one JSON document.
    let body: string;
    switch (format) {
      case 'jsonl':
        body = events.map((event) => `${JSON.stringify(event)}\n`).join('');
        break;
      case 'json':
        body = JSON.stringify(events);
        break;
      case 'cef':
        body = events.map((event) => `${toCef(event, this.version)}\n`).join('');
        break;
      case 'ocsf':
        body = JSON.stringify(events.map((event) => toOcsf(event, this.version)));
        break;
    }
    return { contentType: SIEM_CONTENT_TYPES[format], body };
  }
}
