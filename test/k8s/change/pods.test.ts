// Pods change while diag's load runs against the ClusterIP: a Deployment scaled up and down, a pod deleted
// gracefully, deleted at once, rescheduled onto another node, and marked unready, in both kube-proxy modes (flannel
// VXLAN with iptables, kindnet with nftables). Each case asserts what a user sees: the load generator's successes
// and failures by errno or curl code in steps of virtual time, the EndpointSlice's conditions, the node's rules after
// kube-proxy's next sync, the pod's veth and routes, and the conntrack entries of flows that were established.

import { describe, expect, it } from 'vitest';
import { loadGenerator } from '../../../src/app/load/generator.ts';
import { exec } from '../../../src/tools/exec.ts';
import {
  appPods,
  CLUSTER_IP,
  endpoints,
  failuresOf,
  formation,
  hostVeth,
  links,
  must,
  ruleEndpoints,
  syncNow,
  TARGET,
  timeline,
} from './fixture.ts';

describe.each([
  ['iptables', 'flannel-vxlan'],
  ['nftables', 'kindnet'],
] as const)('kube-proxy %s on %s: pods change under load', (mode, cni) => {
  it('scaling up adds endpoints with no failure; scaling down refuses connections until the next sync', () => {
    const { c } = formation({ kubeProxy: mode, cni });
    const diag = c.podNamespace('default', 'diag')!;
    const load = loadGenerator(diag, {
      target: TARGET,
      path: '/sante',
      rate: 100,
      durationMs: 8000,
      arrivals: 'uniform',
    });
    const warm = timeline(c, load, 500, 2);
    expect(failuresOf(warm)).toEqual({});
    expect(warm[1]!.ok).toBe(50);

    must(c.controlPlane!.scale('default', 'signalements', 4));
    const up = timeline(c, load, 1000, 1);
    expect(failuresOf(up)).toEqual({});
    expect(appPods(c).map((p) => p.status.phase)).toEqual(['Running', 'Running', 'Running', 'Running']);
    const four = appPods(c)
      .map((p) => `${p.status.podIP}:8000`)
      .sort();
    expect(endpoints(c).filter((e) => e.endsWith('true/true/false'))).toHaveLength(4);
    for (const node of c.nodeList()) expect(ruleEndpoints(c, node.name, mode)).toEqual(four);

    // Down to 1 right after a sync: the three pods chosen go Terminating, their containers are killed at once, and
    // kube-proxy's rules keep them until the sync minSyncPeriod after the last one.
    syncNow(c);
    must(c.controlPlane!.scale('default', 'signalements', 1));
    c.sim.run(0);
    const terminating = appPods(c).filter((p) => p.metadata.deletionTimestamp !== undefined);
    expect(terminating).toHaveLength(3);
    expect(endpoints(c).filter((e) => e.endsWith('false/false/true'))).toHaveLength(3);
    expect(ruleEndpoints(c, 'formation-worker', mode)).toEqual(four);
    const gap = timeline(c, load, 100, 10);
    // Connections DNATed to a killed pod reach its sandbox, where nothing listens: a reset, ECONNREFUSED.
    expect(Object.keys(failuresOf(gap))).toEqual(['ECONNREFUSED']);
    expect(failuresOf(gap).ECONNREFUSED).toBeGreaterThan(30);
    const survivor = appPods(c).find((p) => p.metadata.deletionTimestamp === undefined)!;
    for (const node of c.nodeList())
      expect(ruleEndpoints(c, node.name, mode)).toEqual([`${survivor.status.podIP}:8000`]);
    const after = timeline(c, load, 1000, 2);
    expect(failuresOf(after)).toEqual({});
    expect(after.map((s) => s.ok)).toEqual([100, 100]);
  });

  it('scaling to zero: the terminating endpoints stop serving once their containers exit, kube-proxy rejects', () => {
    const { c } = formation({ kubeProxy: mode, cni });
    const diag = c.podNamespace('default', 'diag')!;
    const load = loadGenerator(diag, {
      target: TARGET,
      path: '/sante',
      rate: 100,
      durationMs: 4000,
      arrivals: 'uniform',
    });
    timeline(c, load, 500, 2);
    must(c.controlPlane!.scale('default', 'signalements', 0));
    c.sim.run(0);
    // ready=false serving=false: no serving-terminating endpoint for kube-proxy to fall back on.
    expect(endpoints(c).map((e) => e.split(' ')[2])).toEqual(['false/false/true', 'false/false/true']);
    const steps = timeline(c, load, 1000, 2);
    expect(steps.map((s) => s.ok)).toEqual([0, 0]);
    expect(Object.keys(failuresOf(steps))).toEqual(['ECONNREFUSED']);
    expect(ruleEndpoints(c, 'formation-worker', mode)).toEqual([]);
    const rules =
      mode === 'iptables'
        ? c.exec('docker exec formation-worker iptables-save -t filter').stdout
        : c.exec('docker exec formation-worker nft list table ip kube-proxy').stdout;
    expect(rules).toMatch(
      mode === 'iptables'
        ? /-A KUBE-SERVICES -d 10\.96\.40\.12\/32 -p tcp -m comment --comment "default\/signalements:http has no endpoints" -m tcp --dport 80 -j REJECT/
        : /10\.96\.40\.12 \. tcp \. 80 comment "default\/signalements:http" : goto reject-chain/,
    );
  });

  it('a graceful delete: terminating endpoint, refused connections until the sync, then the sandbox goes after its grace period', () => {
    const { c } = formation({ kubeProxy: mode, cni, graceSeconds: 3 });
    const diag = c.podNamespace('default', 'diag')!;
    const load = loadGenerator(diag, {
      target: TARGET,
      path: '/sante',
      rate: 100,
      durationMs: 9000,
      arrivals: 'uniform',
    });
    const pool = loadGenerator(diag, {
      target: TARGET,
      path: '/sante',
      concurrency: 4,
      thinkMs: 50,
      keepAlive: true,
      durationMs: 9000,
    });
    timeline(c, load, 500, 2);
    const pooled = pool.report().connections;
    const victim = appPods(c).find((p) => p.spec.nodeName === 'formation-worker2')!;
    const veth = hostVeth(c, victim);
    expect(links(c, 'formation-worker2')).toContain(veth);
    // The pool's connections to the victim (the open loop's connections close at once: not ESTABLISHED).
    const onVictim = c
      .exec(`docker exec formation-worker conntrack -L -d ${CLUSTER_IP}`)
      .stdout.split('\n')
      .filter((line) => line.includes(` src=${victim.status.podIP} `) && line.includes('ESTABLISHED')).length;
    syncNow(c);
    must(c.controlPlane!.deletePod('default', victim.metadata.name));
    c.sim.run(0);
    expect(endpoints(c).find((e) => e.startsWith(`${victim.status.podIP} `))).toBe(
      `${victim.status.podIP} formation-worker2 false/false/true`,
    );
    expect(c.exec('kubectl get pods').stdout).toMatch(
      new RegExp(`${victim.metadata.name} +0/1 +Terminating`),
    );
    const steps = timeline(c, load, 100, 10);
    expect(Object.keys(failuresOf(steps))).toEqual(['ECONNREFUSED']);
    // The rules name the victim no more; the replacement the Deployment made is in them.
    const expected = appPods(c)
      .filter((p) => p.metadata.deletionTimestamp === undefined)
      .map((p) => `${p.status.podIP}:8000`)
      .sort();
    expect(expected).toHaveLength(2);
    expect(ruleEndpoints(c, 'formation-worker', mode)).toEqual(expected);
    expect(failuresOf(timeline(c, load, 1000, 1))).toEqual({});
    // Until its grace period ends, the sandbox (veth, kindnet's host route) is still there.
    expect(links(c, 'formation-worker2')).toContain(veth);
    // The killed process's connections were closed (FIN): the pool dropped those it held to the victim and opened
    // new ones, each DNATed afresh; none of its requests failed.
    expect(onVictim).toBeGreaterThan(0);
    expect(pool.report().connections).toBe(pooled + onVictim);
    expect(pool.report().failures).toEqual({});
    c.sim.run(2.5e9);
    expect(c.store.get('Pod', 'default', victim.metadata.name)).toBeUndefined();
    expect(links(c, 'formation-worker2')).not.toContain(veth);
    const routes = c.exec('docker exec formation-worker2 ip route').stdout;
    expect(routes).not.toContain(`${victim.status.podIP} `);
    expect(endpoints(c).some((e) => e.startsWith(`${victim.status.podIP} `))).toBe(false);
    expect(failuresOf(timeline(c, load, 1000, 2))).toEqual({});
  });

  it('a delete at once during the sync gap: new connections to the gone address time out, an established flow keeps its DNAT entry', () => {
    const { c } = formation({ kubeProxy: mode, cni });
    const diag = c.podNamespace('default', 'diag')!;
    // A keep-alive pool of 4 connections, and new connections at 100/s.
    const pool = loadGenerator(diag, {
      target: TARGET,
      path: '/sante',
      concurrency: 4,
      thinkMs: 50,
      keepAlive: true,
      durationMs: 9000,
      timeoutMs: 2000,
    });
    const load = loadGenerator(diag, {
      target: TARGET,
      path: '/sante',
      rate: 100,
      durationMs: 9000,
      arrivals: 'uniform',
      timeoutMs: 2000,
    });
    timeline(c, load, 500, 2);
    const victim = appPods(c).find((p) => p.spec.nodeName === 'formation-worker2')!;
    const address = victim.status.podIP;
    const veth = hostVeth(c, victim);
    syncNow(c);
    must(c.controlPlane!.deletePod('default', victim.metadata.name, 0));
    c.sim.run(0);
    // The pod object, its endpoint and its sandbox are gone at once; the rules still send to it until the sync.
    expect(c.store.get('Pod', 'default', victim.metadata.name)).toBeUndefined();
    expect(endpoints(c).some((e) => e.startsWith(`${address} `))).toBe(false);
    expect(links(c, 'formation-worker2')).not.toContain(veth);
    expect(c.exec('docker exec formation-worker2 ip route').stdout).not.toContain(`${address} `);
    expect(ruleEndpoints(c, 'formation-worker', mode)).toContain(`${address}:8000`);
    if (cni === 'flannel-vxlan') {
      // The bridge forgot the port but the node's neighbour entry on cni0 lives on (REACHABLE until its timer
      // runs out): SYNs are flooded to the remaining ports and nobody answers. No ARP failure, so no ICMP.
      expect(c.exec('docker exec formation-worker2 ip neigh').stdout).toMatch(
        new RegExp(`^${address.replaceAll('.', '\\.')} dev cni0 lladdr \\S+ REACHABLE`, 'm'),
      );
    }
    const gap = timeline(c, load, 100, 10);
    expect(failuresOf(gap)).toEqual({});
    // Their SYNs go unanswered: curl's timeout (28) 2 s later.
    const later = timeline(c, load, 1000, 3);
    expect(Object.keys(failuresOf(later))).toEqual(['curl 28']);
    expect(failuresOf(later)['curl 28']).toBeGreaterThan(30);
    expect(failuresOf(timeline(c, load, 1000, 1))).toEqual({});
    // The pool's connections to the deleted pod: their conntrack entries still DNAT to it, now on the 300 s timeout
    // of unacknowledged data (nf_conntrack_tcp_timeout_unacknowledged); the request on each timed out and the pool
    // reconnected to the remaining endpoints.
    const entries = c
      .exec(`docker exec formation-worker conntrack -L -d ${CLUSTER_IP}`)
      .stdout.split('\n')
      .filter((line) => line.includes(` src=${address} `) && line.includes('ESTABLISHED'));
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) expect(Number(entry.split(/\s+/)[2])).toBeLessThanOrEqual(300);
    expect(pool.report().failures).toEqual({ 'curl 28': entries.length });
    expect(pool.report().succeeded).toBeGreaterThan(300);
  });

  it('a long sync gap (minSyncPeriod 60 s): connections to the gone address time out, and once its neighbour entry failed some hear No route to host', () => {
    const { c } = formation({ kubeProxy: mode, cni, minSyncPeriodMs: 60_000 });
    // Let the first minSyncPeriod pass, so that the Service is in the rules.
    c.sim.run(60e9);
    const diag = c.podNamespace('default', 'diag')!;
    const load = loadGenerator(diag, {
      target: TARGET,
      path: '/sante',
      rate: 20,
      durationMs: 90_000,
      arrivals: 'uniform',
      timeoutMs: 5000,
    });
    timeline(c, load, 1000, 1);
    const victim = appPods(c).find((p) => p.spec.nodeName === 'formation-worker2')!;
    syncNow(c);
    must(c.controlPlane!.deletePod('default', victim.metadata.name, 0));
    const gap = timeline(c, load, 10_000, 5);
    const failures = failuresOf(gap);
    expect(failures['curl 28']).toBeGreaterThan(200);
    if (cni === 'flannel-vxlan') {
      // The entry (idle for a minute, STALE) failed its probes: each new SYN re-arms it, ARP fails again and the
      // queued packets get host unreachable, but icmp_ratelimit lets about one ICMP a second reach diag.
      expect(c.exec(`docker exec formation-worker2 ip neigh show ${victim.status.podIP}`).stdout).toMatch(
        / dev cni0 (FAILED|INCOMPLETE) \n$/,
      );
      expect(failures.EHOSTUNREACH).toBeGreaterThan(0);
      expect(failures.EHOSTUNREACH).toBeLessThan(60);
    } else expect(Object.keys(failures)).toEqual(['curl 28']);
    // Half the new connections still succeed (the other endpoint), and none fail after the sync.
    expect(gap.reduce((sum, s) => sum + s.ok, 0)).toBeGreaterThan(400);
    // The sync comes minSyncPeriod after the one syncNow caused; what started before it has timed out 5 s later.
    c.sim.run(20e9);
    const after = timeline(c, load, 5000, 1);
    expect(failuresOf(after)).toEqual({});
    expect(after[0]!.ok).toBe(100);
  });

  it('a reschedule: with formation-worker2 cordoned, the Deployment recreates the deleted pod on formation-worker', () => {
    const { c } = formation({ kubeProxy: mode, cni, graceSeconds: 2 });
    const diag = c.podNamespace('default', 'diag')!;
    const load = loadGenerator(diag, {
      target: TARGET,
      path: '/sante',
      rate: 100,
      durationMs: 6000,
      arrivals: 'uniform',
    });
    timeline(c, load, 500, 2);
    const node = c.store.get('Node', '', 'formation-worker2')!;
    must(c.store.update({ ...node, spec: { ...node.spec, unschedulable: true } }));
    const victim = appPods(c).find((p) => p.spec.nodeName === 'formation-worker2')!;
    must(c.controlPlane!.deletePod('default', victim.metadata.name));
    c.sim.run(0);
    const replacement = appPods(c).find((p) => p.metadata.creationTimestamp === c.sim.now)!;
    expect(replacement.spec.nodeName).toBe('formation-worker');
    expect(replacement.status.podIP).toMatch(/^10\.244\.1\./);
    const steps = timeline(c, load, 500, 4);
    expect(Object.keys(failuresOf(steps)).every((key) => key === 'ECONNREFUSED')).toBe(true);
    expect(endpoints(c).filter((e) => e.endsWith('true/true/false'))).toEqual(
      appPods(c)
        .filter((p) => p.metadata.deletionTimestamp === undefined)
        .map((p) => `${p.status.podIP} formation-worker true/true/false`)
        .sort(),
    );
    for (const n of c.nodeList())
      expect(ruleEndpoints(c, n.name, mode).every((e) => e.startsWith('10.244.1.'))).toBe(true);
    expect(links(c, 'formation-worker2').filter((l) => l.startsWith('veth'))).toEqual([]);
    expect(exec(diag, `curl -s http://${CLUSTER_IP}/sante`).stdout).toMatch(/^signalements-/);
  });

  it('an endpoint marked unready: new connections avoid it after the sync, established flows keep reaching it', () => {
    const { c, servers } = formation({ kubeProxy: mode, cni });
    const diag = c.podNamespace('default', 'diag')!;
    const pool = loadGenerator(diag, {
      target: TARGET,
      path: '/sante',
      concurrency: 8,
      thinkMs: 20,
      keepAlive: true,
      durationMs: 6000,
    });
    const load = loadGenerator(diag, {
      target: TARGET,
      path: '/sante',
      rate: 100,
      durationMs: 6000,
      arrivals: 'uniform',
    });
    timeline(c, load, 500, 2);
    const sick = appPods(c).find((p) => p.spec.nodeName === 'formation-worker2')!;
    const server = servers.get(sick.metadata.name)!;
    // The readiness probe fails: the kubelet writes the container and the pod not ready.
    const containerStatuses = sick.status.containerStatuses.map((s) => ({ ...s, ready: false }));
    must(c.store.update({ ...sick, status: { ...sick.status, ready: false, containerStatuses } }));
    c.sim.run(0);
    expect(endpoints(c).find((e) => e.startsWith(`${sick.status.podIP} `))).toBe(
      `${sick.status.podIP} formation-worker2 false/false/false`,
    );
    expect(c.exec('kubectl get pods').stdout).toMatch(new RegExp(`${sick.metadata.name} +0/1 +Running`));
    for (const node of c.nodeList())
      expect(ruleEndpoints(c, node.name, mode)).not.toContain(`${sick.status.podIP}:8000`);
    const before = { connections: server.stats.connections, requests: server.stats.requests };
    const steps = timeline(c, load, 1000, 3);
    expect(failuresOf(steps)).toEqual({});
    expect(pool.report().failures).toEqual({});
    // No new connection reached it; the pool's established flows (their conntrack entries) still do.
    expect(server.stats.connections).toBe(before.connections);
    expect(server.stats.requests).toBeGreaterThan(before.requests + 100);
    const flows = c
      .exec(`docker exec formation-worker conntrack -L -d ${CLUSTER_IP}`)
      .stdout.split('\n')
      .filter((line) => line.includes(` src=${sick.status.podIP} `) && line.includes('ESTABLISHED'));
    expect(flows.length).toBeGreaterThan(0);
  });
});
