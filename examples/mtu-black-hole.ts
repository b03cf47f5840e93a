// A packetlab scenario in TypeScript: `packetlab run examples/mtu-black-hole.ts [--seed S]`. The default export takes
// {seed, args} and returns a Story (or its result()); every check is computed from what the commands printed.
// The lesson's tunnel MTU pitfall on a flannel VXLAN cluster: a pod's interface says 1450, and a ping that does not
// fragment (-M do) passes with 1422 bytes of payload (1450 on the wire) but not with 1423.

import { cluster, Story } from '../src/index.ts';

export default function mtuBlackHole({ seed }: { readonly seed: string | undefined }): Story {
  const c = cluster({
    name: 'formation',
    workers: 2,
    cni: 'flannel-vxlan',
    kubeProxy: 'iptables',
    seed: seed ?? 'mtu',
  });
  for (const [name, node, ip] of [
    ['diag', 'formation-worker', '10.244.1.5'],
    ['signalements', 'formation-worker2', '10.244.2.7'],
  ] as const) {
    const created = c.createPod({ name, node, ip });
    if (!created.ok) throw new Error(`pod ${name}: ${created.error.message}`);
  }
  c.sim.run(2e9);
  const story = new Story('mtu-black-hole', seed ?? 'mtu');
  story.attach(c.sim);
  const sh = (line: string) => {
    const result = c.exec(line);
    story.record('$', line, result);
    return result;
  };
  story.say('VXLAN adds 50 bytes: flannel gives every pod an MTU of 1450');
  const link = sh('kubectl exec diag -- ip link show eth0');
  story.expectThat("diag's eth0 has mtu 1450", 'mtu 1450', link.stdout, link.stdout.includes(' mtu 1450 '));
  const fits = sh('kubectl exec diag -- ping -M do -s 1422 -c 1 10.244.2.7');
  story.expectThat(
    '1422 bytes of payload (1450 with the headers) cross without fragmenting',
    '1 received',
    fits.stdout,
    fits.stdout.includes('1 packets transmitted, 1 received'),
  );
  const tooBig = sh('kubectl exec diag -- ping -M do -s 1423 -c 1 10.244.2.7');
  const refused = tooBig.stderr.split('\n').find((line) => line.startsWith('ping: ')) ?? '(no error)';
  story.expectEqual(
    'one byte more and the kernel refuses to send it',
    'ping: local error: message too long, mtu=1450',
    refused,
  );
  return story;
}
