// The flowtable fast path on packetlab (this machine's kernel has no CONFIG_NF_FLOW_TABLE, so there is no
// differential case): a TCP connection forwarded by router r, offloaded by `flow add @ft` once established, whose
// packets then skip r's forward chain (its counter stops), until a FIN tears the flow down and the rest goes the
// normal way again; a UDP flow expires after the flowtable timeout; listings and the kernel's checks.

import { describe, expect, it } from 'vitest';
import { FLOW_TIMEOUT_NS } from '../../src/netfilter/flowtable.ts';
import type { Namespace } from '../../src/netns/namespace.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import { exec } from '../../src/tools/exec.ts';

const RULESET = `table inet f {
  flowtable ft {
    hook ingress priority filter
    devices = { rb, ra }
  }
  chain fw {
    type filter hook forward priority filter; policy accept;
    meta l4proto { tcp, udp } flow add @ft
    counter
  }
}
`;

/** Hosts a (10.1.0.2) and b (10.2.0.2) on both sides of router r (ra 10.1.0.1, rb 10.2.0.1). */
function routed() {
  const sim = new Simulation({ seed: 'flowtable' });
  const [a, b, r] = [sim.addNamespace('a'), sim.addNamespace('b'), sim.addNamespace('r')];
  const run = (ns: Namespace, line: string) => expect(exec(ns, line).stderr).toBe('');
  run(r, 'ip link add ra type veth peer name e0 netns a');
  run(r, 'ip link add rb type veth peer name e0 netns b');
  run(r, 'ip addr add 10.1.0.1/24 dev ra');
  run(r, 'ip addr add 10.2.0.1/24 dev rb');
  run(r, 'ip link set ra up');
  run(r, 'ip link set rb up');
  run(r, 'sysctl -w net.ipv4.ip_forward=1');
  run(a, 'ip addr add 10.1.0.2/24 dev e0');
  run(a, 'ip link set e0 up');
  run(a, 'ip route add default via 10.1.0.1');
  run(b, 'ip addr add 10.2.0.2/24 dev e0');
  run(b, 'ip link set e0 up');
  run(b, 'ip route add default via 10.2.0.1');
  sim.files.set('f.nft', new TextEncoder().encode(RULESET));
  run(r, 'nft -f f.nft');
  const forwardCounter = (): number => {
    const match = /\n\t\tcounter packets (\d+) bytes/.exec(exec(r, 'nft list ruleset').stdout);
    return Number(match?.[1]);
  };
  return { sim, a, b, r, forwardCounter };
}

describe('flowtables', () => {
  it('list after the sets and before the chains, devices sorted, `flow offload` as `flow add`', () => {
    const { r } = routed();
    exec(r, 'nft add rule inet f fw ip protocol udp flow offload @ft');
    expect(exec(r, 'nft list ruleset').stdout).toBe(
      'table inet f {\n' +
        '\tflowtable ft {\n' +
        '\t\thook ingress priority filter\n' +
        '\t\tdevices = { ra, rb }\n' +
        '\t}\n\n' +
        '\tchain fw {\n' +
        '\t\ttype filter hook forward priority filter; policy accept;\n' +
        '\t\tmeta l4proto { tcp, udp } flow add @ft\n' +
        '\t\tcounter packets 0 bytes 0\n' +
        '\t\tip protocol udp flow add @ft\n' +
        '\t}\n' +
        '}\n',
    );
    expect(exec(r, 'nft list flowtables').stdout).toBe(
      'table inet f {\n\tflowtable ft {\n\t\thook ingress priority filter\n\t\tdevices = { ra, rb }\n\t}\n}\n',
    );
  });

  it('refuses what the kernel refuses: a missing flowtable, flow add outside forward, deleting one in use', () => {
    const { r } = routed();
    expect(exec(r, 'nft add rule inet f fw flow add @nope').stderr).toBe(
      'Error: Could not process rule: No such file or directory\n' +
        'add rule inet f fw flow add @nope\n' +
        '                   ^^^^^^^^^^^^^^\n',
    );
    exec(r, "nft 'add chain inet f in { type filter hook input priority 0; }'");
    expect(exec(r, 'nft add rule inet f in flow add @ft').stderr).toContain('Operation not supported');
    expect(exec(r, 'nft delete flowtable inet f ft').stderr).toContain('Device or resource busy');
  });

  it('an established TCP connection skips the forward chain until its FIN', () => {
    const { sim, a, b, r, forwardCounter } = routed();
    const server = b.tcp.listen(0, 8080, (socket) => {
      socket.onData = (s, data) => s.write(data);
      socket.onEnd = (s) => s.end();
    });
    expect(server).not.toBe('EADDRINUSE');
    const result = a.tcp.connect({ dst: 0x0a02_0002, dstPort: 8080 });
    if (!result.ok) throw new Error(result.error);
    const client = result.socket;
    sim.run(10_000_000);
    // SYN, SYN-ACK and the handshake's ACK went through the forward chain; the ACK was offloaded.
    expect(forwardCounter()).toBe(3);
    for (let i = 0; i < 5; i++) {
      client.write(new TextEncoder().encode(`message ${i}`));
      sim.run(10_000_000);
    }
    // Ten data segments and their ACKs took the fast path; the connection shows [OFFLOAD].
    expect(forwardCounter()).toBe(3);
    expect(exec(r, 'conntrack -L').stdout).toMatch(/^tcp +6 431999 ESTABLISHED .*\[OFFLOAD\]/m);
    client.end();
    sim.run(100_000_000);
    // The FIN tears the flow down: it and everything after it are forwarded normally again.
    expect(forwardCounter()).toBeGreaterThan(3);
  });

  it('a UDP flow leaves the flowtable after the flowtable timeout', () => {
    const { sim, a, b, forwardCounter } = routed();
    const payload = new TextEncoder().encode('hi');
    b.udp.bind(0, 9000, (d) => {
      b.udp.send({ dst: d.srcAddr, dstPort: d.srcPort, srcPort: 9000, payload });
    });
    a.udp.bind(0, 41000, () => {});
    const send = () => {
      a.udp.send({ dst: 0x0a02_0002, dstPort: 9000, srcPort: 41000, payload });
      sim.run(1_000_000);
    };
    send(); // the request goes the slow way; the reply, its connection confirmed, is offloaded
    expect(forwardCounter()).toBe(2);
    send();
    send();
    expect(forwardCounter()).toBe(2);
    sim.run(FLOW_TIMEOUT_NS);
    send();
    // Expired: the request meets the forward chain again (and offloads the flow anew).
    expect(forwardCounter()).toBe(3);
  });
});
