// End to end on a wired kind-like cluster, for both kube-proxy modes × Flannel VXLAN and kindnet: a pod reaches a
// ClusterIP (endpoints on its node and the other), reaches itself through its Service (hairpin), the Internet host
// reaches NodePorts with externalTrafficPolicy Cluster and Local (directly and through the passthrough load
// balancer, which follows a Local Service's pod when it moves), a node reaches a NodePort on its 127.0.0.1 (iptables
// mode only), a pod reaches the Internet, a ClusterIP does not answer ping, Service names resolve through CoreDNS,
// and a Deployment scaled to zero makes connections fail with REJECT. Addresses are asserted from the servers'
// access logs and `conntrack -L` on the nodes. Last, the load balancer in proxy mode with PROXY protocol v2.

import { describe, expect, it } from 'vitest';
import { readResolvConf } from '../../../src/app/dns/resolv-conf.ts';
import { type HttpServer, httpServer } from '../../../src/app/http/server.ts';
import { deployment, service } from '../../../src/k8s/api/builders.ts';
import { cluster } from '../../../src/k8s/cluster.ts';
import type { ImageRunner } from '../../../src/k8s/kubelet/kubelet.ts';
import type { Namespace } from '../../../src/netns/namespace.ts';
import { exec } from '../../../src/tools/exec.ts';

type Mode = 'iptables' | 'nftables';
type CniName = 'flannel-vxlan' | 'kindnet';

const APP = { app: 'signalements' };
const ECHO = { app: 'echo' };

/** The lesson's matrix: each cell is one cluster. */
const MATRIX: readonly (readonly [Mode, CniName])[] = [
  ['iptables', 'flannel-vxlan'],
  ['iptables', 'kindnet'],
  ['nftables', 'flannel-vxlan'],
  ['nftables', 'kindnet'],
];

/** The cluster of the lesson with its Services, and every HTTP server by pod name (their access logs). */
function formation(mode: Mode, cni: CniName) {
  const servers = new Map<string, HttpServer>();
  const web: ImageRunner = (ns, pod) => {
    const server = httpServer(ns, {
      port: 8000,
      routes: { '/sante': { body: `${pod.metadata.name}\n` } },
    });
    servers.set(pod.metadata.name, server);
    return { stop: () => server.close() };
  };
  const c = cluster({
    name: 'formation',
    workers: 2,
    cni,
    kubeProxy: mode,
    seed: `e2e-${mode}-${cni}`,
    images: new Map([['signalements:1.0', web]]),
    loadBalancer: { mode: 'passthrough' },
  });
  const must = <T>(result: { ok: true; value: T } | { ok: false; error: { message: string } }): T => {
    if (!result.ok) throw new Error(result.error.message);
    return result.value;
  };
  // The replicas first: the scheduler puts one on each worker (fewest pods, then by name).
  must(
    c.store.create<'Deployment'>(
      deployment({
        name: 'signalements',
        labels: APP,
        replicas: 2,
        image: 'signalements:1.0',
        ports: [{ name: 'http', containerPort: 8000 }],
      }),
    ),
  );
  c.settle();
  must(c.createPod({ name: 'diag', node: 'formation-worker', ip: '10.244.1.5' }));
  // echo: one pod on formation-worker behind its own Services (hairpin, externalTrafficPolicy Local).
  must(
    c.createPod({
      name: 'echo',
      node: 'formation-worker',
      ip: '10.244.1.9',
      image: 'signalements:1.0',
      labels: ECHO,
      ports: [{ name: 'http', containerPort: 8000, protocol: 'TCP' }],
    }),
  );
  must(
    c.store.create<'Service'>(
      service({
        name: 'signalements',
        type: 'LoadBalancer',
        clusterIP: '10.96.40.12',
        ports: [{ name: 'http', port: 80, targetPort: 8000, nodePort: 30080 }],
        selector: APP,
      }),
    ),
  );
  must(
    c.store.create<'Service'>(
      service({
        name: 'echo',
        type: 'LoadBalancer',
        clusterIP: '10.96.40.13',
        externalTrafficPolicy: 'Local',
        healthCheckNodePort: 32000,
        ports: [{ name: 'http', port: 80, targetPort: 8000, nodePort: 30081 }],
        selector: ECHO,
      }),
    ),
  );
  // Pods start, the endpoint controller and kube-proxy sync, the LB's first health checks pass.
  c.sim.run(12e9);
  return { c, servers };
}

function clientsOf(server: HttpServer | undefined, from = 0): string[] {
  return (server?.records ?? []).slice(from).map((record) => record.client);
}

describe.each(MATRIX)('kube-proxy %s × %s', (mode, cni) => {
  const { c, servers } = formation(mode, cni);
  const diag = c.podNamespace('default', 'diag')!;
  const echo = c.podNamespace('default', 'echo')!;
  const replicas = c.store
    .list('Pod', 'default')
    .filter((pod) => pod.metadata.labels['app'] === 'signalements')
    .map((pod) => ({ name: pod.metadata.name, node: pod.spec.nodeName, ip: pod.status.podIP }))
    .sort((a, b) => a.node.localeCompare(b.node));
  /** The address MASQUERADE gives a node's packet toward a pod: the outgoing device's. */
  const masqueradeTo = (podNode: string): string =>
    podNode === 'formation-worker' ? '10.244.1.1' : cni === 'flannel-vxlan' ? '10.244.1.0' : '172.18.0.3';
  const serverOf = (pod: string): HttpServer | undefined => servers.get(pod);
  const curl = (ns: Namespace, url: string, flags = '-s') => exec(ns, `curl ${flags} ${url}`);

  it('runs CoreDNS on the control plane, one signalements replica per worker, and syncs kube-proxy cleanly', () => {
    const coredns = c.store.list('Pod', 'kube-system');
    expect(coredns.map((pod) => [pod.spec.nodeName, pod.status.phase])).toEqual([
      ['formation-control-plane', 'Running'],
      ['formation-control-plane', 'Running'],
    ]);
    expect(c.exec('kubectl get deployments -n kube-system').stdout).toMatch(/^coredns +2\/2 +2 +2 /m);
    expect(replicas.map((pod) => [pod.node, pod.ip])).toEqual([
      ['formation-worker', '10.244.1.2'],
      ['formation-worker2', '10.244.2.2'],
    ]);
    for (const node of c.nodeList()) {
      expect(node.kubeProxy?.syncs.every((sync) => sync.errors.length === 0)).toBe(true);
      expect(
        exec(node.ns, 'curl -s -o /dev/null -w %{http_code} http://127.0.0.1:10256/healthz').stdout,
      ).toBe('200');
    }
  });

  it('pod → ClusterIP: both endpoints (same node, other node) see the pod address, conntrack shows the DNAT', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 16; i++) {
      const result = curl(diag, 'http://10.96.40.12/sante');
      expect(result.exitCode).toBe(0);
      seen.add(result.stdout.trim());
    }
    expect([...seen].sort()).toEqual(replicas.map((pod) => pod.name).sort());
    for (const pod of replicas)
      expect(new Set(clientsOf(serverOf(pod.name)))).toEqual(new Set(['10.244.1.5']));
    const table = c.exec('docker exec formation-worker conntrack -L').stdout;
    for (const pod of replicas)
      expect(table).toMatch(
        new RegExp(
          `src=10\\.244\\.1\\.5 dst=10\\.96\\.40\\.12 sport=\\d+ dport=80 src=${pod.ip.replaceAll('.', '\\.')} dst=10\\.244\\.1\\.5 sport=8000 dport=\\d+ `,
        ),
      );
  });

  it('hairpin: echo reaching itself through its Service sees the node (cni0 / the veth gateway), not itself', () => {
    const before = serverOf('echo')!.records.length;
    const result = curl(echo, 'http://10.96.40.13/sante');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('echo\n');
    expect(clientsOf(serverOf('echo'), before)).toEqual(['10.244.1.1']);
    expect(c.exec('docker exec formation-worker conntrack -L').stdout).toMatch(
      /src=10\.244\.1\.9 dst=10\.96\.40\.13 sport=(\d+) dport=80 src=10\.244\.1\.9 dst=10\.244\.1\.1 sport=8000 dport=\d+ /,
    );
  });

  it('NodePort, externalTrafficPolicy Cluster: from the Internet host the pods see a node address', () => {
    const client = c.internet;
    const marks = replicas.map((pod) => serverOf(pod.name)!.records.length);
    for (let i = 0; i < 12; i++) expect(curl(client, 'http://172.18.0.3:30080/sante').exitCode).toBe(0);
    replicas.forEach((pod, i) => {
      const clients = clientsOf(serverOf(pod.name), marks[i]);
      expect(clients.length).toBeGreaterThan(0);
      expect(new Set(clients)).toEqual(new Set([masqueradeTo(pod.node)]));
    });
    const table = c.exec('docker exec formation-worker conntrack -L').stdout;
    // DNAT to the pod and SNAT to the node's device toward it, in one entry.
    const toRemote = masqueradeTo('formation-worker2').replaceAll('.', '\\.');
    expect(table).toMatch(
      new RegExp(
        `src=203\\.0\\.113\\.10 dst=172\\.18\\.0\\.3 sport=\\d+ dport=30080 src=10\\.244\\.2\\.2 dst=${toRemote} sport=8000 dport=\\d+ `,
      ),
    );
  });

  it("NodePort on the node's 127.0.0.1: iptables mode serves it (route_localnet), nftables mode does not", () => {
    const marks = replicas.map((pod) => serverOf(pod.name)!.records.length);
    const result = c.exec('docker exec formation-worker curl -sS http://127.0.0.1:30080/sante');
    if (mode === 'nftables') {
      expect(result.exitCode).toBe(7);
      expect(result.stderr).toMatch(
        /^curl: \(7\) Failed to connect to 127\.0\.0\.1 port 30080 after \d+ ms: /,
      );
      return;
    }
    expect(result.exitCode).toBe(0);
    const served = replicas.filter((pod, i) => serverOf(pod.name)!.records.length > marks[i]!);
    expect(served).toHaveLength(1);
    expect(clientsOf(serverOf(served[0]!.name)).at(-1)).toBe(masqueradeTo(served[0]!.node));
  });

  it('NodePort, externalTrafficPolicy Local: the client address is kept; a node without a pod drops', () => {
    const before = serverOf('echo')!.records.length;
    const kept = curl(c.internet, 'http://172.18.0.3:30081/sante');
    expect(kept.exitCode).toBe(0);
    expect(clientsOf(serverOf('echo'), before)).toEqual(['203.0.113.10']);
    expect(c.exec('docker exec formation-worker conntrack -L -p tcp --orig-port-dst 30081').stdout).toMatch(
      /src=203\.0\.113\.10 dst=172\.18\.0\.3 sport=\d+ dport=30081 src=10\.244\.1\.9 dst=203\.0\.113\.10 sport=8000 dport=\d+ /,
    );
    const dropped = curl(c.internet, 'http://172.18.0.4:30081/sante', '-s --max-time 2');
    expect(dropped.exitCode).toBe(28);
    expect(serverOf('echo')!.records.length).toBe(before + 1);
  });

  it('the load balancer: ingress addresses, Cluster spread over both workers, Local only to the node with a pod', () => {
    const lb = c.loadBalancer!;
    expect(lb.views().map((view) => [view.name, view.ingress, view.inRotation.join(',')])).toEqual([
      ['signalements', '172.18.255.200', 'formation-worker,formation-worker2'],
      ['echo', '172.18.255.201', 'formation-worker'],
    ]);
    expect(c.exec('kubectl get svc echo').stdout).toMatch(/172\.18\.255\.201 +80:30081\/TCP/);
    const before = serverOf('echo')!.records.length;
    for (let i = 0; i < 6; i++) expect(curl(c.internet, 'http://172.18.255.201/sante').stdout).toBe('echo\n');
    expect(clientsOf(serverOf('echo'), before)).toEqual(Array(6).fill('203.0.113.10'));
    for (let i = 0; i < 6; i++) expect(curl(c.internet, 'http://172.18.255.200/sante').exitCode).toBe(0);
    // The health check of the node without a local endpoint: kube-proxy answers 503 with localEndpoints 0.
    const probe = exec(c.outside, 'curl -s -w " %{http_code}" http://172.18.0.4:32000/');
    expect(probe.stdout).toMatch(/"localEndpoints": 0,[\s\S]* 503$/);
  });

  it('pod → external: the node masquerades the pod to its own address (then Docker to the host)', () => {
    const api = httpServer(c.internet, { port: 8080, routes: { '/': { body: 'api\n' } } });
    const result = curl(diag, 'http://203.0.113.10:8080/');
    api.close();
    expect(result.stdout).toBe('api\n');
    expect(c.exec('docker exec formation-worker conntrack -L -p tcp --orig-dst 203.0.113.10').stdout).toMatch(
      /src=10\.244\.1\.5 dst=203\.0\.113\.10 sport=(\d+) dport=8080 src=203\.0\.113\.10 dst=172\.18\.0\.3 /,
    );
    expect(exec(c.outside, 'conntrack -L -p tcp --orig-dst 203.0.113.10').stdout).toMatch(
      /src=172\.18\.0\.3 dst=203\.0\.113\.10 sport=\d+ dport=8080 src=203\.0\.113\.10 dst=203\.0\.113\.1 /,
    );
    expect(api.records.map((record) => record.client)).toEqual(['203.0.113.1']);
  });

  it('ping to a ClusterIP gets no answer', () => {
    const result = exec(diag, 'ping -c 2 -W 1 10.96.40.12');
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toMatch(/2 packets transmitted, 0 received, .*100% packet loss/);
  });

  it('DNS: Service names resolve through kube-dns from the pod search list and as FQDNs', () => {
    expect(readResolvConf(diag)).toBe(
      'search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n',
    );
    const short = c.exec('kubectl exec diag -- curl -s http://signalements/sante');
    expect(short.exitCode).toBe(0);
    expect(short.stdout).toMatch(/^signalements-[0-9a-f]+-[0-9a-z]{5}\n$/);
    const fqdn = curl(diag, 'http://signalements.default.svc.cluster.local/sante', '-sv');
    expect(fqdn.exitCode).toBe(0);
    expect(fqdn.stderr).toContain('Trying 10.96.40.12:80...');
    expect(curl(diag, 'http://echo.default/sante').stdout).toBe('echo\n');
    const missing = curl(diag, 'http://nope/sante', '-sS');
    expect(missing.exitCode).toBe(6);
    expect(missing.stderr).toBe('curl: (6) Could not resolve host: nope\n');
  });

  it('Local: when the only pod moves to the other node, the health checks move the LB to that node', () => {
    expect(c.controlPlane!.deletePod('default', 'echo', 0).ok).toBe(true);
    const moved = c.createPod({
      name: 'echo-2',
      node: 'formation-worker2',
      image: 'signalements:1.0',
      labels: ECHO,
      ports: [{ name: 'http', containerPort: 8000, protocol: 'TCP' }],
    });
    expect(moved.ok).toBe(true);
    c.sim.run(12e9);
    const view = c.loadBalancer!.views().find((v) => v.name === 'echo')!;
    expect(view.inRotation).toEqual(['formation-worker2']);
    const health = (node: string) =>
      exec(c.outside, `curl -s -o /dev/null -w %{http_code} http://${node}:32000/`).stdout;
    expect([health('172.18.0.3'), health('172.18.0.4')]).toEqual(['503', '200']);
    for (let i = 0; i < 4; i++)
      expect(curl(c.internet, 'http://172.18.255.201/sante').stdout).toBe('echo-2\n');
    expect(new Set(clientsOf(serverOf('echo-2')))).toEqual(new Set(['203.0.113.10']));
    expect(curl(c.internet, 'http://172.18.0.3:30081/sante', '-s --max-time 2').exitCode).toBe(28);
  });

  it('scaling the Deployment to zero: connections to the ClusterIP are rejected (curl exit 7)', () => {
    expect(c.controlPlane!.scale('default', 'signalements', 0).ok).toBe(true);
    c.sim.run(35e9);
    expect(
      c.store
        .list('Pod', 'default')
        .map((pod) => pod.metadata.name)
        .sort(),
    ).toEqual(['diag', 'echo-2']);
    const rules =
      mode === 'iptables'
        ? c.exec('docker exec formation-worker iptables-save -t filter').stdout
        : c.exec('docker exec formation-worker nft list map ip kube-proxy no-endpoint-services').stdout;
    expect(rules).toContain(
      mode === 'iptables'
        ? '-A KUBE-SERVICES -d 10.96.40.12/32 -p tcp -m comment --comment "default/signalements:http has no endpoints" -m tcp --dport 80 -j REJECT --reject-with icmp-port-unreachable'
        : '10.96.40.12 . tcp . 80 comment "default/signalements:http" : goto reject-chain',
    );
    const result = curl(diag, 'http://10.96.40.12/sante', '-sS');
    expect(result.exitCode).toBe(7);
    expect(result.stderr).toMatch(/^curl: \(7\) Failed to connect to 10\.96\.40\.12 port 80 after \d+ ms: /);
  });
});

describe('the load balancer in proxy mode with PROXY protocol v2 (kube-proxy iptables × kindnet)', () => {
  const servers = new Map<string, HttpServer>();
  const web: ImageRunner = (ns, pod) => {
    const server = httpServer(ns, {
      port: 8000,
      routes: { '/sante': { body: `${pod.metadata.name}\n` } },
      proxyProtocol: true,
    });
    servers.set(pod.metadata.name, server);
    return { stop: () => server.close() };
  };
  const c = cluster({
    name: 'formation',
    workers: 2,
    cni: 'kindnet',
    seed: 'e2e-proxy',
    images: new Map([['signalements:1.0-pp', web]]),
  });
  const lb = c.addLoadBalancer({ mode: 'proxy', proxyProtocol: true });
  c.store.create<'Deployment'>(
    deployment({ name: 'signalements', labels: APP, replicas: 2, image: 'signalements:1.0-pp' }),
  );
  c.store.create<'Service'>(
    service({
      name: 'signalements',
      type: 'LoadBalancer',
      ports: [{ name: 'http', port: 80, targetPort: 8000, nodePort: 30080 }],
      selector: APP,
    }),
  );
  c.sim.run(12e9);

  it('spreads over both workers round robin; the pods log the client from the PROXY header, not the node', () => {
    expect(lb.views().map((view) => [view.ingress, view.inRotation.join(',')])).toEqual([
      ['172.18.255.200', 'formation-worker,formation-worker2'],
    ]);
    for (let i = 0; i < 4; i++)
      expect(exec(c.internet, 'curl -s http://172.18.255.200/sante').stdout).toMatch(/^signalements-/);
    const records = [...servers.values()].flatMap((server) => server.records);
    expect(records).toHaveLength(4);
    expect(new Set(records.map((record) => record.client))).toEqual(new Set(['203.0.113.10']));
    // The TCP peer is never the client: externalTrafficPolicy Cluster masquerades the LB's connection on the node.
    for (const record of records) expect(record.peerAddr).not.toBe(record.proxiedAddr);
    expect(lb.proxy('172.18.255.200', 80)?.stats.perBackend).toEqual({
      '172.18.0.3:30080': 2,
      '172.18.0.4:30080': 2,
    });
  });
});
