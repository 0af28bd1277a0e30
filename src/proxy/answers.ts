// Pieces of a proxied answer that every wire format shares.
import type { FastifyReply } from 'fastify';
import { problem } from '../http/problems.js';
import type { RunStop } from '../runs/service.js';
import type { CheckedPart } from './checks.js';
import type { UpstreamAnswer } from './upstream.js';

/**
 * An upstream error answer goes back as it came, except that a refusal of the gateway's own key is
 * the gateway's problem (503 naming the setting), not the caller's.
 */
export async function passUpstreamError(reply: FastifyReply, answer: UpstreamAnswer, upstream: string, keySetting: string): Promise<void> {
  const text = await answer.body.text();
  if (answer.status === 401 || answer.status === 403) {
    throw problem('unavailable', `the ${upstream} upstream refused the gateway's key (${answer.status}): check ${keySetting}`);
  }
  const type = answer.headers['content-type'];
  reply.code(answer.status).header('x-parapet-verdict', 'allow');
  const retryAfter = answer.headers['retry-after'];
  if (typeof retryAfter === 'string') reply.header('retry-after', retryAfter);
  reply.type(typeof type === 'string' ? type : 'application/json').send(text);
}

/** How a budget or loop stop appears among the checked parts of `parapet.decisions`. */
export function runPart(stop: RunStop): CheckedPart {
  return { surface: stop.kind === 'loop' ? 'tool_args' : 'input', outcome: 'blocked', ...(stop.tool === undefined ? {} : { tool: stop.tool }), decision: stop.decision };
}
