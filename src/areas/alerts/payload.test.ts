// The chat payload's text rules: escaping, cutting without breaking an escape, masking a URL and
// keeping it out of error text.
import { describe, expect, it } from 'vitest';
import { escapeChat, findingMessage, HEADER_MAX_CHARS, maskUrl, withoutUrl } from './payload.js';

describe('chat payload', () => {
  it('escapes &, < and > so that no value can make a link or a mention', () => {
    expect(escapeChat('<!channel> & <https://x.example|y>')).toBe('&lt;!channel&gt; &amp; &lt;https://x.example|y&gt;');
    expect(escapeChat('plain *bold* text')).toBe('plain *bold* text');
  });

  it('cuts to the limit with an ellipsis, never inside an escape or a surrogate pair', () => {
    const cut = escapeChat(`${'a'.repeat(146)}&&&&`, HEADER_MAX_CHARS);
    expect(cut.length).toBeLessThanOrEqual(HEADER_MAX_CHARS);
    expect(cut).toBe(`${'a'.repeat(146)}…`);
    const emoji = escapeChat(`${'b'.repeat(148)}😀😀`, HEADER_MAX_CHARS);
    expect(emoji).toBe(`${'b'.repeat(148)}…`);
    expect(emoji.isWellFormed()).toBe(true);
    for (let length = 140; length < 160; length += 1) {
      const text = escapeChat('x&<>'.repeat(60).slice(0, length) + '&'.repeat(40), HEADER_MAX_CHARS);
      expect(text.length).toBeLessThanOrEqual(HEADER_MAX_CHARS);
      // Every & left starts a whole escape.
      expect(text.replace(/&(amp|lt|gt);/g, '')).not.toContain('&');
    }
  });

  it('puts a long title in the header under the chat tool limit, and no evidence anywhere', () => {
    const message = findingMessage({
      id: 'fnd_1',
      fingerprint: 'a'.repeat(64),
      type: 'hardcoded_secret',
      severity: 'high',
      title: '<'.repeat(400),
      subject: 's'.repeat(1000),
      agent: null,
      at: '2026-01-01T00:00:00.000Z',
      occurrences: 2,
    });
    const header = message.blocks[0] as { text: { text: string } };
    expect(header.text.text.length).toBeLessThanOrEqual(HEADER_MAX_CHARS);
    const section = message.blocks[1] as { fields: Array<{ text: string }> };
    expect(section.fields.every((field) => field.text.length <= 320)).toBe(true);
    expect(section.fields[3]?.text).toBe('*Agent*\n—');
    expect(message.blocks[2]).toEqual({ type: 'context', elements: [{ type: 'mrkdwn', text: `Parapet finding fnd_1 · fingerprint ${'a'.repeat(12)}` }] });
  });

  it('masks a URL to scheme, host and its last four characters, none when the path is short', () => {
    expect(maskUrl('https://hooks.chat.example/services/T0/B0/abcdef123456')).toBe('https://hooks.chat.example/…3456');
    expect(maskUrl('https://hooks.chat.example:8443/x')).toBe('https://hooks.chat.example:8443/…');
    const url = 'https://hooks.chat.example/services/T0/B0/abcdef123456?token=zz';
    expect(withoutUrl(`POST ${url} failed; path /services/T0/B0/abcdef123456?token=zz`, url)).toBe('POST https://hooks.chat.example/…n=zz failed; path /…');
  });
});
