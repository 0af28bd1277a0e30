// JSON request bodies: Fastify's own parser (which refuses `__proto__` and `constructor`
// poisoning) behind a nesting limit. JSON.parse itself takes any depth, but much of what runs
// after it walks values recursively (validation, detectors, policy facts, storage), and a body
// nested thousands of levels deep would overflow the stack there. The depth is counted on the raw
// text in one pass that never recurses, before anything parses it.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { problem } from './problems.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * Whether arrays and objects nest deeper than `maxDepth` in JSON `text` (`{}` is depth 1).
 * Brackets inside strings do not count. Text that is not valid JSON gets some answer; the parser
 * that runs next refuses it either way.
 * @example nestsDeeperThan('{"a":[[1]]}', 2) // true
 */
export function nestsDeeperThan(text: string, maxDepth: number): boolean {
  // Exceeding the limit takes more than maxDepth opening brackets.
  if (text.length <= maxDepth) return false;
  let depth = 0;
  let index = 0;
  const length = text.length;
  while (index < length) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      // Jump to the closing quote: one not preceded by an odd run of backslashes. indexOf skips
      // long string contents far faster than a character loop.
      let close = text.indexOf('"', index + 1);
      while (close !== -1 && escaped(text, close)) close = text.indexOf('"', close + 1);
      if (close === -1) return false;
      index = close + 1;
      continue;
    }
    if (code === OPEN_BRACKET || code === OPEN_BRACE) {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if (code === CLOSE_BRACKET || code === CLOSE_BRACE) {
      depth -= 1;
    }
    index += 1;
  }
  return false;
}

function escaped(text: string, quote: number): boolean {
  let backslashes = 0;
  for (let at = quote - 1; text.charCodeAt(at) === BACKSLASH; at -= 1) backslashes += 1;
  return backslashes % 2 === 1;
}

/** Replaces Fastify's application/json parser with the same parser behind the depth limit. */
export const jsonBodyPlugin = fp<{ maxDepth: number }>(
  async (app: FastifyInstance, { maxDepth }) => {
    const parse = app.getDefaultJsonParser('error', 'error');
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      const text = body as string;
      if (nestsDeeperThan(text, maxDepth)) {
        done(problem('invalid-request', `the JSON body nests arrays and objects deeper than ${maxDepth} levels, the gateway's limit (body_max_depth)`), undefined);
        return;
      }
      parse(request, text, done);
    });
  },
  { name: 'parapet-json-body' },
);
