// Metric building blocks kept off prom-client's hot path: plain per-bucket latency counts and
// metrics whose samples are computed when scraped. Used by the HTTP edge, the pipeline and the recorder.
import type { Metric } from 'prom-client';

/** Upper bounds of the latency buckets, in seconds. */
export const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** A latency distribution kept as plain per-bucket counts (not cumulative; the last slot is +Inf). */
export class Latencies {
  readonly buckets = new Float64Array(BUCKETS.length + 1);
  sumSeconds = 0;
  count = 0;

  add(seconds: number): void {
    let bucket = 0;
    while (bucket < BUCKETS.length && seconds > (BUCKETS[bucket] as number)) bucket += 1;
    this.buckets[bucket] = (this.buckets[bucket] as number) + 1;
    this.sumSeconds += seconds;
    this.count += 1;
  }
}

export interface Sample {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}

/** A metric whose samples are computed at scrape time, registered with prom-client's registry. */
export function scrapedMetric(name: string, help: string, type: 'counter' | 'histogram', samples: () => Sample[]): Metric {
  const metric = {
    name,
    help,
    type,
    aggregator: 'sum',
    get: async () => ({ name, help, type, aggregator: 'sum', values: samples() }),
    reset: () => undefined,
  };
  return metric as unknown as Metric;
}

/** Prometheus histogram samples (cumulative buckets, sum, count) from plain per-bucket counts. */
export function bucketSamples(
  name: string,
  labels: Record<string, string>,
  stats: { buckets: Float64Array; sumSeconds: number; count: number },
): Sample[] {
  const samples: Sample[] = [];
  let cumulative = 0;
  BUCKETS.forEach((bound, index) => {
    cumulative += stats.buckets[index] as number;
    samples.push({ metricName: `${name}_bucket`, labels: { ...labels, le: bound }, value: cumulative });
  });
  samples.push({ metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: stats.count });
  samples.push({ metricName: `${name}_sum`, labels, value: stats.sumSeconds });
  samples.push({ metricName: `${name}_count`, labels, value: stats.count });
  return samples;
}
