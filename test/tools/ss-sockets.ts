// The sockets `ss` is compared on, built the same way on packetlab (its socket API) and on the kernel (two Node
// programs in two namespaces), and the helpers that compare its output up to the kernel's hash order.
//
// Two hosts on a veth: a (10.0.0.1) and b (10.0.0.2), and a permanent neighbour entry on a for
// 10.0.0.3 with a MAC nobody has, so a SYN to it is sent and never answered.
//   b: TCP listeners on 0.0.0.0:8080 (echo, half-open allowed) and 10.0.0.2:22; UDP sockets on
//      0.0.0.0:5353 and 10.0.0.2:41234 connected to 10.0.0.1:53.
//   a: from 10.0.0.1 to 10.0.0.2:8080, port 40000 sends "hello" and gets it back (ESTAB on both
//      sides), 40002 ends its side (FIN-WAIT-2, and CLOSE-WAIT on b), 40004 ends and b ends too
//      (TIME-WAIT), 40008 never hears b's SYN-ACK (a drops it: SYN-SENT on a, SYN-RECV on b);
//      40006 calls 10.0.0.3:80 (SYN-SENT); UDP on 0.0.0.0:40010, and 0.0.0.0:40012 connected to
//      10.0.0.2:5353.

import { NS_PER_MS } from '../../src/core/scheduler.ts';
import type { Namespace } from '../../src/netns/namespace.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import { execOrThrow } from '../../src/tools/exec.ts';
import { parseIpv4 } from '../../src/wire/address.ts';

const A = parseIpv4('10.0.0.1')!;
const B = parseIpv4('10.0.0.2')!;
const NOWHERE = parseIpv4('10.0.0.3')!;
/** A MAC no device has: frames to 10.0.0.3 leave and are dropped by b. */
export const NOWHERE_MAC = '02:00:00:00:00:99';

/**
 * The `ip` commands of the topology, for namespace `a`, then `b` (the veth is added from a). The route's congctl
 * pins CUBIC on both sides: this machine's kernel defaults to bbr, which a namespace cannot change by sysctl.
 */
export const TOPOLOGY = {
  a: [
    'addr add 10.0.0.1/24 dev eth0',
    'link set eth0 up',
    'route replace 10.0.0.0/24 dev eth0 proto kernel scope link src 10.0.0.1 congctl cubic',
    `neigh add 10.0.0.3 lladdr ${NOWHERE_MAC} dev eth0 nud permanent`,
  ],
  b: [
    'addr add 10.0.0.2/24 dev eth0',
    'link set eth0 up',
    'route replace 10.0.0.0/24 dev eth0 proto kernel scope link src 10.0.0.2 congctl cubic',
  ],
};

/** The iptables rule on a that keeps the connection from 40008 half-open. */
export const DROP_SYN_ACK = '-A INPUT -p tcp --sport 8080 --dport 40008 -j DROP';

const must = execOrThrow;

/** The sockets above on packetlab, after one virtual second. */
export function packetlabSockets(): { sim: Simulation; a: Namespace; b: Namespace } {
  const sim = new Simulation({ seed: 'ss' });
  const a = sim.addNamespace('a');
  const b = sim.addNamespace('b');
  for (const ns of [a, b]) must(ns, 'ip link set lo up');
  must(a, 'ip link add eth0 type veth peer name eth0 netns b');
  for (const line of TOPOLOGY.a) must(a, `ip ${line}`);
  for (const line of TOPOLOGY.b) must(b, `ip ${line}`);
  must(a, `iptables ${DROP_SYN_ACK}`);

  const echo = b.tcp.listen(0, 8080, (socket) => {
    socket.onData = (s, data) => s.write(data);
    // allowHalfOpen: only the connection from 40004 is ended by the server.
    socket.onEnd = (s) => {
      if (s.remotePort === 40004) s.end();
    };
  });
  const ssh = b.tcp.listen(B, 22, () => {});
  if (echo === 'EADDRINUSE' || ssh === 'EADDRINUSE') throw new Error('port taken');
  b.udp.bind(0, 5353, () => {});
  b.udp.bind(B, 41234, () => {}, undefined, { addr: A, port: 53 });

  const connect = (srcPort: number, dst: number, dstPort: number, then: 'hello' | 'end' | 'nothing') => {
    const result = a.tcp.connect({ dst, dstPort, src: A, srcPort });
    if (!result.ok) throw new Error(`connect from ${srcPort}: ${result.error}`);
    result.socket.onConnect = (s) => {
      if (then === 'hello') s.write(new TextEncoder().encode('hello'));
      else if (then === 'end') s.end();
    };
  };
  connect(40000, B, 8080, 'hello');
  connect(40002, B, 8080, 'end');
  connect(40004, B, 8080, 'end');
  connect(40008, B, 8080, 'nothing');
  connect(40006, NOWHERE, 80, 'nothing');
  a.udp.bind(0, 40010, () => {});
  a.udp.bind(0, 40012, () => {}, undefined, { addr: B, port: 5353 });
  sim.run(1000 * NS_PER_MS);
  return { sim, a, b };
}

/** The same sockets on the kernel: b's program, then a's; each prints `ready` once its sockets are in place. */
export const NODE_PROGRAMS = {
  b: `
const net = require('node:net');
const dgram = require('node:dgram');
let pending = 4;
const ready = () => { if (--pending === 0) console.log('ready'); };
const echo = net.createServer({ allowHalfOpen: true }, (s) => {
  s.on('data', (d) => s.write(d));
  s.on('end', () => { if (s.remotePort === 40004) s.end(); });
  s.on('error', () => {});
});
echo.listen(8080, '0.0.0.0', ready);
net.createServer(() => {}).listen(22, '10.0.0.2', ready);
dgram.createSocket('udp4').bind(5353, '0.0.0.0', ready);
const u = dgram.createSocket('udp4');
u.bind(41234, '10.0.0.2', () => u.connect(53, '10.0.0.1', ready));
setTimeout(() => process.exit(0), 120000);
`,
  a: `
const net = require('node:net');
const dgram = require('node:dgram');
let pending = 5;
const ready = () => { if (--pending === 0) setTimeout(() => console.log('ready'), 300); };
const connect = (localPort, host, port) => {
  const s = net.connect({ host, port, localAddress: '10.0.0.1', localPort });
  s.on('error', () => {});
  return s;
};
const hello = connect(40000, '10.0.0.2', 8080);
hello.on('connect', () => hello.write('hello'));
hello.once('data', ready);
const half = connect(40002, '10.0.0.2', 8080);
half.on('connect', () => half.end(ready));
const closed = connect(40004, '10.0.0.2', 8080);
closed.on('connect', () => closed.end());
closed.on('close', ready);
connect(40006, '10.0.0.3', 80);
connect(40008, '10.0.0.2', 8080);
dgram.createSocket('udp4').bind(40010, '0.0.0.0', ready);
const u = dgram.createSocket('udp4');
u.bind(40012, '0.0.0.0', () => u.connect(5353, '10.0.0.2', ready));
setTimeout(() => process.exit(0), 120000);
`,
};

/** Command lines run in both namespaces (`ss` and its arguments). */
export const SOCKET_COMMANDS: readonly string[] = [
  'ss',
  'ss -n',
  'ss -t',
  'ss -tn',
  'ss -ta',
  'ss -tan',
  'ss -tl',
  'ss -tln',
  'ss -tlnH',
  'ss -u',
  'ss -un',
  'ss -ua',
  'ss -uan',
  'ss -ul',
  'ss -tua',
  'ss -tuan',
  'ss -tunaH',
  'ss -tuln',
  'ss -4 -tn',
  'ss -6 -tn',
  'ss -tn state established',
  'ss -tn state time-wait',
  'ss -tan state listening',
  'ss -tn state syn-sent',
  'ss -tn state syn-recv',
  'ss -tn state fin-wait-2',
  'ss -tn state close-wait',
  'ss -tn state connected',
  'ss -tn state synchronized',
  'ss -tn state bucket',
  'ss -tn state big',
  'ss -tan exclude listening exclude time-wait',
  'ss -t exclude all',
  'ss -tun state established',
  'ss -tu state listening',
  'ss -ua state unconnected',
  'ss state listening -tn',
  'ss -t -A udp -n',
  'ss -A tcp,udp -an',
  'ss -A inet -n',
  'ss -f inet -tn',
  'ss --tcp --all --numeric',
  'ss -x',
  'ss -w',
];

/** Command lines whose answer does not depend on the sockets: errors, help, version, empty selections. */
export const OTHER_COMMANDS: readonly string[] = [
  'ss -V',
  'ss --version',
  'ss -h',
  'ss -f help',
  'ss -Q',
  'ss -VQ',
  'ss -Z -Q',
  'ss -h --foo',
  'ss -tQ',
  'ss --foo',
  'ss --s',
  'ss --t',
  'ss --tcp=1',
  'ss -f',
  'ss -tf',
  'ss --family',
  'ss -f bar',
  'ss -A foo',
  'ss -A tcp,foo',
  'ss -A !tcp',
  'ss -t -A !tcp',
  'ss -t state',
  'ss -t state foo',
  'ss -t exclude',
  'ss -t state closed',
  'ss -Z',
  'ss -z',
  'ss -d',
];

/** Whether a command line prints the header (no -H, no --no-header). */
export function hasHeader(cmd: string): boolean {
  return !cmd.split(' ').some((word) => /^-[^-]*H/.test(word) || word === '--no-header');
}

/**
 * An output with its rows in a canonical order: the header first, then the rows sorted within
 * their section (UDP, TCP listeners, other TCP), since the kernel walks hash tables keyed with a
 * random per-namespace value.
 */
export function canonical(stdout: string, options: { header: boolean }): string {
  const lines = stdout.split('\n');
  const last = lines.pop();
  if (last !== '') return stdout;
  const header = options.header ? lines.splice(0, 1) : [];
  const rows = [...lines].sort((x, y) => section(x) - section(y) || (x < y ? -1 : x > y ? 1 : 0));
  return [...header, ...rows, ''].join('\n');
}

/** The section a row belongs to in ss's output order: UDP, then TCP's listening hash, then its established hash. */
export function section(row: string): number {
  if (row.startsWith('udp ')) return 0;
  return /\bLISTEN\b/.test(row) ? 1 : 2;
}

/** True when the rows come section by section (UDP, TCP listeners, other TCP), as ss prints them. */
export function inSectionOrder(stdout: string, options: { header: boolean }): boolean {
  const rows = stdout.split('\n').filter((line) => line !== '');
  if (options.header) rows.shift();
  return rows.every((row, i) => i === 0 || section(rows[i - 1]!) <= section(row));
}
