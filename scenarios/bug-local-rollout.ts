// Bug replay kubernetes/kubernetes#85643 ("Create ability to do zero downtime deployments when using
// externalTrafficPolicy: Local", also #73362): a LoadBalancer Service with externalTrafficPolicy Local in front of a
// one-replica Deployment; a rolling update starts the new pod on the other node and deletes the old one, whose
// container stops at once. Until the load balancer's health check (every 5 s, out after 2 failures) sees
// kube-proxy's healthCheckNodePort answer 503, it keeps sending a share of the requests to the node that no longer
// has a local endpoint: refused, then dropped by kube-proxy's "has no local endpoints" rule. With a preStop sleep
// longer than that detection, the terminating pod keeps serving (kube-proxy sends Local traffic to a serving,
// terminating endpoint: ProxyTerminatingEndpoints) while the health check already answers 503, and nothing fails.

import { httpServer } from '../src/app/http/server.ts';
import { loadGenerator } from '../src/app/load/generator.ts';
import { deployment, service } from '../src/k8s/api/builders.ts';
import { Story, type StoryResult } from '../src/story/story.ts';
import { formation, shell } from './formation-cluster.ts';

export type RolloutVariant = 'no-prestop' | 'prestop';
export const ROLLOUT_VARIANTS: readonly RolloutVariant[] = ['no-prestop', 'prestop'];

const SECOND = 1_000_000_000;
const PRE_STOP_SECONDS = 15;
const HEALTH = { intervalSeconds: 5, unhealthyThreshold: 2 } as const;
const RATE = 20;
const WATCH_SECONDS = 20;

export function localRolloutStory(variant: RolloutVariant, seed: string | number): StoryResult {
  const preStop = variant === 'prestop';
  const { c, images } = formation({
    cni: 'kindnet',
    kubeProxy: 'iptables',
    seed,
    pods: ['diag'],
    extra: { loadBalancer: { mode: 'passthrough', healthCheck: HEALTH } },
  });
  for (const version of ['1', '2'])
    images.set(`registry.lyneko.fr/web:${version}`, (ns, pod) => {
      const server = httpServer(ns, {
        port: 8000,
        routes: { '/': { body: `v${version} ${pod.metadata.name}\n` } },
      });
      return { stop: () => server.close() };
    });
  const labels = { app: 'web' };
  const created =
    c.store.create(
      deployment({
        name: 'web',
        labels,
        replicas: 1,
        image: 'registry.lyneko.fr/web:1',
        ports: [{ name: 'http', containerPort: 8000, protocol: 'TCP' }],
        readinessProbe: { httpGet: { path: '/', port: 8000 }, periodSeconds: 2, failureThreshold: 3 },
        ...(preStop ? { preStopSleepSeconds: PRE_STOP_SECONDS } : {}),
      }),
    ).ok &&
    c.store.create(
      service({
        name: 'web',
        type: 'LoadBalancer',
        externalTrafficPolicy: 'Local',
        ports: [{ name: 'http', port: 80, targetPort: 8000 }],
        selector: labels,
      }),
    ).ok;
  if (!created) throw new Error('bug-local-rollout: web Deployment or Service refused');
  c.sim.run(15 * SECOND);
  const lb = c.loadBalancer!;
  const svc = c.store.get('Service', 'default', 'web')!;
  const ingress = lb.views()[0]?.ingress ?? '';
  const hcPort = svc.spec.healthCheckNodePort;

  const story = new Story('bug-local-rollout', seed);
  story.attach(c.sim);
  const sh = shell(c, story);
  story.say(
    `kubernetes/kubernetes#85643 "zero downtime deployments when using externalTrafficPolicy: Local": the load balancer ${ingress} sends to the nodes whose kube-proxy answers 200 on the healthCheckNodePort ${hcPort} (they have a ready local endpoint), probing every ${HEALTH.intervalSeconds} s and taking a node out after ${HEALTH.unhealthyThreshold} failures; the Deployment web has ${preStop ? `a preStop sleep of ${PRE_STOP_SECONDS} s` : 'no preStop hook'}`,
  );
  sh('kubectl get pods -o wide');
  sh('kubectl get svc web');
  const before = sh.host(`curl -s -w ' %{http_code}\\n' http://172.18.0.4:${hcPort}/`).stdout;
  story.expectThat(
    "formation-worker2 runs the pod: its kube-proxy's health check answers 200, one local endpoint",
    '"localEndpoints": 1 ... 200',
    before.trim(),
    before.includes('"localEndpoints": 1') && before.trimEnd().endsWith(' 200'),
  );
  story.expectEqual(
    'the load balancer sends to formation-worker2 only',
    'formation-worker2',
    lb.views()[0]?.inRotation.join(','),
  );

  story.say(
    `a client on the Internet sends ${RATE} requests a second to ${ingress}; the rollout (kubectl set image deployment/web web=registry.lyneko.fr/web:2) starts a new pod, and deletes the old one once the new one is ready`,
  );
  const load = loadGenerator(c.internet, {
    target: `${ingress}:80`,
    path: '/',
    rate: RATE,
    durationMs: (WATCH_SECONDS + 2) * 1000,
    arrivals: 'uniform',
    timeoutMs: 2000,
  });
  c.sim.run(2 * SECOND);
  const current = c.store.get('Deployment', 'default', 'web')!;
  const template = current.spec.template;
  const updated = c.store.update<'Deployment'>({
    ...current,
    spec: {
      ...current.spec,
      template: {
        ...template,
        spec: {
          ...template.spec,
          containers: template.spec.containers.map((container) => ({
            ...container,
            image: 'registry.lyneko.fr/web:2',
          })),
        },
      },
    },
  });
  if (!updated.ok) throw new Error(`bug-local-rollout: ${updated.error.message}`);
  // Second by second: the requests that failed, the load balancer's pool, the old pod's state.
  const rows = ['second  failed  pool                                  old pod'];
  let failedBefore = load.report().failed;
  let failedWhileOut = 0;
  let removedAt: number | undefined;
  let sawTerminating503 = false;
  for (let second = 1; second <= WATCH_SECONDS; second++) {
    c.sim.run(SECOND);
    const failed = load.report().failed - failedBefore;
    failedBefore += failed;
    const pool = lb.views()[0]?.inRotation ?? [];
    const old = c.store
      .list('Pod')
      .find((pod) => pod.spec.nodeName === 'formation-worker2' && pod.metadata.labels.app === 'web');
    const state =
      old === undefined
        ? 'gone'
        : old.metadata.deletionTimestamp === undefined
          ? 'Running'
          : old.status.ready
            ? 'Terminating, serving'
            : 'Terminating, stopped';
    if (!pool.includes('formation-worker2')) {
      // Requests sent before the pool changed may still time out (2 s) after it: count from then on.
      removedAt ??= second;
      if (second > removedAt + 2) failedWhileOut += failed;
    }
    if (second === 3) {
      const during = sh.host(`curl -s -w ' %{http_code}\\n' http://172.18.0.4:${hcPort}/`).stdout;
      sawTerminating503 = during.includes('"localEndpoints": 0') && during.trimEnd().endsWith(' 503');
    }
    rows.push(
      `${String(second).padStart(6)}  ${String(failed).padStart(6)}  ${pool.join(',').padEnd(36)}  ${state}`,
    );
  }
  load.stop();
  c.sim.run(3 * SECOND);
  story.show(rows.join('\n'));
  story.show(load.table());
  const report = load.report();
  story.expectEqual(
    "3 s into the rollout, formation-worker2's health check already answers 503 (no ready local endpoint)",
    true,
    sawTerminating503,
  );
  story.expectEqual(
    'once the load balancer has taken formation-worker2 out (and the 2 s client timeout has passed), nothing fails',
    0,
    failedWhileOut,
  );
  if (!preStop) {
    story.expectThat(
      'the bug: requests fail while the load balancer still sends to formation-worker2 (refused, then timed out)',
      'ECONNREFUSED and curl 28 failures',
      JSON.stringify(report.failures),
      (report.failures.ECONNREFUSED ?? 0) > 0 && (report.failures['curl 28'] ?? 0) > 0,
    );
    story.say(
      "why the requests time out: with no local endpoint left, kube-proxy on formation-worker2 drops what arrives for the Service's external addresses (its filter table)",
    );
    const rules = sh('docker exec formation-worker2 iptables -S KUBE-EXTERNAL-SERVICES').stdout;
    story.expectThat(
      "kube-proxy's rule for the node without a local endpoint",
      '... "default/web:http has no local endpoints" ... -j DROP',
      rules.split('\n').find((line) => line.includes('has no local endpoints')) ?? rules.trim(),
      rules
        .split('\n')
        .some(
          (line) =>
            line.includes(`-d ${ingress}/32`) &&
            line.includes('has no local endpoints') &&
            line.endsWith('-j DROP'),
        ),
    );
  } else {
    story.expectEqual('with the preStop sleep, no request fails', 0, report.failed);
    story.expectThat(
      'the old pod served while terminating, until the load balancer had taken its node out',
      'Terminating, serving, then Terminating, stopped after the pool change',
      rows.filter((row) => row.includes('Terminating')).length > 0 ? 'seen' : 'not seen',
      rows.some((row) => row.includes('Terminating, serving')) &&
        rows.findIndex((row) => row.includes('Terminating, stopped')) >
          rows.findIndex((row) => /\d+\s+\d+\s+formation-worker\s/.test(row)),
    );
  }
  sh('kubectl get pods -o wide');
  return story.result();
}
