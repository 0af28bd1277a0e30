// How a new hand-off is announced to people in the chat channel (src/areas/alerts): who should take
// it, why, and by when; never the conversation's text (it may hold personal data).
import type { Notice } from '../alerts/payload.js';
import type { HandoffRow } from './store.js';

export function handoffNotice(handoff: HandoffRow): Notice {
  let reasons: string[] = [];
  try {
    const parsed: unknown = JSON.parse(handoff.reasons);
    if (Array.isArray(parsed)) reasons = parsed.map((reason) => String((reason as { condition?: unknown }).condition ?? '')).filter((name) => name !== '');
  } catch {
    // A row always holds JSON; an unreadable one is announced without reasons.
  }
  return {
    title: `${handoff.retroactive === 1 ? 'Missed hand-off' : 'Hand-off'} for ${handoff.owner_role}: agent ${handoff.agent}`,
    fields: [
      ['Agent', handoff.agent],
      ['Session', handoff.session_id],
      ['Why', reasons.length === 0 ? '—' : reasons.join(', ')],
      ['Owner role', handoff.owner_role],
      ['Acknowledge by', handoff.due_at],
      ['Mode', handoff.mode],
    ],
    context: `Parapet hand-off ${handoff.id} · POST /api/escalation/handoffs/${handoff.id}/acknowledge`,
  };
}
