// The two port searches alone (src/socket/ports.ts) on a fixed seed: connect()'s walk from the perturbation table
// (even ports first, the entry advancing by +2..+16 per success), bind()'s (odd first, SO_REUSEADDR's halves), and
// the reserved ports both skip.

import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/core/rng.ts';
import { Sysctls } from '../../src/net/sysctl.ts';
import { LocalPorts } from '../../src/socket/ports.ts';
import { parseIpv4 } from '../../src/wire/address.ts';

const A = parseIpv4('10.0.0.1')!;
const B = parseIpv4('10.0.0.2')!;
const C = parseIpv4('10.0.0.3')!;

function setup(range = '32768 60999') {
  const sysctls = new Sysctls();
  expect(sysctls.set('net.ipv4.ip_local_port_range', range).ok).toBe(true);
  return { sysctls, ports: new LocalPorts(sysctls, new Rng('ports-unit')) };
}

/** `count` connect() searches to one destination, each port then held. */
function connects(
  ports: LocalPorts,
  dst: number,
  count: number,
  held = new Set<number>(),
): (number | undefined)[] {
  return Array.from({ length: count }, () => {
    const port = ports.connectSearch(A, dst, 80, (candidate) => !held.has(candidate));
    if (port !== undefined) held.add(port);
    return port;
  });
}

describe('connect() search (__inet_hash_connect)', () => {
  it('walks even ports from the hashed offset, each success moving the entry on by +2..+16', () => {
    const { ports } = setup();
    const got = connects(ports, B, 8) as number[];
    expect(got).toEqual([42288, 42300, 42302, 42318, 42334, 42350, 42364, 42378]);
    for (let i = 1; i < got.length; i++) {
      const step = got[i]! - got[i - 1]!;
      expect(step % 2).toBe(0);
      expect(step).toBeGreaterThanOrEqual(2);
      expect(step).toBeLessThanOrEqual(16);
    }
  });

  it('keeps one table entry per destination: another destination starts elsewhere, and the first goes on', () => {
    const { ports } = setup();
    const first = connects(ports, B, 2);
    const other = connects(ports, C, 2);
    const again = connects(ports, B, 1);
    expect([first, other, again]).toEqual([[42288, 42300], [35876, 35892], [42302]]);
  });

  it('takes odd ports once every even one is held, then fails', () => {
    const { ports } = setup('40000 40007');
    const held = new Set<number>();
    expect(connects(ports, B, 9, held)).toEqual([
      40000,
      40004,
      40006,
      40002,
      40007,
      40001,
      40005,
      40003,
      undefined,
    ]);
  });

  it('skips ip_local_reserved_ports', () => {
    const { sysctls, ports } = setup('40000 40007');
    expect(sysctls.set('net.ipv4.ip_local_reserved_ports', '40000-40003,40006').ok).toBe(true);
    expect(connects(ports, B, 4)).toEqual([40004, 40005, 40007, undefined]);
  });
});

describe('bind(addr, 0) search (inet_csk_find_open_port)', () => {
  it('takes odd ports first, then even ones, then fails', () => {
    const { ports } = setup('40000 40005');
    const held = new Set<number>();
    const got = Array.from({ length: 7 }, () => {
      const port = ports.bindSearch(false, (candidate) => held.has(candidate));
      if (port !== undefined) held.add(port);
      return port;
    });
    expect(got.slice(0, 3).every((port) => port! % 2 === 1)).toBe(true);
    expect(got.slice(3, 6).every((port) => port! % 2 === 0)).toBe(true);
    expect(got[6]).toBeUndefined();
    expect(got).toEqual([40003, 40001, 40005, 40002, 40004, 40000, undefined]);
  });

  it('with SO_REUSEADDR, searches the lower half of the range before the upper half', () => {
    const { ports } = setup('40000 40015');
    const held = new Set<number>();
    const got = Array.from({ length: 16 }, () => {
      const port = ports.bindSearch(true, (candidate) => held.has(candidate));
      if (port !== undefined) held.add(port);
      return port;
    });
    // half = low + ((16 >> 2) << 1) = 40008: 40000-40007 (odd, then even) before 40008-40015.
    expect(got.slice(0, 8).every((port) => port! < 40008)).toBe(true);
    expect(got.slice(8).every((port) => port! >= 40008)).toBe(true);
    expect(got.slice(0, 4).every((port) => port! % 2 === 1)).toBe(true);
  });
});

describe('net.ipv4.ip_local_reserved_ports and ip_local_port_range', () => {
  it('reads back a port list sorted with ranges merged, as proc_do_large_bitmap prints it', () => {
    const sysctls = new Sysctls();
    expect(sysctls.get('net.ipv4.ip_local_reserved_ports')).toEqual({ ok: true, value: '' });
    expect(sysctls.set('net.ipv4.ip_local_reserved_ports', '9000-9100,8080')).toEqual({
      ok: true,
      value: '8080,9000-9100',
    });
    expect(sysctls.get('net.ipv4.ip_local_reserved_ports')).toEqual({ ok: true, value: '8080,9000-9100' });
    expect(sysctls.set('net.ipv4.ip_local_reserved_ports', '1,2,3,5').ok).toBe(true);
    expect(sysctls.get('net.ipv4.ip_local_reserved_ports')).toEqual({ ok: true, value: '1-3,5' });
    for (const bad of ['8080, 8081', '9000-8000', '70000', 'abc'])
      expect(sysctls.set('net.ipv4.ip_local_reserved_ports', bad)).toEqual({ ok: false, error: 'EINVAL' });
    expect(sysctls.set('net.ipv4.ip_local_reserved_ports', '').ok).toBe(true);
    expect(sysctls.get('net.ipv4.ip_local_reserved_ports')).toEqual({ ok: true, value: '' });
  });

  it('refuses a port range upside down or below ip_unprivileged_port_start (ipv4_local_port_range)', () => {
    const sysctls = new Sysctls();
    for (const bad of ['100 50', '0 50', '1 65535', '1023 2000', '2000 65536'])
      expect(sysctls.set('net.ipv4.ip_local_port_range', bad)).toEqual({ ok: false, error: 'EINVAL' });
    expect(sysctls.set('net.ipv4.ip_local_port_range', '1024 65535').ok).toBe(true);
    expect(sysctls.set('net.ipv4.ip_unprivileged_port_start', '0').ok).toBe(true);
    expect(sysctls.set('net.ipv4.ip_local_port_range', '1 65535').ok).toBe(true);
    expect(sysctls.get('net.ipv4.ip_local_port_range')).toEqual({ ok: true, value: '1\t65535' });
  });
});
