// The cluster formation behind an external load balancer, as the exercises and security stories use it: the Service
// signalements turned into a LoadBalancer (what `kubectl patch svc signalements -p '{"spec":{"type":"LoadBalancer"}}'`
// does), the load balancer in the Docker host's namespace (passthrough DNAT, or a TCP proxy with PROXY v2 like the
// Scaleway LB's proxy-protocol-v2 option), and Internet clients at 203.0.113.x calling its address. Not here: a
// cloud's own API or console (the balancer's settings are packetlab's options, shown as text).

import type { ClusterLoadBalancerOptions } from '../src/k8s/cluster.ts';
import type { LoadBalancerController } from '../src/k8s/lb/controller.ts';
import type { Service } from '../src/k8s/objects.ts';
import type { Story } from '../src/story/story.ts';
import { exec } from '../src/tools/exec.ts';
import type { CommandResult } from '../src/tools/result.ts';
import type { Formation } from './formation-cluster.ts';

/** The first address of the balancer's pool: what the Service gets as its EXTERNAL-IP. */
export const LB_ADDRESS = '172.18.255.200';

/** Seconds of virtual time for the balancer's first health checks and kube-proxy's sync to settle. */
const SETTLE_NS = 12e9;

/** Changes the Service signalements through the Store, as `kubectl patch` would; throws when the API refuses. */
export function patchSignalements(f: Formation, spec: Partial<Service['spec']>): Service {
  const svc = f.c.store.get('Service', 'default', 'signalements');
  if (svc === undefined) throw new Error('no Service signalements');
  const updated = f.c.store.update<'Service'>({ ...svc, spec: { ...svc.spec, ...spec } });
  if (!updated.ok) throw new Error(`service signalements: ${updated.error.message}`);
  return updated.value;
}

/** The balancer in front of the cluster, signalements a LoadBalancer of the given policy, settled. */
export function behindLoadBalancer(
  f: Formation,
  options: ClusterLoadBalancerOptions,
  policy: 'Cluster' | 'Local',
): LoadBalancerController {
  const lb = f.c.addLoadBalancer(options);
  patchSignalements(f, { type: 'LoadBalancer', externalTrafficPolicy: policy });
  f.c.sim.run(SETTLE_NS);
  return lb;
}

/** Waits for health checks and kube-proxy after a change (a policy, the balancer's settings). */
export function settle(f: Formation): void {
  f.c.sim.run(SETTLE_NS);
}

/**
 * An HTTP/1.0 GET of `path` from an Internet client address (added to the Internet host's eth0 when it is not
 * 203.0.113.10) to the balancer, with OpenBSD nc's `-s`, recorded as a terminal shows it.
 */
export function fromInternet(f: Formation, story: Story, client: string, path = '/sante'): CommandResult {
  const internet = f.c.internet;
  const own = exec(internet, 'ip -br addr show dev eth0').stdout;
  if (!own.includes(` ${client}/`)) story.run('$', internet, `ip addr add ${client}/24 dev eth0`);
  const request = `GET ${path} HTTP/1.0\r\n\r\n`;
  const line = `nc -N -w 3 -s ${client} ${LB_ADDRESS} 80`;
  const result = exec(internet, line, { stdin: request });
  story.record('$', `printf ${JSON.stringify(request)} | ${line}`, result);
  f.c.sim.run(100_000_000);
  return result;
}

/** The status line of an HTTP answer (`HTTP/1.0 200 OK`), or what came instead. */
export function statusLine(answer: string): string {
  return answer.split('\r\n')[0] || '(nothing)';
}
