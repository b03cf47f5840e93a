// `ip route get` after a frag-needed: the learned path MTU shows on the cache line with its expiry, as rt_fill_info
// prints a nexthop exception (found by the differential harness, test/linux/vxlan-mtu.test.ts).

import { describe, expect, it } from 'vitest';
import { lessonTopology } from '../../../src/k8s/lesson.ts';
import { exec } from '../../../src/tools/exec.ts';

describe('ip route get with a PMTU exception', () => {
  it('shows "cache expires Nsec mtu 1450" once the node answered frag needed, and nothing before', () => {
    const lesson = lessonTopology({ nodes: 'vxlan', podMtu: 1500 });
    expect(exec(lesson.diag, 'ip route get 10.244.2.7').stdout).toBe(
      '10.244.2.7 via 10.244.1.1 dev eth0 src 10.244.1.5 uid 0 \n    cache \n',
    );
    exec(lesson.diag, 'ping -c 1 -M do -s 1472 10.244.2.7');
    expect(exec(lesson.diag, 'ip route get 10.244.2.7').stdout).toMatch(
      /^10\.244\.2\.7 via 10\.244\.1\.1 dev eth0 src 10\.244\.1\.5 uid 0 \n {4}cache expires (600|5\d\d)sec mtu 1450 \n$/,
    );
    // Another destination through the same gateway has no exception.
    expect(exec(lesson.diag, 'ip route get 10.244.2.8').stdout).toContain('    cache \n');
    // ip_rt_mtu_expires: ten minutes later the exception is gone.
    lesson.sim.run(600e9);
    expect(exec(lesson.diag, 'ip route get 10.244.2.7').stdout).toContain('    cache \n');
  });
});
