// The cluster plan's kube-proxy part (clusterPlan's `kubeProxy`, kubeProxyResync): every node's first sync and the
// conntrack cleanup after it, run on packetlab with runPlan; a resync that replaces a UDP endpoint deletes the entry
// a client's flow had, so the client's next datagram reaches the new endpoint.

import { describe, expect, it } from 'vitest';
import { clusterPlan, kubeProxyResync, type PlanKubeProxy } from '../../src/k8s/cluster-plan.ts';
import { Kindnet } from '../../src/k8s/cni/kindnet.ts';
import { IptablesProxier } from '../../src/k8s/kube-proxy/iptables/proxier.ts';
import { runPlan } from '../../src/k8s/run-plan.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import { exec } from '../../src/tools/exec.ts';
import { parseIpv4 } from '../../src/wire/address.ts';
import { endpoint, makeEndpointSlice, makeService, servicePort } from '../support/k8s-objects.ts';

const FLUX = makeService('default', 'flux', (svc) => {
  svc.clusterIP = '10.96.40.14';
  svc.ports = [servicePort({ name: 'udp', port: 82, protocol: 'UDP', targetPort: 8002 })];
});

const slices = (address: string, nodeName: string) => [
  makeEndpointSlice(
    'default',
    'flux',
    1,
    [endpoint(address, { nodeName })],
    [{ name: 'udp', port: 8002, protocol: 'UDP' }],
  ),
];

describe('clusterPlan with kube-proxy', () => {
  it('holds each node first sync and cleanup; a resync with the cleanup moves a UDP client to the new endpoint', () => {
    const kubeProxy: PlanKubeProxy = {
      proxier: new IptablesProxier(),
      services: [FLUX],
      endpointSlices: slices('10.244.2.7', 'formation-worker2'),
    };
    const plan = clusterPlan({
      name: 'formation',
      workers: 2,
      cni: new Kindnet(),
      pods: [
        { name: 'diag', node: 'formation-worker', address: '10.244.1.5' },
        { name: 'siga', node: 'formation-worker2', address: '10.244.2.7' },
        { name: 'sigb', node: 'formation-worker', address: '10.244.1.9' },
      ],
      kubeProxy,
    });
    // Per node: the proxier's commands, then the newly active UDP Service's `conntrack -D`.
    const cleanups = plan.kubeProxy.filter((command) => command.argv[0] === 'conntrack');
    expect(cleanups.map((command) => `${command.ns}: ${command.argv.join(' ')}`)).toEqual(
      plan.nodes.map((node) => `${node.ns}: conntrack -D --orig-dst 10.96.40.14 -p udp`),
    );
    expect(plan.kubeProxy.some((command) => command.argv[0] === 'iptables-restore')).toBe(true);
    const sim = new Simulation({ seed: 'plan-kube-proxy' });
    const { runner, results } = runPlan(sim, plan);
    expect(results.filter((result) => result.exitCode !== 0)).toEqual([]);
    for (const command of plan.kubeProxy) {
      const result = runner.run(command);
      // conntrack -D with nothing to delete exits 1 (kube-proxy ignores it).
      if (command.argv[0] === 'conntrack')
        expect(result.stderr).toContain('0 flow entries have been deleted');
      else expect(result.exitCode).toBe(0);
    }
    const ns = (name: string) => runner.nsOf(name);
    const heard: string[] = [];
    for (const pod of ['siga', 'sigb'])
      ns(pod).udp.bind(0, 8002, (datagram) => {
        heard.push(pod);
        ns(pod).udp.send({
          dst: datagram.srcAddr,
          dstPort: datagram.srcPort,
          srcPort: 8002,
          payload: datagram.payload,
        });
      });
    const send = () =>
      ns('diag').udp.send({
        dst: parseIpv4('10.96.40.14')!,
        dstPort: 82,
        srcPort: 41240,
        payload: new Uint8Array([1]),
      });
    send();
    sim.run(0);
    expect(heard).toEqual(['siga']);
    const resync = kubeProxyResync(plan.nodes, kubeProxy, {
      services: [FLUX],
      endpointSlices: slices('10.244.1.9', 'formation-worker'),
    });
    const w1 = plan.nodes[1]!.ns;
    expect(
      resync.filter((c) => c.argv[0] === 'conntrack').map((c) => `${c.ns}: ${c.argv.join(' ')}`),
    ).toEqual(
      plan.nodes.map((node) => `${node.ns}: conntrack -D --orig-dst 10.96.40.14 --dst-nat 10.244.2.7 -p udp`),
    );
    const deleted = resync.map((command) => runner.run(command)).filter((result) => result.exitCode === 0);
    expect(deleted.some((result) => result.stderr.includes('1 flow entries have been deleted'))).toBe(true);
    send();
    sim.run(0);
    expect(heard).toEqual(['siga', 'sigb']);
    expect(exec(ns(w1), 'conntrack -L -p udp --orig-port-src 41240').stdout).toContain(
      'src=10.244.1.9 dst=10.244.1.5',
    );
  });
});
