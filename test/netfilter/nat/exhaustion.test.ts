// Port exhaustion through one MASQUERADE: thousands of pods' connections to one destination; the first connection whose 248 probes all hit used ports dies at confirm (insert_failed), at an index fixed by the seed.

import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/core/rng.ts';
import { ip, tcpPacket } from '../../support/packets.ts';
import { forward, lab, masquerade } from './harness.ts';

interface Storm {
  /** 0-based index of the first connection that failed, -1 if none. */
  readonly firstFailure: number;
  readonly failures: number;
  readonly insertFailed: number;
  readonly entries: number;
}

/**
 * `flows` SYNs from pods 10.244.x.y (source ports drawn from the socket range 32768-60999 by a
 * separate stream) to 93.184.216.34:443 through `masquerade to :<ports>` on eth2 192.168.1.1.
 */
function storm(seed: string, flows: number, ports: string, fullyRandom = false): Storm {
  const l = lab(seed);
  l.host.masquerade.set(2, ip('192.168.1.1'));
  const clients = new Rng(`${seed}/clients`);
  const rule = masquerade({ fullyRandom }, ports);
  let firstFailure = -1;
  let failures = 0;
  for (let n = 0; n < flows; n++) {
    // Unique per connection: 64 pods per /24, 256 /24s per /16.
    const pod = `10.${244 + (n >>> 14)}.${(n >>> 6) & 0xff}.${2 + (n & 0x3f)}`;
    const sport = clients.intBetween(32768, 60999);
    const pkt = tcpPacket({
      src: `${pod}:${sport}`,
      dst: '93.184.216.34:443',
      seq: clients.u32(),
      flags: 'S',
    });
    const result = forward(l, pkt, { postrouting: rule });
    if (result === 'accept') continue;
    expect(result).toBe('CONNTRACK_INSERT_FAILED');
    failures++;
    if (firstFailure < 0) firstFailure = n;
  }
  return { firstFailure, failures, insertFailed: l.ct.stats.insert_failed, entries: l.ct.entries(0).length };
}

describe('MASQUERADE port exhaustion', () => {
  it('fails the first connection at an index fixed by the seed, at confirm, as insert_failed', () => {
    const first = storm('lesson', 2300, ':30000-32047');
    expect(first.firstFailure).toBe(1953);
    expect(first.failures).toBe(252);
    expect(first.insertFailed).toBe(first.failures);
    // Every successful connection holds one port of the 2048.
    expect(first.entries).toBe(2300 - first.failures);
    expect(first.entries).toBeLessThanOrEqual(2048);

    const again = storm('lesson', 2300, ':30000-32047');
    expect(again).toEqual(first);
    const other = storm('kubecon', 2300, ':30000-32047');
    expect(other.firstFailure).toBe(1879);
  });

  it('with --random-fully over the default 1024-65535, as kube-proxy masquerades, fails first at the 53,925th connection', () => {
    // Linear probing from random offsets grows clusters of used ports: the first connection
    // whose 248 probes all land in used ports comes at 83.6% occupancy, not at 100%.
    const result = storm('lesson', 66_000, '', true);
    expect(result.firstFailure).toBe(53_924);
    expect(result.failures).toBe(1665);
    expect(result.insertFailed).toBe(result.failures);
    expect(result.entries).toBe(66_000 - result.failures);
    expect(result.entries).toBeLessThanOrEqual(65535 - 1024 + 1);
  });
});
