// The lesson's MTU pitfall across a VXLAN tunnel: the largest ping that fits, the local error, the node's
// frag-needed for a misconfigured pod, and the silent black hole of an underlay narrower than the node NIC.

import { describe, expect, it } from 'vitest';
import { lessonTopology } from '../../src/k8s/lesson.ts';
import { exec, spawn } from '../../src/tools/exec.ts';

describe('MTU over VXLAN (pods 1450, underlay 1500)', () => {
  it('ping -M do -s 1422 crosses: 1450 bytes inside, 1500 outside', () => {
    const lesson = lessonTopology({ nodes: 'vxlan' });
    const outer = spawn(lesson.w1, 'tcpdump -nni eth0 -e udp port 8472');
    const result = exec(lesson.diag, 'ping -c 1 -M do -s 1422 10.244.2.7');
    expect(result.stdout).toContain('PING 10.244.2.7 (10.244.2.7) 1422(1450) bytes of data.');
    expect(result.stdout).toContain('1430 bytes from 10.244.2.7: icmp_seq=1 ttl=62');
    expect(result.exitCode).toBe(0);
    if (!('stop' in outer)) throw new Error(outer.stderr);
    // The encapsulated request leaving W1: a 1514-byte frame, an outer IP packet of exactly 1500 bytes.
    const request = outer.stop().stdout.split('\n')[0]!;
    expect(request).toMatch(
      /ethertype IPv4 \(0x0800\), length 1514: 172\.18\.0\.2\.\d+ > 172\.18\.0\.3\.8472: OTV/,
    );
  });

  it('ping -M do -s 1423 fails locally with "message too long, mtu=1450"', () => {
    const lesson = lessonTopology({ nodes: 'vxlan' });
    const result = exec(lesson.diag, 'ping -c 1 -M do -s 1423 10.244.2.7');
    expect(result.stdout).toContain('PING 10.244.2.7 (10.244.2.7) 1423(1451) bytes of data.');
    expect(result.stderr).toBe('ping: local error: message too long, mtu=1450\n');
    expect(result.stdout).toContain('1 packets transmitted, 0 received, +1 errors, 100% packet loss');
    expect(result.exitCode).toBe(1);
  });

  it('with the pod MTU misconfigured to 1500, the node answers frag-needed with MTU 1450', () => {
    const lesson = lessonTopology({ nodes: 'vxlan', podMtu: 1500 });
    const result = exec(lesson.diag, 'ping -c 1 -M do -s 1472 10.244.2.7');
    expect(result.stdout).toContain('PING 10.244.2.7 (10.244.2.7) 1472(1500) bytes of data.');
    expect(result.stdout).toContain('From 10.244.1.1 icmp_seq=1 Frag needed and DF set (mtu = 1450)');
    // The pod learned the path MTU: the next try fails locally.
    const again = exec(lesson.diag, 'ping -c 1 -M do -s 1472 10.244.2.7');
    expect(again.stderr).toBe('ping: local error: message too long, mtu=1450\n');
  });

  it('an underlay segment of 1450 under 1500-byte node NICs swallows big encapsulated frames silently', () => {
    const lesson = lessonTopology({ nodes: 'vxlan', underlayMtu: 1450 });
    const small = exec(lesson.diag, 'ping -c 1 -M do -s 1372 10.244.2.7');
    expect(small.exitCode).toBe(0); // 1400 inside, 1450 outside: fits the segment exactly
    const big = exec(lesson.diag, 'ping -c 1 -W 2 -M do -s 1422 10.244.2.7');
    expect(big.stdout).toContain('1 packets transmitted, 0 received, 100% packet loss');
    expect(big.stdout).not.toContain('From ');
    expect(big.stderr).toBe('');
    // The only trace: the switch port's receive drop counter.
    const port = lesson.segment.switchNs.all().find((dev) => dev.kind === 'veth' && dev.stats.rxDropped > 0);
    expect(port?.stats.rxDropped).toBe(1);
  });
});
