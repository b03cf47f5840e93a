// The kernel plans `packetlab verify` runs (scenarios/kernel-plans.ts), on packetlab's side only (no root needed):
// each builds, its traffic does what the scenario's story says (pings answered, the Service's echo back, the NAT seen
// in conntrack), and it runs the same twice. The kernel side is test/cli/verify.test.ts's.

import { describe, expect, it } from 'vitest';
import { SCENARIOS } from '../../scenarios/index.ts';
import type { KernelPlan } from '../../src/harness/kernel-plan.ts';
import type { Observed } from '../../src/harness/observed.ts';
import { runPacketlab } from '../../src/harness/packetlab-driver.ts';

function planOf(name: string, ...args: string[]): KernelPlan {
  const entry = SCENARIOS.find((candidate) => candidate.name === name);
  const plan = entry?.plan?.({ seed: undefined, args });
  if (plan === undefined || 'usage' in plan) throw new Error(`no plan for ${name} ${args.join(' ')}`);
  return plan;
}

/** The outputs whose label starts with `start`, stdout and stderr. */
function outputs(observed: Observed, start: string): string {
  return [...observed.traffic, ...observed.observe]
    .filter((output) => output.label.startsWith(start))
    .map((output) => `${output.stdout}${output.stderr}`)
    .join('');
}

describe('kernel plans on packetlab', () => {
  it('veth: two pings answered, six frames on veth-a (ARP, then two echo exchanges)', () => {
    const run = runPacketlab(planOf('veth').scenario);
    expect(outputs(run, 'a: ping')).toContain('2 packets transmitted, 2 received, 0% packet loss');
    expect(run.captures.map((capture) => [capture.label, capture.frames.length])).toEqual([['a/veth-a', 6]]);
  });

  it.each([
    ['bridge', 'vxlan'],
    ['routed', 'direct'],
  ])('lesson %s %s: both pings answered, the UDP exchange echoed', (pods, nodes) => {
    const run = runPacketlab(planOf('lesson', pods, nodes).scenario);
    expect(outputs(run, 'diag: ping -n -c 2 -i 0.2 10.244.1.9')).toContain('2 received');
    expect(outputs(run, 'diag: ping -n -c 2 -i 0.2 10.244.2.7')).toContain('2 received');
    expect(outputs(run, 'diag: udp send')).toContain('reply from 10.244.2.7:8000 "GET /sante 2"');
  });

  it.each([
    ['1', '10.244.1.9'],
    ['2', '10.244.2.7'],
    ['5', '203.0.113.10'],
  ])('lesson-case %s: diag pings %s and is answered', (which, address) => {
    for (const cni of ['kindnet', 'flannel-vxlan']) {
      const run = runPacketlab(planOf('lesson-case', which, cni).scenario);
      expect(outputs(run, `diag: ping -n -c`), cni).toMatch(
        new RegExp(`^PING ${address.replaceAll('.', '\\.')} .*\\n(.*\\n)*.* 0% packet loss`),
      );
    }
  });

  it.each([
    [
      '3',
      'kindnet',
      'iptables',
      'diag',
      /src=10\.244\.1\.5 dst=10\.96\.40\.12 sport=41234 dport=80 src=10\.244\.2\.7 dst=10\.244\.1\.5 /,
    ],
    [
      '4',
      'flannel-vxlan',
      'nftables',
      'diag',
      /src=10\.244\.1\.5 dst=10\.96\.40\.12 sport=41234 dport=80 src=10\.244\.2\.7 dst=10\.244\.1\.5 /,
    ],
    [
      '6',
      'kindnet',
      'nftables',
      'outside',
      /src=172\.18\.0\.1 dst=172\.18\.0\.3 sport=41234 dport=30080 src=10\.244\.2\.7 dst=172\.18\.0\.3 /,
    ],
    [
      '6',
      'flannel-vxlan',
      'iptables',
      'outside',
      /src=172\.18\.0\.1 dst=172\.18\.0\.3 sport=41234 dport=30080 src=10\.244\.2\.7 dst=10\.244\.1\.0 /,
    ],
  ])(
    'lesson-case %s %s %s: the echo comes back through the Service; conntrack shows the NAT',
    (which, cni, mode, client, entry) => {
      const plan = planOf('lesson-case', which, cni, mode);
      const run = runPacketlab(plan.scenario);
      expect(outputs(run, `${client}: tcp send`)).toBe('connected\nreply "GET /sante 1"\nclosed\n');
      expect(outputs(run, 'w1: conntrack -L -p tcp')).toMatch(entry);
      expect(plan.compare?.natPorts).toEqual([41234, 30080, 8000, 80]);
    },
  );

  it('runs the same twice (packetlab is the deterministic side of the comparison)', () => {
    const { scenario } = planOf('lesson-case', '6', 'kindnet', 'iptables');
    const strip = ({ sim: _sim, ...observed }: ReturnType<typeof runPacketlab>) => observed;
    expect(strip(runPacketlab(scenario))).toEqual(strip(runPacketlab(scenario)));
  });
});
