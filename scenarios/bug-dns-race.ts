// Bug replay kubernetes/kubernetes#56903 ("DNS intermittent delays of 5s"): glibc sends the A and AAAA queries of one
// lookup together from one socket; on a node whose receive softirqs run on two CPUs both reach the kube-dns DNAT
// before either is confirmed, each gets its own conntrack entry, and the second clashes at confirm. Up to Linux 5.6
// the loser can be dropped (`insert_failed` in `conntrack -S`): its answer never comes and the resolver asks again
// after `timeout:5`. Shown per kernel generation (4.19: always dropped under DNAT; 5.4: dropped when the two went to
// different CoreDNS pods; 6.18: kept under its reply tuple, no delay), with the mitigations: single-request-reopen,
// one CoreDNS endpoint. Not here: NodeLocal DNSCache, musl's resolver, TCP fallback.

import { pod } from '../src/k8s/api/builders.ts';
import type { Cluster } from '../src/k8s/cluster.ts';
import type { ClashResolution } from '../src/netfilter/conntrack/conntrack.ts';
import { Story, type StoryResult } from '../src/story/story.ts';
import { formation, type Shell, shell } from './formation-cluster.ts';

export type DnsRaceKernel = '4.19' | '5.4' | '6.18';
export const DNS_RACE_KERNELS: readonly DnsRaceKernel[] = ['4.19', '5.4', '6.18'];

const CLASH_OF: Record<DnsRaceKernel, ClashResolution> = {
  '4.19': 'untranslated',
  '5.4': 'matching',
  '6.18': 'reply-only',
};

const LOOKUPS = 8;
const CURL = "curl -s -o /dev/null -w '%{time_namelookup}\\n' http://signalements/sante";

/** `conntrack -S`'s counter `name` (one line, cpu=0). */
function counter(stats: string, name: string): number {
  const match = new RegExp(`\\b${name}=(\\d+)`).exec(stats);
  return match === null ? -1 : Number(match[1]);
}

const CAPTURE = "docker exec formation-worker tcpdump -ni any 'udp port 53'";

/** A capture to show: which lookup it is, in the story's words, when `wanted` says it is the one. */
interface ShownCapture {
  readonly story: Story;
  readonly what: string;
  wanted(time: number, capture: string): boolean;
}

/**
 * Runs the lookups from `podName` and returns each time_namelookup (seconds). With `show`, a capture on the
 * client's node runs during each lookup, and the first one `show` wants is shown, as a second terminal would have it.
 */
function lookups(
  c: Cluster,
  sh: Shell,
  podName: string,
  show?: ShownCapture,
): { times: number[]; capture: string } {
  const times: number[] = [];
  let capture = '';
  for (let i = 0; i < LOOKUPS; i++) {
    const started = show === undefined ? undefined : c.spawn(CAPTURE);
    const time = Number(sh(`kubectl exec ${podName} -- ${CURL}`).stdout.trim());
    times.push(time);
    if (started === undefined || !('stop' in started)) continue;
    const result = started.stop();
    if (show === undefined || capture !== '' || !show.wanted(time, result.stdout)) continue;
    capture = result.stdout;
    show.story.say(`what a capture on formation-worker saw during lookup ${i + 1}, ${show.what}:`);
    show.story.record('$', CAPTURE, result, result.stdout);
  }
  return { times, capture };
}

/** Capture lines of the AAAA query going `direction` (In from the pod, Out toward a CoreDNS pod). */
function aaaaLines(capture: string, direction: 'In' | 'Out'): string[] {
  return capture.split('\n').filter((line) => new RegExp(` ${direction} +IP .* AAAA\\? `).test(line));
}

const slow = (times: readonly number[]) => times.filter((t) => t >= 5).length;

export function dnsRaceStory(kernel: DnsRaceKernel, seed: string | number): StoryResult {
  const { c } = formation({ cni: 'kindnet', kubeProxy: 'iptables', seed });
  // What kubelet writes for a pod whose spec says dnsConfig: {options: [{name: single-request-reopen}]}.
  const reopen = c.store.create(
    pod({
      name: 'diag-reopen',
      nodeName: 'formation-worker',
      podIP: '10.244.1.7',
      labels: { run: 'diag-reopen' },
      dnsConfig: { options: [{ name: 'single-request-reopen' }] },
    }),
  );
  if (!reopen.ok) throw new Error(`bug-dns-race: diag-reopen: ${reopen.error.message}`);
  c.sim.run(1e9);
  for (const node of c.nodeList()) {
    node.ns.netfilter.conntrack.cpus = 2;
    node.ns.netfilter.conntrack.clash = CLASH_OF[kernel];
  }
  const story = new Story('bug-dns-race', seed);
  story.attach(c.sim);
  const sh = shell(c, story);
  const buggy = kernel !== '6.18';
  story.say(
    `kubernetes/kubernetes#56903 "DNS intermittent delays of 5s", replayed on nodes with two CPUs running receive softirqs and Linux ${kernel}'s conntrack (${CLASH_OF[kernel]} clash resolution)`,
  );
  sh('kubectl get pods -n kube-system -o wide');
  story.say(
    "a pod's resolv.conf (options ndots:5): `signalements` is asked as signalements.default.svc.cluster.local first; glibc sends its A and AAAA queries together from one socket (sendmmsg) to kube-dns 10.96.0.10",
  );
  story.say(`the symptom: ${LOOKUPS} requests from diag, the name lookup's time of each`);
  const before = sh('docker exec formation-worker conntrack -S').stdout;
  const show: ShownCapture = buggy
    ? { story, what: 'the first slow one', wanted: (time) => time >= 5 }
    : {
        story,
        what: 'the first whose two queries went to different CoreDNS pods',
        wanted: (_time, text) =>
          /Out +IP \S+ > 10\.244\.0\.2\.53/.test(text) && /Out +IP \S+ > 10\.244\.0\.3\.53/.test(text),
      };
  const { times, capture } = lookups(c, sh, 'diag', show);
  const stats = sh('docker exec formation-worker conntrack -S').stdout;
  const insertFailed = counter(stats, 'insert_failed') - counter(before, 'insert_failed');
  const dropped = counter(stats, 'drop') - counter(before, 'drop');
  const resolved = counter(stats, 'clash_resolve') - counter(before, 'clash_resolve');
  story.say(
    'the diagnosis of the issue: conntrack -S on the node of the client pod; every lookup was a race (two entries for one tuple), insert_failed counts the clashes, drop the AAAA queries that died at POSTROUTING',
  );
  const aaaaIn = aaaaLines(capture, 'In').length;
  const aaaaOut = aaaaLines(capture, 'Out').length;
  if (buggy)
    story.expectThat(
      'the capture: the first AAAA query came in from the pod and never left the node; the retry 5 s later did',
      'AAAA? In twice, Out once',
      `In ${aaaaIn}, Out ${aaaaOut}`,
      aaaaIn === 2 && aaaaOut === 1,
    );
  else
    story.expectThat(
      'the capture: A and AAAA went to different CoreDNS pods, and both answers came back through kube-dns',
      'AAAA? In once, Out once; two answers from 10.96.0.10.53',
      `In ${aaaaIn}, Out ${aaaaOut}; ${capture.split('\n').filter((l) => / Out +IP 10\.96\.0\.10\.53 > /.test(l)).length} answers`,
      aaaaIn === 1 &&
        aaaaOut === 1 &&
        capture.split('\n').filter((l) => / Out +IP 10\.96\.0\.10\.53 > /.test(l)).length === 2,
    );
  if (kernel === '4.19') {
    story.expectEqual(
      'every lookup waits 5 s: the winner has NAT, the loser is never allowed in',
      LOOKUPS,
      slow(times),
    );
    story.expectEqual('insert_failed counts every clash', LOOKUPS, insertFailed);
    story.expectEqual('drop counts every lost AAAA query', LOOKUPS, dropped);
  } else if (kernel === '5.4') {
    story.expectThat(
      'some lookups wait 5 s, not all: those whose two queries went to different CoreDNS pods',
      `between 1 and ${LOOKUPS - 1} of ${LOOKUPS}`,
      times.join(' '),
      slow(times) > 0 && slow(times) < LOOKUPS,
    );
    story.expectEqual(
      'insert_failed counts every clash (resolved or not, before 5.7)',
      LOOKUPS,
      insertFailed,
    );
    story.expectEqual('drop counts the slow lookups', slow(times), dropped);
  } else {
    story.expectEqual('no lookup waits: the clash is resolved', 0, slow(times));
    story.expectEqual('insert_failed stays 0', 0, insertFailed);
    story.expectEqual('clash_resolve counts every race', LOOKUPS, resolved);
  }

  if (buggy) {
    story.say(
      "mitigation 1 (the issue's own): `options single-request-reopen` in the pod's dnsConfig; glibc asks A, waits for its answer, then asks AAAA from a new socket (another source port): never two packets of one tuple in flight",
    );
    sh('kubectl get pod diag-reopen -o wide');
    const reopenTimes = lookups(c, sh, 'diag-reopen').times;
    const after = sh('docker exec formation-worker conntrack -S').stdout;
    story.expectEqual('with single-request-reopen no lookup waits', 0, slow(reopenTimes));
    story.expectEqual(
      'and insert_failed does not move',
      counter(stats, 'insert_failed'),
      counter(after, 'insert_failed'),
    );

    story.say(
      'mitigation 2: one kube-dns endpoint, so both queries are DNATed alike (on 5.0+ the loser then adopts the winner: nf_ct_match)',
    );
    sh('kubectl scale deployment coredns -n kube-system --replicas=1');
    c.sim.run(35e9);
    sh('kubectl get endpointslices -n kube-system');
    const oneTimes = lookups(c, sh, 'diag').times;
    const final = sh('docker exec formation-worker conntrack -S').stdout;
    if (kernel === '5.4') {
      story.expectEqual('one endpoint, Linux 5.4: no lookup waits', 0, slow(oneTimes));
      story.expectEqual(
        'the clashes still happen (insert_failed) but none is dropped',
        counter(after, 'drop'),
        counter(final, 'drop'),
      );
    } else {
      story.expectEqual(
        'one endpoint does not help on 4.19: an entry with NAT is never shared',
        LOOKUPS,
        slow(oneTimes),
      );
    }
  } else {
    story.say(
      'Linux 5.7 and later (this machine runs 6.18) insert the losing entry under its reply tuple alone for a second (nf_ct_resolve_clash_harder): the second answer finds its way back; the bug stopped being filed',
    );
  }
  return story.result();
}
