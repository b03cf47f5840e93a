// The lesson's cases 1 and 2 as a session on kind nodes: the commands of "En pratique" run on W1 and the pods,
// with what they print. Every output below comes from running packetlab, not from a document.

import type { Namespace } from '../src/netns/namespace.ts';
import { exec, spawn } from '../src/tools/exec.ts';
import { buildLesson, type NodeWiring, type PodWiring } from './lesson-topology.ts';

/** Runs the session for one wiring and returns it as the transcript a terminal would show. */
export function lessonSession(
  pods: PodWiring = 'bridge',
  nodes: NodeWiring = 'vxlan',
  seed: string | number = 'lesson',
): string[] {
  const lesson = buildLesson({ pods, nodes, seed });
  const lines: string[] = [
    `# pods joined by ${pods === 'bridge' ? 'a bridge (cni0)' : 'routes to each veth'}, nodes by ${nodes === 'vxlan' ? 'VXLAN (flannel.1, UDP 8472)' : 'direct routes'}`,
  ];
  const show = (where: string, ns: Namespace, command: string): void => {
    lines.push(`$ ${where} ${command}`);
    const result = exec(ns, command);
    const output = `${result.stdout}${result.stderr}`.trimEnd();
    if (output !== '') lines.push(...output.split('\n'));
  };
  show('docker exec formation-worker', lesson.w1, 'ip route');
  show('docker exec formation-worker', lesson.w1, 'ip -br link');
  if (nodes === 'vxlan') show('docker exec formation-worker', lesson.w1, 'ip -d link show flannel.1');
  show('kubectl exec diag --', lesson.diag, 'ip route');
  lines.push('# case 1: two pods on the same node');
  show('kubectl exec diag --', lesson.diag, 'ping -c 1 10.244.1.9');
  lines.push('# case 2: two pods on different nodes, watched from W1 (tcpdump -i any shows each hop)');
  const capture = spawn(lesson.w1, "tcpdump -ni any -c 20 'host 10.244.1.5 or udp port 8472'");
  show('kubectl exec diag --', lesson.diag, 'ping -c 1 10.244.2.7');
  lines.push(`$ docker exec formation-worker tcpdump -ni any -c 20 'host 10.244.1.5 or udp port 8472'`);
  if ('stop' in capture) {
    // As on a terminal: the banner (stderr) first, the packets, then the statistics (stderr) at exit.
    const result = capture.stop();
    const stderr = result.stderr.trimEnd().split('\n');
    const stats = stderr.findIndex((line) => line.endsWith('packets captured'));
    lines.push(...stderr.slice(0, stats), ...result.stdout.trimEnd().split('\n'), ...stderr.slice(stats));
  }
  return lines;
}
