// Frames a bridge passes up to its host keep the packet type their port gave them (br_pass_frame_up runs no
// eth_type_trans): for the bridge's own MAC or the ingress port's MAC they reach IP, for another port's MAC they
// do not (ip_rcv drops PACKET_OTHERHOST), as Linux 6.18 answered the same pings.

import { describe, expect, it } from 'vitest';
import { Simulation } from '../../src/netns/simulation.ts';
import { exec, execOrThrow } from '../../src/tools/exec.ts';

const run = execOrThrow;

/** Host `a` on port to-a (02:…:aa) of bridge br0 (02:…:bb, 10.0.1.254) in `r`; a second port to-b (02:…:cc). */
function bridged() {
  const sim = new Simulation({ seed: 'bridge-local' });
  const a = sim.addNamespace('a');
  const r = sim.addNamespace('r');
  run(a, 'ip link add eth0 type veth peer name to-a netns r');
  run(a, 'ip addr add 10.0.1.1/24 dev eth0');
  run(a, 'ip link set eth0 up');
  run(r, 'ip link add spare type veth peer name to-b');
  run(r, 'ip link set to-a address 02:00:00:00:00:aa');
  run(r, 'ip link set to-b address 02:00:00:00:00:cc');
  run(r, 'ip link add br0 type bridge');
  run(r, 'ip link set br0 address 02:00:00:00:00:bb');
  for (const port of ['to-a', 'to-b']) {
    run(r, `ip link set ${port} master br0`);
    run(r, `ip link set ${port} up`);
  }
  run(r, 'ip link set spare up');
  run(r, 'ip addr add 10.0.1.254/24 dev br0');
  run(r, 'ip link set br0 up');
  return { a, r };
}

describe('frames a bridge passes up', () => {
  it.each([
    ['the bridge', '02:00:00:00:00:bb', 1],
    ['the ingress port', '02:00:00:00:00:aa', 1],
    ['another port', '02:00:00:00:00:cc', 0],
  ] as const)('to the MAC of %s: %d answered', (_name, mac, answered) => {
    const { a, r } = bridged();
    run(a, `ip neigh add 10.0.1.254 lladdr ${mac} dev eth0 nud permanent`);
    const ping = exec(a, 'ping -c 1 -W 1 10.0.1.254').stdout;
    expect(ping).toContain(`1 packets transmitted, ${answered} received`);
    if (answered === 0) expect(r.ipv4.drops.get('OTHERHOST')).toBe(1);
  });
});
