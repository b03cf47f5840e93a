import { describe, expect, it } from 'vitest';
import { renderPassthrough } from '../../../src/k8s/lb/passthrough-rules.ts';
import { exec } from '../../../src/tools/exec.ts';
import { formatIpv4 } from '../../../src/wire/address.ts';
import { must } from '../services-fixture.ts';
import { lbLab, lbService } from './lab.ts';

describe('the load-balancer controller', () => {
  it('gives the Service the pool’s first address through the Store and holds it on the LB', () => {
    const { svc, lb, controller } = lbLab({ mode: 'passthrough', device: 'ext', policy: 'Local' });
    expect(svc().status.loadBalancerIngress).toEqual(['172.18.255.200']);
    expect(exec(lb, 'ip -br addr show dev ext').stdout).toMatch(/203\.0\.113\.1\/24 172\.18\.255\.200\/32/);
    expect(controller.views()).toEqual([
      { namespace: 'default', name: 'signalements', ingress: '172.18.255.200', inRotation: [] },
    ]);
  });
});

/** n connections from the client to the LB address; the bodies, in order. */
function curls(client: Parameters<typeof exec>[0], n: number): string[] {
  const bodies: string[] = [];
  for (let i = 0; i < n; i++) bodies.push(exec(client, 'curl -sS -m 3 http://172.18.255.200/sante').stdout);
  return bodies;
}

describe('passthrough: DNAT without SNAT, rewritten on health changes', () => {
  it('Local: only the node with a ready endpoint is in rotation, and the pod sees the client', () => {
    const { sim, client, controller, pods } = lbLab({ mode: 'passthrough', device: 'ext', policy: 'Local' });
    sim.run(1e9);
    expect(controller.health.probes.map((p) => [p.at, p.target, p.status])).toEqual([
      [0, '172.18.0.3:32000', 200],
      [0, '172.18.0.4:32000', 503],
    ]);
    expect(controller.ruleset()).toBe(
      [
        'table ip packetlab-lb',
        'delete table ip packetlab-lb',
        'table ip packetlab-lb {',
        '\tchain prerouting {',
        '\t\ttype nat hook prerouting priority dstnat; policy accept;',
        '\t\tip daddr 172.18.255.200 tcp dport 80 jump default-signalements-80-formation-worker',
        '\t}',
        '\tchain default-signalements-80-formation-worker {',
        '\t\tmeta l4proto tcp dnat to 172.18.0.3:30080',
        '\t}',
        '}',
        '',
      ].join('\n'),
    );
    expect(curls(client, 4)).toEqual(Array(4).fill('ok from formation-worker\n'));
    expect(pods[0]!.records.map((r) => r.client)).toEqual(Array(4).fill('203.0.113.10'));
  });

  it('Cluster: both nodes by kube-proxy’s 10256, new connections spread with equal weight (numgen random)', () => {
    const { sim, client, controller, lb } = lbLab({ mode: 'passthrough', device: 'ext', policy: 'Cluster' });
    sim.run(1e9);
    expect(controller.views()[0]!.inRotation).toEqual(['formation-worker', 'formation-worker2']);
    expect(controller.ruleset()).toContain(
      '\t\tip daddr 172.18.255.200 tcp dport 80 numgen random mod 2 vmap { 0 : jump default-signalements-80-formation-worker, 1 : jump default-signalements-80-formation-worker2 }\n',
    );
    const bodies = curls(client, 40);
    const first = bodies.filter((b) => b === 'ok from formation-worker\n').length;
    const second = bodies.filter((b) => b === 'ok from formation-worker2\n').length;
    // 40 draws of the seeded numgen: 23 and 17.
    expect([first, second]).toEqual([23, 17]);
    expect(exec(lb, 'nft list chain ip packetlab-lb prerouting').exitCode).toBe(0);
  });

  it('a node whose health check turns 503 leaves at the next probe and comes back on 200', () => {
    const { sim, client, controller, store } = lbLab({ mode: 'passthrough', device: 'ext', policy: 'Local' });
    sim.run(1e9);
    const slice = store.get('EndpointSlice', 'default', 'signalements-abcde')!;
    sim.run(1e9); // t = 2 s
    const notReady = must(
      store.update<'EndpointSlice'>({
        ...slice,
        endpoints: slice.endpoints.map((e) => ({ ...e, conditions: { ...e.conditions, ready: false } })),
      }),
    );
    sim.run(4e9); // the probe at 5 s sees 503
    expect(controller.views()[0]!.inRotation).toEqual([]);
    expect(controller.ruleset()).toContain('\t\tip daddr 172.18.255.200 tcp dport 80 drop\n');
    const failed = exec(client, 'curl -sS -m 2 http://172.18.255.200/sante');
    expect([failed.exitCode, failed.stderr]).toEqual([
      28,
      'curl: (28) Connection timed out after 2000 milliseconds\n',
    ]);
    // t = 8 s: ready again; the probe at 10 s puts the node back.
    must(store.update<'EndpointSlice'>({ ...notReady, endpoints: slice.endpoints }));
    sim.run(1.9e9);
    expect(controller.views()[0]!.inRotation).toEqual([]);
    sim.run(0.1e9);
    expect(controller.views()[0]!.inRotation).toEqual(['formation-worker']);
    expect(
      controller.health.probes
        .filter((p) => p.target === '172.18.0.3:32000')
        .map((p) => [p.at / 1e9, p.status]),
    ).toEqual([
      [0, 200],
      [5, 503],
      [10, 200],
    ]);
    expect(curls(client, 1)).toEqual(['ok from formation-worker\n']);
  });
});

describe('a health check set by hand on one port', () => {
  it('probes that port on every node whatever the policy; set back, Local probes healthCheckNodePort again', () => {
    const { sim, controller } = lbLab({
      mode: 'passthrough',
      device: 'ext',
      policy: 'Local',
      healthCheck: { port: 10256 },
    });
    sim.run(1e9);
    expect(controller.healthCheckPort).toBe(10256);
    expect(controller.health.probes.map((p) => [p.target, p.status])).toEqual([
      ['172.18.0.3:10256', 200],
      ['172.18.0.4:10256', 200],
    ]);
    // kube-proxy's own health says nothing of the Service: the node without a local endpoint stays in rotation.
    expect(controller.views()[0]!.inRotation).toEqual(['formation-worker', 'formation-worker2']);
    controller.setHealthCheckPort(undefined);
    sim.run(1e9);
    expect(controller.healthCheckPort).toBeUndefined();
    expect(controller.health.probes.slice(2).map((p) => [p.target, p.status])).toEqual([
      ['172.18.0.3:32000', 200],
      ['172.18.0.4:32000', 503],
    ]);
    expect(controller.views()[0]!.inRotation).toEqual(['formation-worker']);
  });
});

describe('proxy: a TCP proxy terminating the client connection', () => {
  it('Cluster: round robin over the nodes; the pods see the LB, not the client', () => {
    const { sim, client, pods, controller } = lbLab({ mode: 'proxy', device: 'ext', policy: 'Cluster' });
    sim.run(1e9);
    expect(curls(client, 4)).toEqual([
      'ok from formation-worker\n',
      'ok from formation-worker2\n',
      'ok from formation-worker\n',
      'ok from formation-worker2\n',
    ]);
    expect(pods[0]!.records.map((r) => r.client)).toEqual(['172.18.0.1', '172.18.0.1']);
    expect(controller.proxy('172.18.255.200', 80)!.stats).toEqual({
      accepted: 4,
      refused: 0,
      perBackend: { '172.18.0.3:30080': 2, '172.18.0.4:30080': 2 },
    });
    expect(controller.ruleset()).toBe('');
  });

  it('with PROXY protocol v2 the pod reads the client address from the header', () => {
    const { sim, client, pods } = lbLab({
      mode: 'proxy',
      device: 'ext',
      policy: 'Local',
      proxyProtocol: true,
      podProxyProtocol: true,
    });
    sim.run(1e9);
    expect(curls(client, 2)).toEqual(Array(2).fill('ok from formation-worker\n'));
    const record = pods[0]!.records[0]!;
    expect([
      record.client,
      formatIpv4(record.peerAddr),
      record.proxiedAddr && formatIpv4(record.proxiedAddr),
    ]).toEqual(['203.0.113.10', '172.18.0.1', '203.0.113.10']);
    expect(pods[0]!.stats.proxyHeaders).toBe(2);
  });

  it('no node in rotation: the client connection is accepted, then reset', () => {
    const { sim, client, controller, store } = lbLab({ mode: 'proxy', device: 'ext', policy: 'Local' });
    sim.run(1e9);
    const slice = store.get('EndpointSlice', 'default', 'signalements-abcde')!;
    must(
      store.update({
        ...slice,
        endpoints: slice.endpoints.map((e) => ({ ...e, conditions: { ...e.conditions, ready: false } })),
      }),
    );
    sim.run(5e9);
    expect(controller.views()[0]!.inRotation).toEqual([]);
    const result = exec(client, 'curl -sS -m 2 http://172.18.255.200/sante');
    expect([result.exitCode, result.stderr]).toEqual([
      56,
      'curl: (56) Recv failure: Connection reset by peer\n',
    ]);
    expect(controller.proxy('172.18.255.200', 80)!.stats.refused).toBe(1);
  });
});

describe('the controller follows the Store', () => {
  it('a later Service gets the next address at the same instant, after every watcher saw it ADDED; deletion frees it', () => {
    const { sim, store, lb, controller } = lbLab({ mode: 'passthrough', device: 'ext', policy: 'Local' });
    const seen: string[] = [];
    store.watch('Service', (event) => {
      seen.push(
        `${event.type} ${event.object.metadata.name} [${event.object.status.loadBalancerIngress.join(',')}]`,
      );
    });
    must(store.create({ ...lbService('Cluster'), metadata: { name: 'web', namespace: 'default' } }));
    expect(seen).toEqual(['ADDED web []']);
    sim.run(0);
    expect(seen).toEqual(['ADDED web []', 'MODIFIED web [172.18.255.201]']);
    expect(controller.views().map((v) => [v.name, v.ingress])).toEqual([
      ['signalements', '172.18.255.200'],
      ['web', '172.18.255.201'],
    ]);
    must(store.delete('Service', 'default', 'signalements'));
    sim.run(0);
    expect(exec(lb, 'ip -br addr show dev ext').stdout).toMatch(
      /203\.0\.113\.1\/24 172\.18\.255\.201\/32 *\n$/,
    );
    must(store.create({ ...lbService('Cluster'), metadata: { name: 'api', namespace: 'default' } }));
    sim.run(0);
    expect(store.get('Service', 'default', 'api')!.status.loadBalancerIngress).toEqual(['172.18.255.200']);
  });
});

describe('renderPassthrough', () => {
  it('a UDP frontend with no node in rotation drops', () => {
    expect(
      renderPassthrough([
        { id: 'kube-system-dns-53', addr: '172.18.255.210', port: 53, protocol: 'UDP', backends: [] },
      ]),
    ).toBe(
      [
        'table ip packetlab-lb',
        'delete table ip packetlab-lb',
        'table ip packetlab-lb {',
        '\tchain prerouting {',
        '\t\ttype nat hook prerouting priority dstnat; policy accept;',
        '\t\tip daddr 172.18.255.210 udp dport 53 drop',
        '\t}',
        '}',
        '',
      ].join('\n'),
    );
  });
});
