// Pieces of a proxied answer that every wire format shares.
import type { FastifyReply } from 'fastify';
import { problem } from '../http/problems.js';
import type { RunStop } from '../runs/service.js';
import type { CheckedPart } from './checks.js';
import { UpstreamUnavailable, type Upstream, type UpstreamAnswer, type UpstreamCall } from './upstream.js';

/**
 * Sends a call upstream; an upstream that cannot be reached (breaker open, no answer after the
 * retries) is the gateway's 503, with Retry-After when the breaker says when to come back.
 */
export async function sendUpstream(reply: FastifyReply, upstream: Upstream, call: UpstreamCall): Promise<UpstreamAnswer> {
  try {
    return await upstream.send(call);
  } catch (error) {
    if (error instanceof UpstreamUnavailable) {
      if (error.retryAfterSeconds !== null) reply.header('retry-after', String(error.retryAfterSeconds));
      throw problem('unavailable', error.message);
    }
    throw error;
  }
}

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
