// The SSRF address check: which hosts count as internal, for the forms an attacker writes. A URL's
// host comes normalised by the WHATWG URL parser; a host from a shell command (ssh, nc, scp) comes raw.
import { describe, expect, it } from 'vitest';
import { internalHost } from './http.js';

const LOOPBACK = 'loopback';
const THIS_HOST = 'this host (0.0.0.0/8)';
const PRIVATE = 'a private address';
const CGN = 'a carrier-grade NAT address';
const LINK_LOCAL_V4 = 'a link-local cloud metadata address';
const METADATA = 'a cloud metadata address';
const ULA = 'a private (ULA) address';
const LINK_LOCAL_V6 = 'a link-local address';
const NAME = 'an internal name';

/** The reason for a host, or null when it is public. */
const why = (host: string): string | null => internalHost(host)?.why ?? null;

describe('internalHost, hosts of URLs', () => {
  it.each([
    // IPv4, and the shorthand forms the URL parser turns into a dotted quad.
    ['http://127.0.0.1/', LOOPBACK],
    ['http://127.1/', LOOPBACK],
    ['http://2130706433/', LOOPBACK],
    ['http://0x7f000001/', LOOPBACK],
    ['http://0177.0.0.1/', LOOPBACK],
    ['http://0x7f.0.0.1/', LOOPBACK],
    ['http://017700000001/', LOOPBACK],
    ['http://%31%32%37.0.0.1/', LOOPBACK],
    ['http://0/', THIS_HOST],
    ['http://0.0.0.0/', THIS_HOST],
    ['http://10.1.2.3/', PRIVATE],
    ['http://10.0.0.1./', PRIVATE],
    ['http://172.16.0.1/', PRIVATE],
    ['http://172.31.255.255/', PRIVATE],
    ['http://172.32.0.1/', null],
    ['http://172.15.0.1/', null],
    ['http://192.168.0.1/', PRIVATE],
    ['http://192.169.0.1/', null],
    ['http://169.254.169.254/', LINK_LOCAL_V4],
    ['http://169.254.0.1/', LINK_LOCAL_V4],
    ['http://100.64.0.1/', CGN],
    ['http://100.127.255.255/', CGN],
    ['http://100.128.0.1/', null],
    ['http://100.63.0.1/', null],
    ['http://8.8.8.8/', null],
    ['http://255.255.255.255/', null],
    ['http://224.0.0.1/', null],
    // IPv6, IPv4-mapped IPv6 included.
    ['http://[::1]/', LOOPBACK],
    ['http://[::]/', LOOPBACK],
    ['http://[0:0:0:0:0:0:0:1]/', LOOPBACK],
    ['http://[::ffff:127.0.0.1]/', LOOPBACK],
    ['http://[::ffff:7f00:1]/', LOOPBACK],
    ['http://[0:0:0:0:0:ffff:a9fe:a9fe]/', LINK_LOCAL_V4],
    ['http://[::ffff:10.0.0.1]/', PRIVATE],
    ['http://[::ffff:8.8.8.8]/', null],
    ['http://[fd00:ec2::254]/', METADATA],
    ['http://[fc00::1]/', ULA],
    ['http://[fdff::1]/', ULA],
    ['http://[fe80::1]/', LINK_LOCAL_V6],
    ['http://[febf::1]/', LINK_LOCAL_V6],
    ['http://[fec0::1]/', null],
    ['http://[2001:db8::1]/', null],
    ['http://[2606:4700::1111]/', null],
    ['http://[::127.0.0.1]/', null],
    ['http://[64:ff9b::7f00:1]/', null],
    // Names.
    ['http://localhost/', LOOPBACK],
    ['http://LOCALHOST./', LOOPBACK],
    ['http://a.localhost/', LOOPBACK],
    ['http://metadata.google.internal/', METADATA],
    ['http://metadata/', METADATA],
    ['http://instance-data/', METADATA],
    ['http://db.internal/', NAME],
    ['http://printer.local/', NAME],
    ['http://nas.lan/', NAME],
    ['http://example.com/', null],
    ['http://127.0.0.1.nip.io/', null],
  ])('%s: %s', (url, expected) => {
    expect(why(new URL(url).hostname)).toBe(expected);
  });

  it('marks metadata addresses, and only those', () => {
    for (const host of ['169.254.169.254', '[fd00:ec2::254]', '[::ffff:a9fe:a9fe]', 'metadata.google.internal']) expect(internalHost(host)?.metadata).toBe(true);
    for (const host of ['127.0.0.1', '[fd00::1]', '[fe80::1]', '10.0.0.1', 'localhost']) expect(internalHost(host)?.metadata).toBe(false);
  });
});

describe('internalHost, raw hosts of shell commands', () => {
  it.each([
    ['127.0.0.1', LOOPBACK],
    ['00.0.0.1', THIS_HOST],
    ['10.0.0.1', PRIVATE],
    ['10.0.0.1.', PRIVATE],
    ['[::1]', LOOPBACK],
    ['[::1', LOOPBACK],
    ['[FD12::1]', ULA],
    ['0x7.0.0.1', null],
    ['1e2.0.0.1', null],
    ['256.0.0.1', null],
    ['1.2.3.4.5', null],
    ['::1', null],
    ['fd00::1', null],
    ['example.com', null],
    ['unknown', null],
    ['', null],
  ])('%s: %s', (host, expected) => {
    expect(why(host)).toBe(expected);
  });

  // Read as the system resolver reads them (inet_aton, RFC 4291), as the URL parser already does
  // for URLs. The hand-written parser before ipaddr.js answered otherwise (in brackets).
  it.each([
    ['0177.0.0.1', LOOPBACK], // (public)
    ['0x7f.0.0.1', LOOPBACK], // (public)
    ['2130706433', LOOPBACK], // (public)
    ['127.1', LOOPBACK], // (public)
    ['10.0.0', PRIVATE], // (public)
    ['010.0.0.1', null], // 8.0.0.1 (private)
    ['[0:0:0:0:0:0:0:1]', LOOPBACK], // (public)
    ['[::ffff:127.0.0.1]', LOOPBACK], // (public)
    ['[fc::1]', null], // 00fc::1, outside fc00::/7 (ULA)
    ['[fe8::1]', null], // 0fe8::1, outside fe80::/10 (link-local)
  ])('%s: %s', (host, expected) => {
    expect(why(host)).toBe(expected);
  });
});
