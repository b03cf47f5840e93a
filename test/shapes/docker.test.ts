// Docker's rules with kube-proxy's on one node, on packetlab: the path, verdict, counters and mark of three calls
// (test/shapes/docker.ts). The same scenario runs on the kernel in test/linux/shapes-docker.test.ts.

import { describe, expect, it } from 'vitest';
import { runPacketlab } from '../../src/harness/packetlab-driver.ts';
import { dockerScenario } from './docker.ts';
import { countersOf, failedSetup, marksIn, output, tracePath } from './shapes.ts';

describe('Docker (DOCKER, DOCKER-USER, isolation stages) with kube-proxy', () => {
  const run = runPacketlab(dockerScenario());
  const save = output(run, 'w1: iptables-save -c');
  const trace = output(run, 'w1: nft monitor trace');

  it('loads unchanged beside kube-proxy: every set-up command and kube-proxy sync succeeds', () => {
    expect(failedSetup(run)).toEqual([]);
    expect(save).toContain(':FORWARD DROP ');
  });

  it('the published port: nat DOCKER DNATs to the container, filter DOCKER accepts it, it answers', () => {
    expect(output(run, 'client: tcp send 0.0.0.0:41234')).toContain('reply "conteneur 1"');
    expect(output(run, 'ctr: tcp echo')).toContain('accept 172.18.0.100:41234');
    const path = tracePath(trace, 41234);
    expect(path).toContain(
      'ip nat DOCKER rule iifname != "docker0" tcp dport 8080 counter packets 0 bytes 0 dnat to 172.17.0.2:80 (verdict accept)',
    );
    expect(path).toContain(
      'ip filter DOCKER rule iifname != "docker0" oifname "docker0" ip daddr 172.17.0.2 tcp dport 80 counter packets 0 bytes 0 accept (verdict accept)',
    );
    expect(
      countersOf(
        save,
        '-A DOCKER ! -i docker0 -p tcp -m tcp --dport 8080 -j DNAT --to-destination 172.17.0.2:80',
      ),
    ).toBe('[1:60]');
    // Not from 172.17.0.0/16: Docker's MASQUERADE leaves it, the container sees the client.
    expect(countersOf(save, '-A POSTROUTING -s 172.17.0.0/16 ! -o docker0 -j MASQUERADE')).toBe('[0:0]');
  });

  it("a NodePort to a pod on w2: kube-proxy's 0x4000 bit is what KUBE-FORWARD accepts past the DROP policy", () => {
    expect(output(run, 'client: tcp send 0.0.0.0:41235')).toContain('reply "nodeport 1"');
    const path = tracePath(trace, 41235);
    expect(path).toContain('ip nat KUBE-MARK-MASQ unknown rule handle 26 (verdict continue)');
    expect(path).toContain(
      'inet probe prefilter rule meta mark & 0x00004000 == 0x00004000 counter packets 0 bytes 0 (verdict continue)',
    );
    expect(marksIn(path.join('\n'))).toEqual([0x4000, 0x4000, 0x4000]);
    expect(
      countersOf(
        save,
        '-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x4000/0x4000 -j ACCEPT',
      ),
    ).toBe('[1:60]');
    // KUBE-POSTROUTING masquerades it (the pod sees the node) and clears the bit.
    expect(output(run, 'remote: tcp echo')).toMatch(/^accept 172\.18\.0\.2:\d+$/m);
    expect(countersOf(save, '-A KUBE-POSTROUTING -j MARK --set-xmark 0x4000/0x0')).toBe('[1:60]');
  });

  it("pod to pod across nodes: nothing accepts it, Docker's FORWARD policy DROP drops the SYN", () => {
    expect(output(run, 'diag: tcp send')).toContain('timeout connect');
    // The SYN came in from a bridge port (cni0): its trace ends with the PREROUTING br_netfilter runs at bridge
    // level, on the kernel too (test/linux/shapes-docker.test.ts compares every line); the counters show the rest.
    expect(tracePath(trace, 41236).at(-1)).toBe('ip nat PREROUTING policy accept');
    expect(countersOf(save, ':FORWARD DROP')).toBe('[1:60]');
    expect(countersOf(save, '-A DOCKER-ISOLATION-STAGE-1 -j RETURN')).toBe('[2:120]');
  });
});
