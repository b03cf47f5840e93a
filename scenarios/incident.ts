// The incident (shared/seeds): NodePorts stop answering after another component starts writing the packet mark
// without a mask. kube-proxy's contract is the single bit 0x4000, set by KUBE-MARK-MASQ and tested by
// KUBE-POSTROUTING; a rule that overwrites the whole mark between the two clears it, MASQUERADE is skipped, and
// the pod on the other node answers the client directly, from an address the client never called.

import { lessonServices, type ServicesLesson } from '../src/k8s/lesson.ts';
import type { Namespace } from '../src/netns/namespace.ts';
import { exec, spawn } from '../src/tools/exec.ts';
import { parseIpv4 } from '../src/wire/address.ts';
import { kubeProxyNatRules } from './kube-proxy-iptables.ts';

/** The Service of the incident: NodePort 30080 with its only endpoint on the other node (10.244.2.7 on W2). */
export const INCIDENT_SERVICE = {
  servicePort: 'default/signalements:http',
  protocol: 'tcp',
  clusterIp: '10.96.40.12',
  port: 80,
  nodePort: 30080,
  endpoints: ['10.244.2.7:8000'],
  clusterCidr: '10.244.0.0/16',
} as const;

/** The offending component: it marks forwarded packets for its own routing, overwriting the whole mark. */
export const OFFENDING_RULESET = `table inet netbird {
	chain forward-mark {
		type filter hook forward priority mangle; policy accept;
		meta mark set 0x00010000
	}
}
`;

/** The workaround: the same rule, touching only its own bit. */
export const WORKAROUND =
  'nft replace rule inet netbird forward-mark handle HANDLE meta mark set meta mark or 0x00010000';

/** The incident's own debugging commands (priority -301: before the raw table). */
export const TRACE_COMMANDS = [
  'nft add table inet debug',
  "nft add chain inet debug trace '{ type filter hook prerouting priority -301; }'",
  'nft add rule inet debug trace tcp dport 30080 meta nftrace set 1',
];

export interface IncidentRun {
  /** The client's connect() completed within three seconds. */
  readonly connected: boolean;
  /** `nft monitor trace` on W1 while the client connects. */
  readonly trace: string;
  /** tcpdump on the pod's eth0: who the pod thinks is calling. */
  readonly atPod: string;
  /** tcpdump on the client's eth0: who answers. */
  readonly atClient: string;
}

export function buildIncident(seed: string | number = 'incident'): ServicesLesson {
  const lesson = lessonServices({ seed, kubeProxyRules: kubeProxyNatRules([INCIDENT_SERVICE]) });
  for (const command of TRACE_COMMANDS) mustRun(lesson.w1, command);
  return lesson;
}

/**
 * Signalements listens on the pod (10.244.2.7:8000); the client connects to W1's NodePort from
 * `clientPort` and gives up after three seconds (two SYN retransmissions). Returns whether it
 * connected, and what the trace and both captures saw.
 */
export function connectToNodePort(lesson: ServicesLesson, clientPort: number): IncidentRun {
  const trace = start(lesson.w1, 'nft monitor trace');
  const atPod = start(lesson.remote, 'tcpdump -ni eth0 tcp');
  const atClient = start(lesson.client, 'tcpdump -ni eth0 tcp');
  const app = lesson.remote.tcp.listen(0, 8000, (socket) => {
    socket.onEnd = (s) => s.end();
  });
  if (app === 'EADDRINUSE') throw new Error('remote: port 8000 is taken');
  let connected = false;
  const call = lesson.client.tcp.connect({
    dst: parseIpv4('172.18.0.2')!,
    dstPort: 30080,
    srcPort: clientPort,
  });
  if (!call.ok) throw new Error(`client: connect: ${call.error}`);
  call.socket.onConnect = (socket) => {
    connected = true;
    socket.end();
  };
  lesson.sim.run(3e9);
  if (!connected) call.socket.destroy();
  app.close();
  return { connected, trace: trace(), atPod: atPod(), atClient: atClient() };
}

function start(ns: Namespace, line: string): () => string {
  const running = spawn(ns, line);
  if (!('stop' in running)) throw new Error(`${ns.name}: ${line}: ${running.stderr}`);
  return () => running.stop().stdout;
}

function mustRun(ns: Namespace, line: string, stdin?: string): string {
  const result = exec(ns, line, stdin === undefined ? {} : { stdin });
  if (result.exitCode !== 0) throw new Error(`${ns.name}: ${line}: ${result.stderr}`);
  return result.stdout;
}

/** Loads the offending component's table on W1 (nft -f). */
export function installOffender(lesson: ServicesLesson): void {
  lesson.sim.files.set('/etc/netbird.nft', new TextEncoder().encode(OFFENDING_RULESET));
  mustRun(lesson.w1, 'nft -f /etc/netbird.nft');
}

/** Rewrites the offending rule in place to touch only its own bit. */
export function applyWorkaround(lesson: ServicesLesson): void {
  const listing = mustRun(lesson.w1, 'nft -a list chain inet netbird forward-mark');
  const handle = /meta mark set 0x00010000 # handle (\d+)/.exec(listing)?.[1];
  if (handle === undefined) throw new Error(`no offending rule in:\n${listing}`);
  mustRun(lesson.w1, WORKAROUND.replace('HANDLE', handle));
}
