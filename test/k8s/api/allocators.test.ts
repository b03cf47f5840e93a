import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/core/rng.ts';
import {
  BandedBitmap,
  ClusterIpAllocator,
  ipRangeOffset,
  NodePortAllocator,
  portRangeOffset,
} from '../../../src/k8s/api/allocators.ts';

describe('allocators', () => {
  it('sizes the static bands as calculateRangeOffset does', () => {
    // /12: 2^20 addresses / 16 capped at 256; /24: 256/16 = 16; /28: 16 addresses, no band.
    expect(ipRangeOffset(2 ** 20)).toBe(256);
    expect(ipRangeOffset(256)).toBe(16);
    expect(ipRangeOffset(16)).toBe(0);
    // 30000-32767: 2768 / 32 = 86; a 100-port range: min 16; 16 ports: none.
    expect(portRangeOffset(2768)).toBe(86);
    expect(portRangeOffset(100)).toBe(16);
    expect(portRangeOffset(16)).toBe(0);
  });

  it('hands out the dynamic band first, then the static band, then nothing', () => {
    const bitmap = new BandedBitmap(6, 2, new Rng('bands'));
    const first = [1, 2, 3, 4].map(() => bitmap.allocateNext()!);
    expect(first.every((offset) => offset >= 2)).toBe(true);
    expect(new Set(first).size).toBe(4);
    const rest = [bitmap.allocateNext(), bitmap.allocateNext()].sort();
    expect(rest).toEqual([0, 1]);
    expect(bitmap.allocateNext()).toBeUndefined();
    bitmap.release(3);
    expect(bitmap.allocateNext()).toBe(3);
  });

  it('ClusterIPs: 10.96.0.0/12 without its network and broadcast addresses, dynamic from 10.96.1.1', () => {
    const ips = new ClusterIpAllocator('10.96.0.0/12', new Rng('ips'));
    expect(ips.nth(1)).toBe('10.96.0.1');
    expect(ips.nth(10)).toBe('10.96.0.10');
    expect(ips.allocate('10.96.0.1')).toEqual({ ok: true });
    expect(ips.allocate('10.96.0.1')).toEqual({ ok: false, error: 'provided IP is already allocated' });
    for (const outside of ['10.96.0.0', '10.111.255.255', '10.112.0.1', '192.168.1.1']) {
      expect(ips.allocate(outside)).toEqual({
        ok: false,
        error: `the provided IP (${outside}) is not in the valid range. The range of valid IPs is 10.96.0.0/12`,
      });
    }
    expect(ips.allocate('10.111.255.254')).toEqual({ ok: true });
    const next = ips.allocateNext()!;
    const [, b, c, d] = next.split('.').map(Number);
    // Above the static band 10.96.0.1-10.96.1.0.
    expect(b! * 65536 + c! * 256 + d!).toBeGreaterThan(96 * 65536 + 256);
    expect(ips.has(next)).toBe(true);
    ips.release(next);
    expect(ips.has(next)).toBe(false);
    // Deterministic from the seed.
    expect(new ClusterIpAllocator('10.96.0.0/12', new Rng('ips')).allocateNext()).toBe(next);
  });

  it('NodePorts: 30000-32767, dynamic from 30086', () => {
    const ports = new NodePortAllocator(30000, 32767, new Rng('ports'));
    expect(ports.allocate(30080)).toEqual({ ok: true });
    expect(ports.allocate(30080)).toEqual({ ok: false, error: 'provided port is already allocated' });
    expect(ports.allocate(80)).toEqual({
      ok: false,
      error: 'provided port is not in the valid range. The range of valid ports is 30000-32767',
    });
    expect(ports.allocate(32768).ok).toBe(false);
    for (let i = 0; i < 50; i++) expect(ports.allocateNext()!).toBeGreaterThanOrEqual(30086);
    expect(ports.used).toBe(51);
  });
});
