// Decision metrics for /metrics: decisions by surface and verdict, detector latency histograms and
// degraded counts. Hot path: plain counters; the Prometheus text is built when scraped.
import type { Registry } from 'prom-client';
import { Latencies, bucketSamples, scrapedMetric } from '../../infra/lib/metrics.js';
import type { Surface } from '../detectors/types.js';
import type { Decision } from './decide.js';
import type { DetectorRun } from '../detectors/types.js';

export class DecisionMetrics {
  private readonly decisions = new Map<string, { surface: string; verdict: string; effective: string; count: number }>();
  private readonly detectorLatency = new Map<string, Latencies>();
  private readonly degraded = new Map<string, { detector: string; status: string; count: number }>();
  private readonly decisionLatency = new Latencies();

  constructor(registry: Registry) {
    registry.registerMetric(
      scrapedMetric('parapet_decisions_total', 'Decisions by surface, verdict and effective verdict', 'counter', () =>
        [...this.decisions.values()].map((item) => ({
          labels: { surface: item.surface, verdict: item.verdict, effective_verdict: item.effective },
          value: item.count,
        })),
      ),
    );
    registry.registerMetric(
      scrapedMetric('parapet_decision_duration_seconds', 'Time to compute a decision, detectors and policy', 'histogram', () =>
        bucketSamples('parapet_decision_duration_seconds', {}, this.decisionLatency),
      ),
    );
    registry.registerMetric(
      scrapedMetric('parapet_detector_duration_seconds', 'Detector run time by detector', 'histogram', () =>
        [...this.detectorLatency].flatMap(([detector, latencies]) =>
          bucketSamples('parapet_detector_duration_seconds', { detector }, latencies),
        ),
      ),
    );
    registry.registerMetric(
      scrapedMetric('parapet_detector_degraded_total', 'Detector runs that timed out, errored or were skipped', 'counter', () =>
        [...this.degraded.values()].map((item) => ({ labels: { detector: item.detector, status: item.status }, value: item.count })),
      ),
    );
  }

  observe = (decision: Decision, surface: Surface, runs: readonly DetectorRun[], latencyMs: number): void => {
    const key = `${surface}|${decision.verdict}|${decision.effective_verdict}`;
    const counted = this.decisions.get(key);
    if (counted === undefined) {
      this.decisions.set(key, { surface, verdict: decision.verdict, effective: decision.effective_verdict, count: 1 });
    } else counted.count += 1;
    this.decisionLatency.add(latencyMs / 1000);
    for (const run of runs) {
      if (run.cached === true) continue; // nothing ran: a 0 ms sample would misstate detector latency
      let latencies = this.detectorLatency.get(run.key);
      if (latencies === undefined) {
        latencies = new Latencies();
        this.detectorLatency.set(run.key, latencies);
      }
      latencies.add(run.ms / 1000);
      if (run.status === 'ok') continue;
      const degradedKey = `${run.key}|${run.status}`;
      const entry = this.degraded.get(degradedKey);
      if (entry === undefined) this.degraded.set(degradedKey, { detector: run.key, status: run.status, count: 1 });
      else entry.count += 1;
    }
  };
}
