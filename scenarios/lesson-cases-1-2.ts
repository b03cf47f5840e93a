// The lesson's cases 1 and 2 as a session on kind nodes: the commands of "En pratique" run on W1 and the pods,
// with what they print. Every output below comes from running packetlab, not from a document.

import { lessonTopology, type NodeWiring, type PodWiring } from '../src/k8s/lesson.ts';
import type { Namespace } from '../src/netns/namespace.ts';
import { Story, type StoryResult, transcript } from '../src/story/story.ts';
import { spawn } from '../src/tools/exec.ts';

/** Runs the session for one wiring and returns it as the transcript a terminal would show. */
export function lessonSession(
  pods: PodWiring = 'bridge',
  nodes: NodeWiring = 'vxlan',
  seed: string | number = 'lesson',
): string[] {
  return transcript(lessonStory(pods, nodes, seed));
}

/** The session with its checks: both pings answered, each hop seen on W1. */
export function lessonStory(
  pods: PodWiring = 'bridge',
  nodes: NodeWiring = 'vxlan',
  seed: string | number = 'lesson',
): StoryResult {
  const lesson = lessonTopology({ pods, nodes, seed });
  const story = new Story('lesson', seed);
  story.attach(lesson.sim);
  story.say(
    `pods joined by ${pods === 'bridge' ? 'a bridge (cni0)' : 'routes to each veth'}, nodes by ${nodes === 'vxlan' ? 'VXLAN (flannel.1, UDP 8472)' : 'direct routes'}`,
  );
  const show = (where: string, ns: Namespace, command: string) => story.run(`$ ${where}`, ns, command);
  const answered = (name: string, output: string): boolean =>
    story.expectThat(name, '1 received', output, output.includes('1 packets transmitted, 1 received'));
  show('docker exec formation-worker', lesson.w1, 'ip route');
  show('docker exec formation-worker', lesson.w1, 'ip -br link');
  if (nodes === 'vxlan') show('docker exec formation-worker', lesson.w1, 'ip -d link show flannel.1');
  show('kubectl exec diag --', lesson.diag, 'ip route');
  story.say('case 1: two pods on the same node');
  answered(
    'case 1: diag reaches 10.244.1.9 on its node',
    show('kubectl exec diag --', lesson.diag, 'ping -c 1 10.244.1.9').stdout,
  );
  story.say('case 2: two pods on different nodes, watched from W1 (tcpdump -i any shows each hop)');
  const tcpdump = "tcpdump -ni any -c 20 'host 10.244.1.5 or udp port 8472'";
  const capture = spawn(lesson.w1, tcpdump);
  answered(
    'case 2: diag reaches 10.244.2.7 on W2',
    show('kubectl exec diag --', lesson.diag, 'ping -c 1 10.244.2.7').stdout,
  );
  if ('stop' in capture) {
    // As on a terminal: the banner (stderr) first, the packets, then the statistics (stderr) at exit.
    const result = capture.stop();
    const stderr = result.stderr.trimEnd().split('\n');
    const stats = stderr.findIndex((line) => line.endsWith('packets captured'));
    const output = [
      ...stderr.slice(0, stats),
      ...result.stdout.trimEnd().split('\n'),
      ...stderr.slice(stats),
    ];
    story.record('$ docker exec formation-worker', tcpdump, result, output.join('\n'));
    const hops = result.stdout.split('\n').filter((line) => line.includes('ICMP echo request')).length;
    const expected = (pods === 'bridge' ? 2 : 1) + (nodes === 'vxlan' ? 2 : 1);
    story.expectEqual('W1 sees the request at each hop it crosses', expected, hops);
  }
  return story.result();
}
