// The hash types' bucket mechanics against what Linux 6.18 (ipset 7.17) printed for the same commands: member
// order from jhash2 and the initval, "Size in memory" as buckets grow and shrink, the counters a reused slot keeps,
// and garbage collection of timed-out members on virtual time.

import { describe, expect, it } from 'vitest';
import type { HashElement } from '../../../src/netfilter/ipset/element.ts';
import { HashSet, type HashSetOptions } from '../../../src/netfilter/ipset/hash-set.ts';
import { formatIpv4, parseIpv4 } from '../../../src/wire/address.ts';

const NS = 1e9;

function hashIp(overrides: Partial<HashSetOptions> = {}): HashSet {
  return new HashSet({
    type: 'hash:ip',
    hashsize: 1024,
    maxelem: 65536,
    bucketsize: 12,
    initval: 1,
    netmask: 32,
    extensions: { timeout: undefined, counters: false, comment: false },
    createdAt: 0,
    ...overrides,
  });
}

function ip(text: string): HashElement {
  return { kind: 'hash:ip', ip: parseIpv4(text)! };
}

function listed(set: HashSet, now = 0): string[] {
  return set.members(now).map((entry) => formatIpv4((entry.element as { ip: number }).ip));
}

const NO_FLAGS = { exist: false, nomatch: false };

describe('hash:ip buckets', () => {
  it('lists 40 members in the kernel order for initval 0x12345678 and 64 buckets, in 1536 bytes', () => {
    // `ipset create ord hash:ip initval 0x12345678 hashsize 64` then 10.(7i).(13i).(29i) for i = 1..40, on Linux.
    const kernelOrder =
      '10.210.134.102 10.238.186.218 10.154.30.126 10.7.13.29 10.28.52.116 10.24.8.136 10.168.56.184 ' +
      '10.56.104.232 10.140.4.68 10.21.39.87 10.126.234.10 10.17.251.107 10.245.199.247 10.35.65.145 ' +
      '10.196.108.44 10.217.147.131 10.42.78.174 10.49.91.203 10.84.156.92 10.10.238.78 10.77.143.63 ' +
      '10.224.160.160 10.112.208.208 10.14.26.58 10.175.69.213 10.63.117.5 10.70.130.34 10.105.195.179 ' +
      '10.161.43.155 10.3.225.49 10.182.82.242 10.133.247.39 10.147.17.97 10.203.121.73 10.91.169.121 ' +
      '10.231.173.189 10.189.95.15 10.252.212.20 10.119.221.237 10.98.182.150';
    const set = hashIp({ initval: 0x12345678, hashsize: 64 });
    for (let i = 1; i <= 40; i++)
      expect(set.add(ip(`10.${(i * 7) % 256}.${(i * 13) % 256}.${(i * 29) % 256}`), {}, NO_FLAGS, 0).ok).toBe(
        true,
      );
    expect(listed(set).join(' ')).toBe(kernelOrder);
    expect(set.memorySize(0)).toBe(1536);
    expect(set.hashsize).toBe(64);
  });

  it('an empty set is 216 bytes at 1024 buckets, 24 more per region lock beyond 2^10 buckets', () => {
    expect(hashIp().memorySize(0)).toBe(216);
    expect(hashIp({ hashsize: 100 }).hashsize).toBe(128);
    expect(hashIp({ hashsize: 4096 }).memorySize(0)).toBe(288);
    expect(hashIp({ hashsize: 1 << 20 }).memorySize(0)).toBe(24768);
  });

  it('a slot freed and reused keeps the counters of what it held (10.0.0.1, .7 and .49 share a bucket)', () => {
    // Linux: add .1 packets 5 bytes 50, add .7, del .1, add .49 → `10.0.0.49 packets 5 bytes 50`, 296 bytes.
    const set = hashIp({ hashsize: 64, extensions: { timeout: undefined, counters: true, comment: false } });
    set.add(ip('10.0.0.1'), { packets: 5, bytes: 50 }, NO_FLAGS, 0);
    set.add(ip('10.0.0.7'), {}, NO_FLAGS, 0);
    expect(set.del(ip('10.0.0.1'), 0).ok).toBe(true);
    set.add(ip('10.0.0.49'), {}, NO_FLAGS, 0);
    expect(set.members(0).map((entry) => [listed(set)[0], entry.packets, entry.bytes][1])).toEqual([5, 0]);
    expect(listed(set)).toEqual(['10.0.0.49', '10.0.0.7']);
    expect(set.memorySize(0)).toBe(296);
  });

  it('grows a bucket by two slots, then doubles the table once a bucket holds bucketsize members', () => {
    const set = hashIp({ hashsize: 64, bucketsize: 2 });
    // Three addresses of one bucket at 64 buckets: the third triggers a resize to 128.
    set.add(ip('10.0.0.1'), {}, NO_FLAGS, 0);
    set.add(ip('10.0.0.7'), {}, NO_FLAGS, 0);
    expect(set.hashsize).toBe(64);
    expect(set.add(ip('10.0.0.49'), {}, NO_FLAGS, 0).ok).toBe(true);
    expect(set.hashsize).toBe(128);
    expect(listed(set).sort()).toEqual(['10.0.0.1', '10.0.0.49', '10.0.0.7']);
  });

  it('refuses a member already there (EXIST), takes it with -exist, and refuses past maxelem (HASH_FULL)', () => {
    const set = hashIp({ maxelem: 2 });
    set.add(ip('1.1.1.1'), {}, NO_FLAGS, 0);
    expect(set.add(ip('1.1.1.1'), {}, NO_FLAGS, 0)).toEqual({ ok: false, error: 'EXIST' });
    expect(set.add(ip('1.1.1.1'), {}, { exist: true, nomatch: false }, 0).ok).toBe(true);
    set.add(ip('1.1.1.2'), {}, NO_FLAGS, 0);
    expect(set.add(ip('1.1.1.3'), {}, NO_FLAGS, 0)).toEqual({ ok: false, error: 'HASH_FULL' });
    expect(set.del(ip('9.9.9.9'), 0)).toEqual({ ok: false, error: 'EXIST' });
  });
});

describe('hash:ip timeouts on virtual time', () => {
  const timed = () => hashIp({ extensions: { timeout: 3, counters: false, comment: false } });

  it('a member lives its timeout, then reads as absent: test, del and list skip it', () => {
    const set = timed();
    set.add(ip('1.1.1.1'), {}, NO_FLAGS, 0);
    set.add(ip('1.1.1.2'), { timeout: 0 }, NO_FLAGS, 0);
    expect(set.members(2.5 * NS).map((entry) => entry.deadline)).toEqual(
      expect.arrayContaining([3 * NS, Number.POSITIVE_INFINITY]),
    );
    expect(set.test(ip('1.1.1.1'), 3 * NS)).toBeDefined();
    expect(set.test(ip('1.1.1.1'), 3 * NS + 1)).toBeUndefined();
    expect(set.del(ip('1.1.1.1'), 3.5 * NS)).toEqual({ ok: false, error: 'EXIST' });
    expect(listed(set, 10 * NS)).toEqual(['1.1.1.2']);
  });

  it('the collector frees a bucket only when two slots or more are free, as on Linux (280, then 216)', () => {
    // Linux, `timeout 1`: one member alone keeps its bucket after it expired (280 bytes); 10.0.0.1 and 10.0.0.7,
    // one bucket at initval 1 and 64 buckets, free it (216). Here with timeout 3: the runs at 1, 2, 3, 4 s.
    const alone = timed();
    alone.add(ip('1.1.1.1'), {}, NO_FLAGS, 0);
    expect(alone.memorySize(0)).toBe(280);
    expect(alone.memorySize(10 * NS)).toBe(280);
    expect(alone.count(10 * NS)).toBe(0);
    const pair = hashIp({ hashsize: 64, extensions: { timeout: 3, counters: false, comment: false } });
    pair.add(ip('10.0.0.1'), {}, NO_FLAGS, 0);
    pair.add(ip('10.0.0.7'), {}, NO_FLAGS, 0);
    expect(pair.memorySize(3.5 * NS)).toBe(280);
    expect(pair.memorySize(4 * NS)).toBe(216);
  });

  it('an expired member is added again in its own slot, without EXIST', () => {
    const set = timed();
    set.add(ip('1.1.1.1'), {}, NO_FLAGS, 0);
    expect(set.add(ip('1.1.1.1'), {}, NO_FLAGS, 3.5 * NS).ok).toBe(true);
    expect(set.members(3.5 * NS)[0]!.deadline).toBe(6.5 * NS);
  });
});

describe('hash:net prefixes', () => {
  const nets = () =>
    new HashSet({
      type: 'hash:net',
      hashsize: 1024,
      maxelem: 65536,
      bucketsize: 12,
      initval: 0x13b69919,
      netmask: 32,
      extensions: { timeout: undefined, counters: false, comment: false },
      createdAt: 0,
    });
  const net = (text: string, cidr: number): HashElement => ({ kind: 'hash:net', ip: parseIpv4(text)!, cidr });

  it('an address is tested against each stored prefix, longest first; a nomatch member answers no', () => {
    const set = nets();
    set.add(net('10.1.0.0', 16), {}, NO_FLAGS, 0);
    set.add(net('10.1.2.0', 24), {}, { exist: false, nomatch: true }, 0);
    expect(set.test(net('10.1.3.4', 32), 0)).toBeDefined();
    expect(set.test(net('10.1.2.4', 32), 0)).toBeUndefined();
    expect(set.probe(net('10.1.2.4', 32), 0)?.nomatch).toBe(true);
    // A network is looked up as it is: 10.1.0.0/17 was never added.
    expect(set.test(net('10.1.0.0', 17), 0)).toBeUndefined();
    expect(set.kernelPrefix()).toBe(24);
  });
});
