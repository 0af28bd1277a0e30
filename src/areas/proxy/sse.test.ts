// The event-stream parser: events split anywhere, CRLF and CR line ends, several data lines.
import { describe, expect, it } from 'vitest';
import { SseParser } from './sse.js';

describe('SseParser', () => {
  const stream = 'data: {"a":1}\n\n: comment\ndata: first\ndata: second\n\nevent: x\r\ndata: crlf\r\n\r\ndata: [DONE]\n\n';
  const expected = ['{"a":1}', 'first\nsecond', 'crlf', '[DONE]'];

  it('reads whole events', () => {
    expect(new SseParser().push(stream)).toEqual(expected);
  });

  it.each([1, 2, 3, 7])('reads events split into pieces of %i characters', (size) => {
    const parser = new SseParser();
    const events: string[] = [];
    for (let at = 0; at < stream.length; at += size) events.push(...parser.push(Buffer.from(stream.slice(at, at + size))));
    expect(events).toEqual(expected);
  });

  it('keeps multi-byte characters split between buffers', () => {
    const bytes = Buffer.from('data: héllo ✓\n\n');
    const parser = new SseParser();
    const events = [...parser.push(bytes.subarray(0, 8)), ...parser.push(bytes.subarray(8, 15)), ...parser.push(bytes.subarray(15))];
    expect(events).toEqual(['héllo ✓']);
  });

  it('returns an event left without its blank line at the end', () => {
    const parser = new SseParser();
    expect(parser.push('data: last')).toEqual([]);
    expect(parser.end()).toEqual(['last']);
  });
});
