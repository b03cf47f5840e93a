// The lesson's pitfall "externalTrafficPolicy: Local and a node with no pod": three workers behind the load
// balancer, signalements on two of them. With a health check that only asks whether the node is up (kube-proxy's
// /healthz on 10256) the LB keeps spreading over the three, and one request in three is lost on formation-worker3,
// which has no local pod (counted with the load generator). Checking the Service's healthCheckNodePort every 2 s
// takes that node out: every request succeeds. Then the lesson's remedy for the entry, a DaemonSet: a pod on every
// worker, formation-worker3 answers 200 and comes back. Not modelled: topologySpreadConstraints (the scheduler
// places by pod count and name, so the story only names it).

import { loadGenerator } from '../src/app/load/generator.ts';
import type { LoadReport } from '../src/app/load/report.ts';
import { daemonSet } from '../src/k8s/api/builders.ts';
import { Story, type StoryResult } from '../src/story/story.ts';
import {
  type Formation,
  type FormationCni,
  type FormationProxy,
  formation,
  type Shell,
  SIGNALEMENTS,
  SIGNALEMENTS_IMAGE,
  shell,
} from './formation-cluster.ts';
import { exposeThroughLb, LB_ADDRESS } from './lesson-entry.ts';

export interface PitfallLocalOptions {
  readonly cni?: FormationCni;
  readonly kubeProxy?: FormationProxy;
  readonly seed?: string | number;
}

const WORKER3 = '172.18.0.5';

export function pitfallLocalStory(options: PitfallLocalOptions = {}): StoryResult {
  const cni = options.cni ?? 'kindnet';
  const kubeProxy = options.kubeProxy ?? 'iptables';
  const seed = options.seed ?? 'pitfall-local';
  const f = formation({ cni, kubeProxy, seed });
  const story = new Story('pitfall-local', seed);
  story.attach(f.c.sim);
  story.say(`kind cluster formation: ${cni}, kube-proxy in ${kubeProxy} mode`);
  story.say('formation-worker3 joins: three workers, signalements runs on two of them');
  f.c.addNode();
  f.c.sim.run(2e9);
  const sh = shell(f.c, story);
  const pods = sh('kubectl get pods -o wide').stdout;
  story.expectThat(
    'no signalements pod on formation-worker3',
    'signalements pods on formation-worker and formation-worker2 only',
    pods
      .split('\n')
      .filter((line) => line.startsWith('signalements-'))
      .map((line) => line.split(/ +/).at(6))
      .join(', '),
    /formation-worker /.test(pods) && /formation-worker2 /.test(pods) && !pods.includes('formation-worker3'),
  );
  exposeThroughLb(
    { f, story },
    { policy: 'Local', mode: 'passthrough', healthCheck: { port: 10256, intervalSeconds: 2 } },
  );
  story.say("the LB's health check asks kube-proxy's /healthz (10256): is the node up? Every node says yes");
  const spread = rotation(sh);
  story.expectThat(
    'the LB spreads over the three workers',
    '172.18.0.3, 172.18.0.4, 172.18.0.5',
    spread.join(', '),
    spread.join(', ') === `172.18.0.3, 172.18.0.4, ${WORKER3}`,
  );
  const lost = load(f, story, 'health check on 10256');
  const failed = lost.failures['curl 28'] ?? 0;
  story.expectThat(
    'about one request in three fails: curl times out (28), no answer from a node with no local pod',
    'failed ≈ 1/3 of 20, all curl 28',
    `${lost.failed} of ${lost.started} failed: ${JSON.stringify(lost.failures)}`,
    lost.started === 20 && failed === lost.failed && failed >= 4 && failed <= 10,
  );
  const unanswered = sh.host(`conntrack -L -p tcp --orig-dst ${LB_ADDRESS} --reply-src ${WORKER3}`).stdout;
  const toWorker3 = unanswered.split('\n').filter((line) => line.startsWith('tcp '));
  story.expectThat(
    "the LB's conntrack: every connection it sent to formation-worker3 stayed unanswered",
    `${failed} entries to ${WORKER3}:30080, all [UNREPLIED]`,
    `${toWorker3.length} entries, ${toWorker3.filter((line) => line.includes('[UNREPLIED]')).length} unreplied`,
    toWorker3.length === failed && toWorker3.every((line) => line.includes('[UNREPLIED]')),
  );
  const drop = sh(`docker exec formation-worker3 ${dropRule(kubeProxy)}`).stdout;
  story.expectThat(
    'formation-worker3 drops them itself: kube-proxy writes a drop for a Local Service without a local endpoint',
    kubeProxy === 'iptables'
      ? '... has no local endpoints" ... -j DROP'
      : '... : drop in no-endpoint-nodeports',
    drop
      .split('\n')
      .find((line) => line.includes('has no local endpoints') || line.includes(': drop'))
      ?.trim() ?? '',
    kubeProxy === 'iptables'
      ? /has no local endpoints" .*-j DROP/.test(drop)
      : /tcp \. 30080 comment "default\/signalements:http" : drop/.test(drop),
  );

  const port = f.c.store.get('Service', 'default', 'signalements')?.spec.healthCheckNodePort ?? 0;
  story.say(
    `the fix: the LB checks the Service's healthCheckNodePort (${port}), every 2 s; kube-proxy answers 503 where the Service has no local pod`,
  );
  f.c.removeLoadBalancer();
  f.c.addLoadBalancer({ mode: 'passthrough', healthCheck: { intervalSeconds: 2 } });
  f.c.sim.run(3e9);
  const health = sh
    .host(`curl -s -o /dev/null -w '%{http_code}\\n' http://${WORKER3}:${port}/`)
    .stdout.trim();
  story.expectEqual('formation-worker3 answers the health check 503', '503', health);
  const two = rotation(sh);
  story.expectThat(
    'the LB takes it out of rotation',
    '172.18.0.3, 172.18.0.4',
    two.join(', '),
    two.join(', ') === '172.18.0.3, 172.18.0.4',
  );
  const fixed = load(f, story, `health check on ${port}`);
  story.expectThat(
    'every request succeeds',
    '20 of 20',
    `${fixed.succeeded} of ${fixed.started}`,
    fixed.started === 20 && fixed.succeeded === 20,
  );

  story.say(
    "the lesson's remedies for the entry: a spread constraint (topologySpreadConstraints, not modelled here) or a DaemonSet, one pod on every node the LB targets",
  );
  const created = f.c.store.create<'DaemonSet'>(
    daemonSet({
      name: 'signalements-entree',
      labels: { ...SIGNALEMENTS },
      image: SIGNALEMENTS_IMAGE,
      ports: [{ name: 'http', containerPort: 8000 }],
    }),
  );
  if (!created.ok) throw new Error(created.error.message);
  f.c.sim.run(5e9);
  sh('kubectl get ds signalements-entree');
  const back = sh.host(`curl -s -o /dev/null -w '%{http_code}\\n' http://${WORKER3}:${port}/`).stdout.trim();
  story.expectEqual('with its DaemonSet pod, formation-worker3 answers 200', '200', back);
  const three = rotation(sh);
  story.expectThat(
    'and is back in rotation',
    '172.18.0.3, 172.18.0.4, 172.18.0.5',
    three.join(', '),
    three.join(', ') === `172.18.0.3, 172.18.0.4, ${WORKER3}`,
  );
  const marks = new Map([...f.accessLogs.entries()].map(([pod, log]) => [pod, log.length]));
  const daemon = load(f, story, 'a pod on every worker');
  const onWorker3 = f.c.store.list('Pod', 'default').find((pod) => pod.spec.nodeName === 'formation-worker3')
    ?.metadata.name;
  const served =
    onWorker3 === undefined ? 0 : (f.accessLogs.get(onWorker3)?.length ?? 0) - (marks.get(onWorker3) ?? 0);
  story.expectThat(
    'every request succeeds, formation-worker3 serving its share',
    '20 of 20, some by the pod on formation-worker3',
    `${daemon.succeeded} of ${daemon.started}, ${served} by ${onWorker3 ?? 'nobody'}`,
    daemon.started === 20 && daemon.succeeded === 20 && served > 0,
  );
  return story.result();
}

/** The nodes the LB's table DNATs to, in order. */
function rotation(sh: Shell): string[] {
  const rules = sh.host('nft list table ip packetlab-lb').stdout;
  return [...rules.matchAll(/dnat to (\d+\.\d+\.\d+\.\d+):30080/g)].map((match) => match[1]!);
}

/** 20 requests from the Internet host, 10 a second, each given 2 s; shows the report. */
function load(f: Formation, story: Story, label: string): LoadReport {
  const generator = loadGenerator(f.c.internet, {
    target: `${LB_ADDRESS}:80`,
    path: '/sante',
    rate: 10,
    arrivals: 'uniform',
    durationMs: 2000,
    timeoutMs: 2000,
  });
  f.c.sim.run(4.5e9);
  story.show(`load generator on 203.0.113.10, ${label}:\n${generator.table().trimEnd()}`);
  return generator.report();
}

/** Where kube-proxy's drop for Local without local endpoints shows. */
function dropRule(kubeProxy: FormationProxy): string {
  return kubeProxy === 'iptables'
    ? 'iptables -t filter -S KUBE-EXTERNAL-SERVICES'
    : 'nft list map ip kube-proxy no-endpoint-nodeports';
}
