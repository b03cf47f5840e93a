// IPv6 text both ways, against glibc's inet_ntop (the values below are what Python's socket.inet_ntop, which calls
// it, printed on this machine): the longest zero run as `::`, the first of equal runs, a lone zero group kept,
// IPv4-mapped and -compatible tails dotted; malformed text refused.

import { describe, expect, it } from 'vitest';
import { formatIpv6, formatIpv6Bytes, maskIpv6, parseIpv6 } from '../../src/wire/ipv6-text.ts';

const GLIBC: readonly [string, string][] = [
  ['2001:db8::1', '2001:db8::1'],
  ['::', '::'],
  ['::1', '::1'],
  ['::ffff:10.0.0.1', '::ffff:10.0.0.1'],
  ['::1.2.3.4', '::1.2.3.4'],
  ['1:0:0:1:0:0:0:1', '1:0:0:1::1'],
  ['1:0:1:0:1:0:1:0', '1:0:1:0:1:0:1:0'],
  ['fe80::', 'fe80::'],
  ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
  ['::ffff:0:0', '::ffff:0.0.0.0'],
  ['0:0:0:0:0:1:0:0', '::1:0:0'],
  ['1::', '1::'],
];

describe('IPv6 text', () => {
  it.each(GLIBC)('%s prints as inet_ntop prints it (%s)', (input, printed) => {
    const groups = parseIpv6(input)!;
    expect(formatIpv6(groups)).toBe(printed);
    const bytes = new Uint8Array(20);
    groups.forEach((group, i) => {
      bytes[2 + 2 * i] = group >>> 8;
      bytes[3 + 2 * i] = group & 0xff;
    });
    expect(formatIpv6Bytes(bytes, 2)).toBe(printed);
  });

  it('refuses what inet_pton refuses', () => {
    for (const bad of ['1:2:3', ':::', '1::2::3', '12345::', '1:2:3:4:5:6:7:8:9', '::1.2.3', 'g::1'])
      expect(parseIpv6(bad), bad).toBeUndefined();
  });

  it('masks a prefix', () => {
    expect(formatIpv6(maskIpv6(parseIpv6('2001:db8:ffff::1')!, 36))).toBe('2001:db8:f000::');
  });
});
