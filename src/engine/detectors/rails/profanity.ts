// Hot path: no I/O here. rails.catalog.profanity: English profanity, with leetspeak, repeated
// letters and confusable characters resolved, read by the `obscenity` package (MIT) and its
// English dataset, which already keeps look-alikes such as "Scunthorpe", "assassin", "cocktail"
// and "Dickens" out. Words that are also ordinary words or names ("dick", "cock", "cum", "tit",
// "ass") score lower, so a policy can act only on the unambiguous ones. Cost: ~0.5 ms per KB,
// linear (1 MB in about a second, which the runner scans in pieces).
import { englishDataset, englishRecommendedTransformers, RegExpMatcher } from 'obscenity';
import type { Detection } from '../types.js';
import { MAX_DETECTIONS, type CatalogValidator } from './catalog.js';

const AMBIGUOUS = new Set(['dick', 'cock', 'cum', 'tit', 'ass', 'pussy', 'bastard', 'bitch']);
const SCORE = 0.85;
const AMBIGUOUS_SCORE = 0.5;

let matcher: RegExpMatcher | null = null;
function getMatcher(): RegExpMatcher {
  matcher ??= new RegExpMatcher({ ...englishDataset.build(), ...englishRecommendedTransformers });
  return matcher;
}

export function checkProfanity(text: string): Detection[] {
  const found: Detection[] = [];
  const seen = new Set<string>();
  for (const match of getMatcher().getAllMatches(text, true)) {
    if (found.length >= MAX_DETECTIONS) break;
    const start = match.startIndex;
    const end = match.endIndex + 1;
    const key = `${start}:${end}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const word = englishDataset.getPayloadWithPhraseMetadata(match).phraseMetadata?.originalWord ?? 'profanity';
    found.push({
      entity: 'SAFETY.PROFANITY',
      score: AMBIGUOUS.has(word) ? AMBIGUOUS_SCORE : SCORE,
      start,
      end,
      pattern: `obscenity:${word}`,
      explanation: `profanity ("${word}" in the obscenity English dataset${AMBIGUOUS.has(word) ? ', a word with ordinary meanings too' : ''})`,
    });
  }
  return found;
}

export const profanity: CatalogValidator = {
  name: 'profanity',
  entity: 'SAFETY.PROFANITY',
  surfaces: ['input', 'output', 'retrieved', 'tool_result', 'completion', 'agent_message', 'memory_write'],
  costRank: 30,
  available: () => ({ available: true }),
  warmUp: () => {
    getMatcher().hasMatch('warm up');
  },
  check: (text) => checkProfanity(text),
};
