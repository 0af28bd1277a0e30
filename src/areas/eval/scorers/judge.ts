// The `judge` scorer: a rubric scored 0..1 by a judgment tier (the same tiers and posture as the
// judgment detectors; the grading itself is src/engine/detectors/judgment/rubric.ts).
import { DEFAULT_JUDGE_THRESHOLD, JUDGE_UNAVAILABLE, MAX_RUBRIC_CHARS } from '../../../engine/detectors/judgment/rubric.js';
import { defineScorer, formatNumber, stringParam, type ScorerDefinition } from './common.js';

export { DEFAULT_JUDGE_THRESHOLD, JUDGE_TIMEOUT_MS, JUDGE_UNAVAILABLE, MAX_RUBRIC_CHARS, judgeAvailable, judgeWithTiers } from '../../../engine/detectors/judgment/rubric.js';

export const judgeScorer: ScorerDefinition = defineScorer({
  name: 'judge',
  description: `A judgment tier scores the answer against params.rubric, 0..1 (default threshold ${DEFAULT_JUDGE_THRESHOLD}); only when a judgment tier is configured.`,
  params: [{ name: 'rubric', type: 'string', required: true, description: `what a good answer does, in words (at most ${MAX_RUBRIC_CHARS} characters)` }],
  appliesTo: ['model', 'http', 'online'],
  thresholdKind: 'min',
  defaultThreshold: DEFAULT_JUDGE_THRESHOLD,
  thresholdRange: [0, 1],
  checkParams: (params) => {
    const rubric = stringParam(params, 'rubric') ?? '';
    if (rubric.trim() === '') return 'rubric must say what a good answer does';
    return rubric.length > MAX_RUBRIC_CHARS ? `rubric is longer than ${MAX_RUBRIC_CHARS} characters` : null;
  },
  relevant: () => true,
  evaluate: async (subject, params, threshold, helpers) => {
    const limit = threshold ?? DEFAULT_JUDGE_THRESHOLD;
    if (helpers.judge === null) return { score: null, passed: false, threshold: limit, reason: `not judged: ${JUDGE_UNAVAILABLE}` };
    const rubric = stringParam(params, 'rubric') as string;
    try {
      const { score, reason } = await helpers.judge({ rubric, input: subject.input, output: subject.output });
      const passed = score >= limit;
      return { score, passed, threshold: limit, reason: `judged ${formatNumber(score)} (${passed ? 'at or above' : 'below'} ${formatNumber(limit)}) by ${reason}` };
    } catch (error) {
      return { score: null, passed: false, threshold: limit, reason: `not judged: ${(error as Error).message}` };
    }
  },
});

