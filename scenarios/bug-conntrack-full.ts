// Bug replay kubernetes/kubernetes#71261 ("nf_conntrack: table full, dropping packet": "this issue may break pod
// http health check"): formation-worker2's conntrack table fills with connections that never close; every new flow
// through the node, the kubelet's readiness probe of the pod there included, is dropped at the conntrack hook, the
// pod turns unready and leaves the Service; dmesg says why, `conntrack -S` counts it. Before that, a table full of
// UNREPLIED UDP entries does no harm: early_drop evicts one for each new flow (only entries not ASSURED may go). The
// fix: a larger nf_conntrack_max. The limit is lowered to 300 here so that seconds replay what takes a busy node
// hours. Not here: liveness probes and restarts, nf_conntrack_buckets.

import { Story, type StoryResult } from '../src/story/story.ts';
import { parseIpv4 } from '../src/wire/address.ts';
import { formation, SIGNALEMENTS, SIGNALEMENTS_IMAGE, shell } from './formation-cluster.ts';

const SECOND = 1_000_000_000;
const LIMIT = 400;
const W2 = '172.18.0.4';
/** The leaking client: a connection every 2 ms, none ever closed. */
const LEAKED = LIMIT + 100;
const LEAK_EVERY_NS = 2_000_000;
/** New connections tried while the table is full of UDP entries. */
const TRIES = 5;
const PROBE = { httpGet: { path: '/sante', port: 8000 }, periodSeconds: 5, failureThreshold: 3 } as const;

/** `conntrack -S`'s counter `name`. */
function counter(stats: string, name: string): number {
  const match = new RegExp(`\\b${name}=(\\d+)`).exec(stats);
  return match === null ? -1 : Number(match[1]);
}

/** The READY column of a pod in `kubectl get pods`. */
function readyOf(pods: string, name: string): string {
  return (
    pods
      .split('\n')
      .find((line) => line.startsWith(`${name} `))
      ?.split(/ +/)[1] ?? ''
  );
}

export function conntrackFullStory(seed: string | number): StoryResult {
  const { c } = formation({ cni: 'kindnet', kubeProxy: 'iptables', seed, pods: ['diag'] });
  for (const pod of [
    { name: 'signalements-7d9f-b', node: 'formation-worker', ip: '10.244.1.9' },
    { name: 'signalements-7d9f-a', node: 'formation-worker2', ip: '10.244.2.7' },
  ]) {
    const created = c.createPod({
      ...pod,
      labels: SIGNALEMENTS,
      container: 'signalements',
      image: SIGNALEMENTS_IMAGE,
      ports: [{ name: 'http', containerPort: 8000, protocol: 'TCP' }],
      readinessProbe: PROBE,
    });
    if (!created.ok) throw new Error(`bug-conntrack-full: ${pod.name}: ${created.error.message}`);
  }
  c.sim.run(5 * SECOND);
  const story = new Story('bug-conntrack-full', seed);
  story.attach(c.sim);
  const sh = shell(c, story);
  story.say(
    `kubernetes/kubernetes#71261 "nf_conntrack: table full, dropping packet": every flow through a node takes an entry in its conntrack table, the kubelet's readiness probes (GET /sante every ${PROBE.periodSeconds} s from the node) included; to replay it in seconds, formation-worker2's nf_conntrack_max is lowered from 262144 to ${LIMIT}`,
  );
  sh('kubectl get pods -o wide');
  sh(`docker exec formation-worker2 sysctl -w net.netfilter.nf_conntrack_max=${LIMIT}`);

  story.say(
    `first, a UDP scan from the Docker host fills the table with ${LIMIT} [UNREPLIED] entries: the table is full, yet a new connection passes, as __nf_conntrack_alloc's early_drop evicts an entry that is not ASSURED`,
  );
  const w2 = parseIpv4(W2)!;
  for (let i = 0; i < LIMIT + 50; i++)
    c.outside.udp.send({
      dst: w2,
      dstPort: 31000 + (i % 100),
      srcPort: 20000 + i,
      payload: new Uint8Array(8),
    });
  c.sim.run(SECOND);
  const scanned = Number(sh('docker exec formation-worker2 conntrack -C').stdout.trim());
  const beforeTries = sh('docker exec formation-worker2 conntrack -S').stdout;
  let passed = 0;
  for (let i = 0; i < TRIES; i++)
    if (sh.host(`curl -s -m 2 http://${W2}:30080/sante`).stdout.startsWith('ok signalements-')) passed++;
  const afterScan = sh('docker exec formation-worker2 conntrack -S').stdout;
  story.expectEqual('the UDP scan filled the table', LIMIT, scanned);
  story.expectEqual(`new connections still pass (${TRIES} curls to the NodePort on W2)`, TRIES, passed);
  story.expectThat(
    'early_drop counts one UDP entry evicted per new connection',
    `early_drop + ${TRIES}`,
    `early_drop ${counter(beforeTries, 'early_drop')} → ${counter(afterScan, 'early_drop')}`,
    counter(afterScan, 'early_drop') - counter(beforeTries, 'early_drop') === TRIES,
  );
  story.say(
    '30 s later the UDP entries have timed out (nf_conntrack_udp_timeout) and the sweep has reaped them',
  );
  c.sim.run(31 * SECOND);
  sh('docker exec formation-worker2 conntrack -C');

  story.say(
    `then a client with a connection leak opens ${LEAKED} connections to the NodePort on W2, one every 2 ms, and never closes them: each ESTABLISHED entry is ASSURED (5 days of timeout) and early_drop may not evict it`,
  );
  let opened = 0;
  const leak = (): void => {
    if (opened++ >= LEAKED) return;
    c.outside.tcp.connect({ dst: w2, dstPort: 30080, srcPort: 40000 + opened });
    c.sim.scheduler.schedule(LEAK_EVERY_NS, leak);
  };
  leak();
  c.sim.run(4 * SECOND);
  const curlFull = sh.host(`curl -s -m 2 http://${W2}:30080/sante`);
  story.expectEqual('the symptom: a new connection to W2 times out (curl exit 28)', 28, curlFull.exitCode);
  c.sim.run(15 * SECOND);
  const pods = sh('kubectl get pods -o wide').stdout;
  story.expectEqual(
    "the kubelet's probes are dropped too: signalements-7d9f-a turns unready",
    '0/1',
    readyOf(pods, 'signalements-7d9f-a'),
  );
  story.say('the unready pod leaves the Service: diag now only reaches the pod on formation-worker');
  const bodies: string[] = [];
  for (let i = 0; i < 4; i++)
    bodies.push(sh('kubectl exec diag -- curl -s http://10.96.40.12/sante').stdout.trim());
  story.expectThat(
    'every request to the Service goes to signalements-7d9f-b',
    '4 x ok signalements-7d9f-b',
    bodies.join(', '),
    bodies.every((body) => body === 'ok signalements-7d9f-b'),
  );

  story.say(
    'the diagnosis: the kernel log on the node (at most 10 lines per 5 s: net_ratelimit), and the counters',
  );
  const dmesg = sh('docker exec formation-worker2 dmesg').stdout;
  const full = sh('docker exec formation-worker2 conntrack -S').stdout;
  const count = sh(
    'docker exec formation-worker2 sysctl net.netfilter.nf_conntrack_count net.netfilter.nf_conntrack_max',
  ).stdout;
  story.expectThat(
    'dmesg: table full, dropping packet, and the lines net_ratelimit suppressed',
    'nf_conntrack: table full ... dropping packet; net_ratelimit: N callbacks suppressed',
    dmesg.split('\n').slice(0, 2).join(' / '),
    /nf_conntrack: nf_conntrack: table full in netns \d+, dropping packet/.test(dmesg) &&
      /net_ratelimit: \d+ callbacks suppressed/.test(dmesg),
  );
  story.expectThat(
    'conntrack -S: drop counts the new flows refused',
    `drop > ${counter(afterScan, 'drop')}`,
    `drop=${counter(full, 'drop')}`,
    counter(full, 'drop') > counter(afterScan, 'drop'),
  );
  story.expectThat(
    'nf_conntrack_count has reached nf_conntrack_max',
    `nf_conntrack_count = ${LIMIT}`,
    count.trim().split('\n').join(', '),
    count.includes(`net.netfilter.nf_conntrack_count = ${LIMIT}\n`),
  );
  const earlyDropsBefore = counter(full, 'early_drop');
  story.say('5 s later: more refused, none evicted, as every entry is ASSURED');
  c.sim.run(5 * SECOND);
  const later = sh('docker exec formation-worker2 conntrack -S').stdout;
  story.expectThat(
    'drop grows, early_drop stays put',
    `drop > ${counter(full, 'drop')}, early_drop = ${earlyDropsBefore}`,
    `drop=${counter(later, 'drop')} early_drop=${counter(later, 'early_drop')}`,
    counter(later, 'drop') > counter(full, 'drop') && counter(later, 'early_drop') === earlyDropsBefore,
  );

  story.say(
    'the fix of the issue: raise nf_conntrack_max (kube-proxy sets it at start from --conntrack-max-per-core, 32768 per CPU, at least 131072); the next probe passes and the pod is back in the Service (shorter established timeouts only help entries that are idle, not those of live connections)',
  );
  sh('docker exec formation-worker2 sysctl -w net.netfilter.nf_conntrack_max=262144');
  c.sim.run(6 * SECOND);
  const fixed = sh('kubectl get pods -o wide').stdout;
  story.expectEqual('signalements-7d9f-a is ready again', '1/1', readyOf(fixed, 'signalements-7d9f-a'));
  const curlFixed = sh.host(`curl -s -m 2 http://${W2}:30080/sante`);
  story.expectThat(
    'a new connection to W2 passes again',
    'ok signalements-...',
    curlFixed.stdout.trim(),
    curlFixed.exitCode === 0 && curlFixed.stdout.startsWith('ok signalements-'),
  );
  return story.result();
}
