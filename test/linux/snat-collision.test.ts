// SNAT when two pods use the same source port to the same outside address, on the kernel and on packetlab: ip-masq-agent's
// MASQUERADE gives both the node's address; the first flow keeps its port, the second would clash with it in
// conntrack, so nf_nat_l4proto_unique_tuple remaps it to a free port in 1024-65535 (the range for an original port
// of 1024 or more). Which port is each side's random pick, so the comparator reads remapped ports as `NAT` and the
// case asserts the remap and its range on both sides.

import { describe, expect, it } from 'vitest';
import { MASQ_AGENT_RULES } from '../../src/k8s/lesson.ts';
import { differential, outputOf } from './harness.ts';
import type { Observed } from './observed.ts';
import { lesson } from './topologies.ts';

/** The source ports the outside server saw, in order. */
function seenPorts(observed: Observed): number[] {
  const lines = [...observed.traffic].filter((o) => o.label.startsWith('client: udp echo'));
  return lines.flatMap((o) =>
    [...o.stdout.matchAll(/^from 172\.18\.0\.2:(\d+) /gm)].map((match) => Number(match[1])),
  );
}

describe('differential: SNAT port collision', () => {
  it('two pods, one source port, one destination: the first keeps 41234, the second is remapped', async (ctx) => {
    const scenario = lesson('snat-collision', { pods: 'bridge', nodes: 'direct', client: true })
      .iptablesRestore('w1', MASQ_AGENT_RULES)
      .capture('client', 'eth0')
      .udp({
        client: { ns: 'diag', bind: '0.0.0.0', port: 41234 },
        server: { ns: 'client', bind: '0.0.0.0', port: 9000 },
        dst: '172.18.0.100',
        count: 2,
        payload: 'diag',
      })
      .udp({
        client: { ns: 'local', bind: '0.0.0.0', port: 41234 },
        server: { ns: 'client', bind: '0.0.0.0', port: 9000 },
        dst: '172.18.0.100',
        count: 2,
        payload: 'local',
      })
      .observe('w1', 'iptables-save', '-c', '-t', 'nat')
      .observe('w1', 'conntrack', '-L')
      .build();
    const result = await differential(ctx, scenario, { natPorts: [41234, 9000] });
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab]) {
      const [first, second, third, fourth] = seenPorts(side);
      expect([first, second], side.side).toEqual([41234, 41234]);
      expect(third, side.side).not.toBe(41234);
      expect(fourth, side.side).toBe(third);
      expect(third, side.side).toBeGreaterThanOrEqual(1024);
      expect(third, side.side).toBeLessThanOrEqual(65535);
      expect(outputOf(side, 'local: udp send'), side.side).toContain(
        'reply from 172.18.0.100:9000 "local 2"',
      );
    }
  });
});
