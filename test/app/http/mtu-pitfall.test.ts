// The lesson's MTU pitfall with real sockets: a client and a server on 1500-byte links with a 1400-byte hop between
// two routers. `/sante` fits in one small segment and answers; `/rapport` (200 kB) needs full-sized segments, which
// the narrow hop refuses with ICMP frag-needed. When that ICMP reaches the server, path MTU discovery shrinks its
// segments and the transfer completes; when a firewall drops it, the transfer stalls until curl gives up.

import { describe, expect, it } from 'vitest';
import { httpServer } from '../../../src/app/http/server.ts';
import { Simulation } from '../../../src/netns/simulation.ts';
import { exec } from '../../../src/tools/exec.ts';
import { run } from './topology.ts';

/** client 10.0.1.2 — r1 — (MTU 1400, 10.0.2.0/24) — r2 — server 10.0.3.2. */
function narrowPath() {
  const sim = new Simulation({ seed: 'mtu' });
  const client = sim.addNamespace('client');
  const r1 = sim.addNamespace('r1');
  const r2 = sim.addNamespace('r2');
  const server = sim.addNamespace('server');
  run(client, 'ip link add eth0 type veth peer name left netns r1');
  run(r1, 'ip link add narrow mtu 1400 type veth peer name narrow netns r2');
  run(r2, 'ip link set narrow mtu 1400');
  run(r2, 'ip link add right type veth peer name eth0 netns server');
  const up = (ns: typeof client, dev: string, addr: string) => {
    run(ns, `ip addr add ${addr} dev ${dev}`);
    run(ns, `ip link set ${dev} up`);
  };
  up(client, 'eth0', '10.0.1.2/24');
  up(r1, 'left', '10.0.1.1/24');
  up(r1, 'narrow', '10.0.2.1/24');
  up(r2, 'narrow', '10.0.2.2/24');
  up(r2, 'right', '10.0.3.1/24');
  up(server, 'eth0', '10.0.3.2/24');
  run(client, 'ip route add default via 10.0.1.1');
  run(server, 'ip route add default via 10.0.3.1');
  run(r1, 'ip route add 10.0.3.0/24 via 10.0.2.2');
  run(r2, 'ip route add 10.0.1.0/24 via 10.0.2.1');
  run(r1, 'sysctl -w net.ipv4.ip_forward=1');
  run(r2, 'sysctl -w net.ipv4.ip_forward=1');
  httpServer(server, {
    port: 8000,
    routes: { '/sante': { body: 'ok\n' }, '/rapport': { bodyBytes: 200_000 } },
  });
  return { sim, client, r2, server };
}

const W = `-w '%{http_code} %{size_download} %{time_total} %{exitcode}\\n'`;

describe('the MTU pitfall over HTTP', () => {
  it('completes /rapport when frag-needed reaches the server (path MTU discovery), without waiting for a retransmission timeout', () => {
    const { client, server } = narrowPath();
    expect(exec(client, `curl -s -o /dev/null ${W} http://10.0.3.2:8000/sante`).stdout).toBe(
      '200 3 0.000000 0\n',
    );
    const rapport = exec(client, `curl -s -o /dev/null -m 300 ${W} http://10.0.3.2:8000/rapport`);
    const [code, size, seconds, exitCode] = rapport.stdout.trimEnd().split(' ');
    expect([code, size, exitCode]).toEqual(['200', '200000', '0']);
    // The learned path MTU (1400) is the route's now: `ip route get` shows it, as Linux's route cache does.
    expect(exec(server, 'ip route get 10.0.1.2').stdout).toContain('mtu 1400');
    // Linux resends the whole window at the new size at once (tcp_simple_retransmit): the same four namespaces on
    // this machine's kernel moved 200 kB in 1.7 ms. packetlab does the same, and with links that take no time the
    // transfer ends at the instant it started: no retransmission timeout was waited for.
    expect(seconds).toBe('0.000000');
  });

  it('stalls /rapport, not /sante, when a firewall drops ICMP fragmentation-needed', () => {
    const { client, r2 } = narrowPath();
    run(r2, 'iptables -A OUTPUT -p icmp --icmp-type fragmentation-needed -j DROP');
    expect(exec(client, `curl -s -o /dev/null ${W} http://10.0.3.2:8000/sante`).stdout).toBe(
      '200 3 0.000000 0\n',
    );
    const rapport = exec(client, `curl -sS -o /dev/null -m 5 ${W} http://10.0.3.2:8000/rapport`);
    expect(rapport.exitCode).toBe(28);
    expect(rapport.stdout).toBe('000 0 5.000000 28\n');
    expect(rapport.stderr).toBe(
      'curl: (28) Operation timed out after 5000 milliseconds with 0 bytes received\n',
    );
    // Every full-sized segment the server sent (the first window, the tail loss probe that resends its last
    // segment, then each retransmission of the head) earned a frag-needed.
    expect(exec(r2, 'iptables -L OUTPUT -v -n').stdout).toMatch(/^ +13 +7488 DROP /m);
  });
});
