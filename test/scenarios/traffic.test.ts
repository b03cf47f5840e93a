// The traffic story (scenarios/traffic.ts): its observables in virtual time, and the same seed giving the same session.

import { describe, expect, it } from 'vitest';
import { trafficSession } from '../../scenarios/traffic.ts';

describe('the traffic story', () => {
  const lines = trafficSession();

  it('shows a 10 ms round trip once both ends delay by 5 ms (the first ping also waits for ARP)', () => {
    expect(lines).toContain('64 bytes from 10.244.1.9: icmp_seq=2 ttl=64 time=10.0 ms');
  });

  it('answers /sante in one round trip after the handshake and /rapport in more, in virtual seconds', () => {
    expect(lines).toContain('200 3 bytes in 0.020000 s');
    const rapport = lines.find((line) => line.startsWith('200 200000 bytes in '));
    expect(rapport).toBeDefined();
    const seconds = Number(rapport?.split(' ')[4]);
    // Slow start from ten segments needs several round trips for 200 kB, and no retransmission timeout.
    expect(seconds).toBeGreaterThan(0.04);
    expect(seconds).toBeLessThan(0.2);
  });

  it('runs the storm out of its 64 ephemeral ports: 64 successes, the rest EADDRNOTAVAIL', () => {
    expect(lines).toContain('succeeded     64');
    expect(lines.some((line) => /^failures {6}EADDRNOTAVAIL=\d+$/.test(line))).toBe(true);
  });

  it('replays identically from the same seed, and differently from another', () => {
    expect(trafficSession()).toEqual(lines);
    expect(trafficSession('another')).not.toEqual(lines);
  });
});
