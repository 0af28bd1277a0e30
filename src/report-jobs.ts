// Every area's reports, in the one table the report reader threads load (src/infra/store/reader.ts
// imports it by URL, so the store depends on no area). A new report: add it to its area's
// report-jobs.ts; a new area with reports: spread its table here.
import { BOARD_REPORT_JOBS } from './areas/board/report-jobs.js';
import { EXPORT_REPORT_JOBS } from './areas/export/report-jobs.js';
import { GUARDRAIL_REPORT_JOBS } from './areas/guardrails/report-jobs.js';
import { METRICS_REPORT_JOBS } from './areas/metrics/report-jobs.js';
import { TRACE_REPORT_JOBS } from './areas/traces/report-jobs.js';
import { USAGE_REPORT_JOBS } from './areas/usage/report-jobs.js';
import { siblingModule } from './infra/lib/source-worker.js';

export const REPORT_JOBS = {
  ...METRICS_REPORT_JOBS,
  ...GUARDRAIL_REPORT_JOBS,
  ...TRACE_REPORT_JOBS,
  ...EXPORT_REPORT_JOBS,
  ...USAGE_REPORT_JOBS,
  ...BOARD_REPORT_JOBS,
};

/** This module's URL, for the reader threads to load it. */
export const REPORT_JOBS_MODULE = siblingModule(import.meta.url, 'report-jobs');
