// Scorers over what an answer cost: latency (milliseconds) and cost (US dollars), each against a
// maximum; the score is the measured value itself.
import { defineScorer, formatNumber, numberParam, type ScorerDefinition } from './common.js';

export const DEFAULT_MAX_MS = 5000;
export const DEFAULT_MAX_USD = 0.05;
/** An hour: a larger latency budget is a mistake. */
const LATENCY_CEILING_MS = 3_600_000;
const COST_CEILING_USD = 1000;

export const latencyScorer: ScorerDefinition = defineScorer({
  name: 'latency',
  description: `The answer took at most params.max_ms milliseconds (default ${DEFAULT_MAX_MS}; an explicit threshold overrides). Score = milliseconds.`,
  params: [{ name: 'max_ms', type: 'number', required: false, description: 'the slowest passing answer, in milliseconds', default: DEFAULT_MAX_MS }],
  appliesTo: ['guard', 'model', 'http', 'online'],
  thresholdKind: 'max',
  defaultThreshold: DEFAULT_MAX_MS,
  thresholdRange: [0, LATENCY_CEILING_MS],
  checkParams: (params) => {
    const max = params.max_ms;
    if (max === undefined) return null;
    return typeof max === 'number' && max >= 0 && max <= LATENCY_CEILING_MS ? null : `max_ms takes 0 to ${LATENCY_CEILING_MS}`;
  },
  implicitThreshold: (params) => numberParam(params, 'max_ms') ?? DEFAULT_MAX_MS,
  relevant: () => true,
  evaluate: (subject, _params, threshold) => {
    if (subject.latencyMs === null) return null;
    const max = threshold ?? DEFAULT_MAX_MS;
    const passed = subject.latencyMs <= max;
    return { score: subject.latencyMs, passed, threshold: max, reason: `${formatNumber(subject.latencyMs)} ms ${passed ? 'within' : 'over'} the ${formatNumber(max)} ms limit` };
  },
});

export const costScorer: ScorerDefinition = defineScorer({
  name: 'cost',
  description: `The answer cost at most params.max_usd US dollars (default ${DEFAULT_MAX_USD}; an explicit threshold overrides); not applicable when the cost is unknown. Score = dollars.`,
  params: [{ name: 'max_usd', type: 'number', required: false, description: 'the dearest passing answer, in US dollars', default: DEFAULT_MAX_USD }],
  appliesTo: ['model', 'http', 'online'],
  thresholdKind: 'max',
  defaultThreshold: DEFAULT_MAX_USD,
  thresholdRange: [0, COST_CEILING_USD],
  checkParams: (params) => {
    const max = params.max_usd;
    if (max === undefined) return null;
    return typeof max === 'number' && max >= 0 && max <= COST_CEILING_USD ? null : `max_usd takes 0 to ${COST_CEILING_USD}`;
  },
  implicitThreshold: (params) => numberParam(params, 'max_usd') ?? DEFAULT_MAX_USD,
  relevant: () => true,
  evaluate: (subject, _params, threshold) => {
    if (subject.costUsd === null) return null;
    const max = threshold ?? DEFAULT_MAX_USD;
    const passed = subject.costUsd <= max;
    return { score: subject.costUsd, passed, threshold: max, reason: `$${subject.costUsd.toFixed(6).replace(/0+$/, '').replace(/\.$/, '')} ${passed ? 'within' : 'over'} the $${formatNumber(max)} limit` };
  },
});
