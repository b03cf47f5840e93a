// conntrack (the tool) on the lesson's cluster and against recorded conntrack-tools 1.4.7 output: listings, filters, -C/-S/-D/-F/-U/-G, events, bad command lines, and the nf_conntrack sysctls.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { kubeProxyNatRules, type ServiceSpec, SIGNALEMENTS } from '../../scenarios/kube-proxy-iptables.ts';
import { lessonServices, type ServicesLesson } from '../../src/k8s/lesson.ts';
import type { Namespace } from '../../src/netns/namespace.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import { conntrack, startConntrack } from '../../src/tools/conntrack.ts';
import { exec, execOrThrow, spawn } from '../../src/tools/exec.ts';
import { parseIpv4 } from '../../src/wire/address.ts';
import { COMMAND_LINES, ENTRY_CASES, ENTRY_RULES, EVENT_CASES, SYSCTL_CASES } from './conntrack-fixtures.ts';

const SECOND = 1_000_000_000;

/** The Service over UDP too, with its one endpoint on W2. */
const UDP_SERVICE: ServiceSpec = {
  ...SIGNALEMENTS,
  servicePort: 'default/signalements:udp',
  protocol: 'udp',
  endpoints: ['10.244.2.7:8000'],
};

const must = execOrThrow;

function udp(from: Namespace, srcPort: number, to: string, dstPort: number): void {
  from.udp.send({ dst: parseIpv4(to)!, dstPort, srcPort, payload: new Uint8Array([1]) });
}

/**
 * The lesson's cluster with echo servers on the pod 10.244.2.7 (UDP 8000) and the client (UDP 443), a CONNMARK
 * rule on W1 for traffic to port 443, and one second of traffic from diag (10.244.1.5): a UDP exchange through
 * the Service (DNAT to W2), a TCP SYN through the Service (the pod resets it), a SYN to an absent host (left in
 * SYN_SENT) and a UDP exchange with the client (MASQUERADE).
 */
function cluster(): ServicesLesson {
  const lesson = lessonServices({ kubeProxyRules: kubeProxyNatRules([SIGNALEMENTS, UDP_SERVICE]) });
  const { w1, diag, remote, client } = lesson;
  must(w1, 'iptables -t mangle -A PREROUTING -p udp --dport 443 -j CONNMARK --set-mark 0x99');
  remote.udp.bind(0, 8000, (d) =>
    remote.udp.send({ dst: d.srcAddr, dstPort: d.srcPort, srcPort: 8000, payload: d.payload }),
  );
  client.udp.bind(0, 443, (d) =>
    client.udp.send({ dst: d.srcAddr, dstPort: d.srcPort, srcPort: 443, payload: d.payload }),
  );
  for (const port of [40000, 40002, 40003, 41234]) diag.udp.bind(0, port, () => {});
  udp(diag, 41234, '10.96.40.12', 80);
  diag.tcp.sendSyn(parseIpv4('10.96.40.12')!, 80, 41235);
  diag.tcp.sendSyn(parseIpv4('172.18.0.200')!, 443, 40001);
  udp(diag, 40000, '172.18.0.100', 443);
  lesson.sim.run(SECOND);
  return lesson;
}

const DNAT_UDP =
  'udp      17 29 src=10.244.1.5 dst=10.96.40.12 sport=41234 dport=80 src=10.244.2.7 dst=10.244.1.5 sport=8000 dport=41234 mark=0 use=1';
const MASQ_UDP =
  'udp      17 29 src=10.244.1.5 dst=172.18.0.100 sport=40000 dport=443 src=172.18.0.100 dst=172.18.0.2 sport=443 dport=40000 mark=153 use=1';
/** W1's VXLAN packets to W2 (flannel.1, UDP 8472; the source port is the inner flow's hash). */
const VXLAN_OUT =
  'udp      17 29 src=172.18.0.2 dst=172.18.0.3 sport=47452 dport=8472 [UNREPLIED] src=172.18.0.3 dst=172.18.0.2 sport=8472 dport=47452 mark=0 use=1';
const SYN_SENT =
  'tcp      6 119 SYN_SENT src=10.244.1.5 dst=172.18.0.200 sport=40001 dport=443 [UNREPLIED] src=172.18.0.200 dst=172.18.0.2 sport=443 dport=40001 mark=0 use=1';

/** The listed lines of `conntrack ARGS` on `ns`, with its summary checked. */
function list(ns: Namespace, args: string): string[] {
  const result = exec(ns, `conntrack ${args}`);
  expect(result.exitCode).toBe(0);
  const lines = result.stdout === '' ? [] : result.stdout.trimEnd().split('\n');
  expect(result.stderr).toBe(
    `conntrack v1.4.7 (conntrack-tools): ${lines.length} flow entries have been shown.\n`,
  );
  return lines;
}

describe('conntrack -L on the node W1', () => {
  it('lists the Service DNAT, the MASQUERADE to the client with its connmark, and the unanswered SYN', () => {
    const { w1 } = cluster();
    const lines = list(w1, '-L');
    expect(lines).toContain(DNAT_UDP);
    expect(lines).toContain(MASQ_UDP);
    expect(lines).toContain(SYN_SENT);
    // The SYN the pod reset is gone (a RST in SYN_SENT kills the entry); the rest is the VXLAN tunnel's UDP.
    expect(lines.filter((line) => line.includes('dport=8472'))).toHaveLength(2);
    expect(lines).toHaveLength(5);
  });

  it('counts the remaining time down with the virtual clock, and a UDP stream becomes ASSURED', () => {
    const lesson = cluster();
    const { w1, diag } = lesson;
    lesson.sim.run(10 * SECOND);
    expect(list(w1, '-L -p tcp')).toEqual([SYN_SENT.replace(' 119 ', ' 109 ')]);
    expect(list(w1, '-L -d 10.96.40.12')).toEqual([DNAT_UDP.replace(' 29 ', ' 19 ')]);
    // A packet more than 2 s after the first, once answered: the stream timeout (120 s) and [ASSURED].
    udp(diag, 40000, '172.18.0.100', 443);
    lesson.sim.run(SECOND);
    expect(list(w1, '-L -d 172.18.0.100')).toEqual([
      MASQ_UDP.replace(' 29 ', ' 119 ').replace('mark=153', '[ASSURED] mark=153'),
    ]);
  });

  it('prints the layer 3 column with -o extended and the id with -o id', () => {
    const { w1 } = cluster();
    const [extended] = list(w1, '-L -o extended -d 10.96.40.12');
    expect(extended).toBe(`ipv4     2 ${DNAT_UDP}`);
    const [withId] = list(w1, '-L -o id -d 10.96.40.12');
    expect(withId).toMatch(new RegExp(`^${DNAT_UDP.replaceAll('.', '\\.')} id=\\d+$`));
  });

  it('writes -o save lines with -g for the DNATed reply source and -o xml', () => {
    const { w1 } = cluster();
    expect(list(w1, '-L -o save -d 10.96.40.12')).toEqual([
      '-A -t 29 -u SEEN_REPLY -s 10.244.1.5 -d 10.96.40.12 -g 10.244.2.7 -q 10.244.1.5 -p udp --sport 41234 --dport 80 --reply-port-src 8000 --reply-port-dst 41234',
    ]);
    // MASQUERADE changes the reply destination: -n instead of -q.
    expect(list(w1, '-L -o save -p tcp')).toEqual([
      '-A -t 119 -u UNSET -s 10.244.1.5 -d 172.18.0.200 -r 172.18.0.200 -n 172.18.0.2 -p tcp --sport 40001 --dport 443 --reply-port-src 443 --reply-port-dst 40001 --state SYN_SENT',
    ]);
    const xml = exec(w1, 'conntrack -L -o xml -p tcp').stdout;
    expect(xml).toMatch(
      /^<\?xml version="1\.0" encoding="utf-8"\?>\n<conntrack>\n<flow>.*<\/flow>\n<\/conntrack>\n$/s,
    );
    expect(xml).toContain('<state>SYN_SENT</state><timeout>119</timeout><mark>0</mark><use>1</use><id>');
    expect(xml).toContain('<unreplied/></meta></flow>');
  });
});

describe('conntrack filters', () => {
  const cases: readonly (readonly [string, readonly string[]])[] = [
    ['-p udp -s 10.244.1.5', [DNAT_UDP, MASQ_UDP]],
    ['-p tcp', [SYN_SENT]],
    ['-p 6', [SYN_SENT]],
    ['-s 10.244.1.5', [DNAT_UDP, MASQ_UDP, SYN_SENT]],
    ['-s 10.244.0.0/16', [DNAT_UDP, MASQ_UDP, SYN_SENT]],
    ['-d 10.96.40.12', [DNAT_UDP]],
    ['-s 10.244.1.5 --orig-dst 172.18.0.0 --mask-dst 255.255.255.0', [MASQ_UDP, SYN_SENT]],
    ['-d 172.18.0.3/32 -p udp --dport 8472', [VXLAN_OUT]],
    ['-r 10.244.2.7', [DNAT_UDP]],
    ['-q 172.18.0.2', [MASQ_UDP, SYN_SENT, VXLAN_OUT]],
    ['-p udp --sport 41234', [DNAT_UDP]],
    ['-p udp --dport 443', [MASQ_UDP]],
    ['-p udp --reply-port-src 8000', [DNAT_UDP]],
    ['-p tcp --reply-port-dst 40001', [SYN_SENT]],
    ['-m 153', [MASQ_UDP]],
    ['-m 0x10/0x10', [MASQ_UDP]],
    ['--mark 0 -s 10.244.1.5', [DNAT_UDP, SYN_SENT]],
    ['-u SEEN_REPLY -s 10.244.1.5', [DNAT_UDP, MASQ_UDP]],
    ['--status UNREPLIED -s 10.244.1.5', [SYN_SENT]],
    ['-p tcp --state SYN_SENT', [SYN_SENT]],
    ['-p tcp --state ESTABLISHED', []],
    ['--dst-nat', [DNAT_UDP]],
    ['--dst-nat 10.244.2.7:8000', [DNAT_UDP]],
    ['--src-nat 172.18.0.2', [MASQ_UDP, SYN_SENT]],
    ['-j 10.244.2.7', [DNAT_UDP]],
    ['-f ipv6', []],
  ];

  it.each(cases)('conntrack -L %s', (args, expected) => {
    const { w1 } = cluster();
    expect(list(w1, `-L ${args}`).sort()).toEqual([...expected].sort());
  });
});

describe('conntrack -C, -S, -G, -D, -U, -F', () => {
  it('-C counts the entries as nf_conntrack_count does', () => {
    const { w1 } = cluster();
    expect(exec(w1, 'conntrack -C')).toEqual({ stdout: '5\n', stderr: '', exitCode: 0 });
    expect(must(w1, 'sysctl -n net.netfilter.nf_conntrack_count')).toBe('5\n');
  });

  it('-S prints one cpu line of the statistics', () => {
    const { w1 } = cluster();
    const result = exec(w1, 'conntrack -S');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(
      /^cpu=0 {3}\tfound=\d+ invalid=\d+ insert=0 insert_failed=0 drop=0 early_drop=0 error=0 search_restart=0 clash_resolve=\d+ chaintoolong=0 \n$/,
    );
  });

  it('-G gets an entry by its original tuple and shows the reference it holds (use=2)', () => {
    const { w1 } = cluster();
    const got = exec(w1, 'conntrack -G -p udp -s 10.244.1.5 -d 10.96.40.12 --sport 41234 --dport 80');
    expect(got.stdout).toBe(`${DNAT_UDP.replace('use=1', 'use=2')}\n`);
    expect(got.stderr).toBe('conntrack v1.4.7 (conntrack-tools): 1 flow entries have been shown.\n');
    // The kernel finds it by the reply tuple too, but conntrack then compares what it got with -s/-d and drops it.
    expect(exec(w1, 'conntrack -G -p udp -s 10.244.2.7 -d 10.244.1.5 --sport 8000 --dport 41234')).toEqual({
      stdout: '',
      stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
      exitCode: 1,
    });
    expect(exec(w1, 'conntrack -G -p udp -s 10.244.1.5 -d 10.96.40.12 --sport 1 --dport 80')).toEqual({
      stdout: '',
      stderr: "conntrack v1.4.7 (conntrack-tools): Operation failed: such conntrack doesn't exist\n",
      exitCode: 1,
    });
  });

  it('-D prints and deletes what matches; -L no longer shows it; nothing left to delete exits 1', () => {
    const { w1 } = cluster();
    expect(exec(w1, 'conntrack -D -p udp --dport 443')).toEqual({
      stdout: `${MASQ_UDP}\n`,
      stderr: 'conntrack v1.4.7 (conntrack-tools): 1 flow entries have been deleted.\n',
      exitCode: 0,
    });
    expect(list(w1, '-L -s 10.244.1.5').sort()).toEqual([DNAT_UDP, SYN_SENT].sort());
    expect(exec(w1, 'conntrack -D -p udp --dport 443')).toEqual({
      stdout: '',
      stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been deleted.\n',
      exitCode: 1,
    });
    expect(exec(w1, 'conntrack -C').stdout).toBe('4\n');
  });

  it('-U sets the connection mark of what matches and prints the updated entries', () => {
    const { w1 } = cluster();
    const result = exec(w1, 'conntrack -U -p tcp -m 0x4000');
    expect(result.stdout).toBe(`${SYN_SENT.replace('mark=0', 'mark=16384')}\n`);
    expect(result.stderr).toBe('conntrack v1.4.7 (conntrack-tools): 1 flow entries have been updated.\n');
    // Unchanged entries are not updated again.
    expect(exec(w1, 'conntrack -U -p tcp -m 0x4000').exitCode).toBe(1);
    expect(list(w1, '-L -m 0x4000/0x4000')).toEqual([SYN_SENT.replace('mark=0', 'mark=16384')]);
  });

  it('-F empties the table', () => {
    const { w1 } = cluster();
    expect(exec(w1, 'conntrack -F')).toEqual({
      stdout: '',
      stderr: 'conntrack v1.4.7 (conntrack-tools): connection tracking table has been emptied.\n',
      exitCode: 0,
    });
    expect(list(w1, '-L')).toEqual([]);
    expect(exec(w1, 'conntrack -C').stdout).toBe('0\n');
  });
});

describe('conntrack -E', () => {
  it('shows a new connection, its reply, and its DESTROY once it expires (no timeout column)', () => {
    const lesson = cluster();
    const { w1, diag } = lesson;
    const monitor = spawn(w1, 'conntrack -E -p udp --dport 443');
    if (!('stop' in monitor)) throw new Error(monitor.stderr);
    udp(diag, 40002, '172.18.0.100', 443);
    lesson.sim.run(SECOND);
    const flow =
      'src=10.244.1.5 dst=172.18.0.100 sport=40002 dport=443 [UNREPLIED] src=172.18.0.100 dst=172.18.0.2 sport=443 dport=40002 mark=153';
    expect(monitor.stdout).toBe(
      `    [NEW] udp      17 30 ${flow}\n [UPDATE] udp      17 30 ${flow.replace('[UNREPLIED] ', '')}\n`,
    );
    lesson.sim.run(90 * SECOND);
    const result = monitor.stop();
    // Both entries to the client expire: the first one (port 40000) too, since -p udp --dport 443 matches it.
    expect(result.stdout).toContain(`[DESTROY] udp      17 ${flow.replace('[UNREPLIED] ', '')}\n`);
    expect(result.stdout.split('\n').filter((line) => line.startsWith('[DESTROY]'))).toHaveLength(2);
    expect(result.stderr).toBe('conntrack v1.4.7 (conntrack-tools): 4 flow events have been shown.\n');
    expect(monitor.done).toBe(true);
  });

  it('tags deletions made by conntrack itself as [USERSPACE], and -e keeps only the chosen types', () => {
    const { w1 } = cluster();
    const monitor = spawn(w1, 'conntrack -E -e DESTROY');
    if (!('stop' in monitor)) throw new Error(monitor.stderr);
    must(w1, 'conntrack -D -d 10.96.40.12');
    const { stdout } = monitor.stop();
    expect(stdout).toMatch(
      /^\[DESTROY\] udp {6}17 29 src=10\.244\.1\.5 dst=10\.96\.40\.12 .* \[USERSPACE\] portid=\d+ progname=conntrack\n$/,
    );
  });

  it('in the foreground it explains how to run it, after checking its options', () => {
    const { w1 } = cluster();
    expect(exec(w1, 'conntrack -E').stderr).toContain('spawn(ns, "conntrack -E');
    expect(exec(w1, 'conntrack -E -e FOO')).toEqual({
      stdout: '',
      stderr:
        "conntrack v1.4.7 (conntrack-tools): Bad parameter `FOO'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
      exitCode: 2,
    });
  });
});

describe('conntrack command lines, as conntrack-tools 1.4.7 answers them on an empty table', () => {
  const ns = new Simulation({ seed: 'conntrack-cli' }).addNamespace('a');
  it.each(COMMAND_LINES.map((run) => [run.cmd, run] as const))('%s', (cmd, real) => {
    const ours = exec(ns, cmd);
    expect({ stdout: ours.stdout, stderr: ours.stderr, exitCode: ours.exitCode }).toEqual({
      stdout: real.stdout,
      stderr: real.stderr,
      exitCode: real.exitCode,
    });
  });

  it('--id without =N crashes 1.4.7 (SIGSEGV); packetlab answers as the shell would', () => {
    expect(exec(ns, 'conntrack -D --id')).toEqual({
      stdout: '',
      stderr: 'Segmentation fault\n',
      exitCode: 139,
    });
  });
});

/** The two namespaces and traffic of ENTRY_CASES and EVENT_CASES. */
function recordedSetup(): { sim: Simulation; a: Namespace; traffic: () => void } {
  const sim = new Simulation({ seed: 'conntrack-recorded' });
  const a = sim.addNamespace('plabctl-a');
  const b = sim.addNamespace('plabctl-b');
  must(a, 'ip link add ctva type veth peer name ctvb netns plabctl-b');
  must(a, 'ip addr add 10.0.0.1/24 dev ctva');
  must(b, 'ip addr add 10.0.0.2/24 dev ctvb');
  for (const [ns, dev] of [
    [a, 'ctva'],
    [b, 'ctvb'],
  ] as const) {
    must(ns, `ip link set ${dev} up`);
    must(ns, 'ip link set lo up');
  }
  const restore = exec(a, 'iptables-restore', { stdin: ENTRY_RULES });
  expect(restore.exitCode).toBe(0);
  b.udp.bind(0, 5353, (d) =>
    b.udp.send({ dst: d.srcAddr, dstPort: d.srcPort, srcPort: 5353, payload: d.payload }),
  );
  for (const port of [41000, 42000, 43000, 45000]) a.udp.bind(0, port, () => {});
  const traffic = (): void => {
    for (const [port, dst, dstPort] of [
      [41000, '10.0.0.2', 5353],
      [42000, '10.0.0.2', 9999],
      [43000, '10.0.0.99', 53],
      [45000, '10.0.0.2', 5353],
    ] as const) {
      udp(a, port, dst, dstPort);
      sim.run(1_000_000);
    }
    must(a, 'ping -c 1 -W 1 10.0.0.2');
  };
  return { sim, a, traffic };
}

/**
 * What may differ from the machine: line order (hash order there), remaining timeouts (wall clock there),
 * entry ids and ICMP ids (random there), and the portid of userspace deletions (a pid there).
 */
function normalize(text: string): string {
  return text
    .replace(/portid=\d+( progname=conntrack)?/g, 'portid=P')
    .replace(/^((?:\[\w+\] +)?(?:ipv4 +2 )?\S+ +\d+ )\d+ /gm, '$1T ')
    .replace(/\bid=\d+/g, 'id=N')
    .replace(/-t \d+/g, '-t T')
    .replace(/--icmp-id \d+/g, '--icmp-id N')
    .replace(/<timeout>\d+</g, '<timeout>T<')
    .replace(/<id>\d+</g, '<id>N<')
    .split('\n')
    .sort()
    .join('\n');
}

describe('conntrack against the recorded machine, with entries', () => {
  it('lists, filters, gets and deletes as conntrack-tools did (ENTRY_CASES, in order)', () => {
    const { a, traffic } = recordedSetup();
    traffic();
    for (const real of ENTRY_CASES) {
      const ours = exec(a, real.cmd);
      expect({
        cmd: real.cmd,
        stdout: normalize(ours.stdout),
        stderr: ours.stderr,
        exitCode: ours.exitCode,
      }).toEqual({
        cmd: real.cmd,
        stdout: normalize(real.stdout),
        stderr: real.stderr,
        exitCode: real.exitCode,
      });
    }
  });

  it.each(EVENT_CASES.map((run) => [run.cmd, run] as const))('%s', (cmd, real) => {
    const { a, traffic } = recordedSetup();
    const monitor = spawn(a, cmd);
    if (!('stop' in monitor)) throw new Error(monitor.stderr);
    traffic();
    must(a, 'conntrack -D -p udp --dport 9999');
    must(a, 'conntrack -F');
    const ours = monitor.stop();
    expect(normalize(ours.stdout)).toBe(normalize(real.stdout));
    expect(ours.stderr).toBe(real.stderr);
  });
});

describe('net.netfilter.nf_conntrack_* sysctls', () => {
  it('answer as procps and Linux 6.18 did, in order', () => {
    const ns = new Simulation({ seed: 'conntrack-sysctl' }).addNamespace('s');
    for (const real of SYSCTL_CASES) {
      const ours = exec(ns, real.cmd);
      expect({ cmd: real.cmd, stdout: ours.stdout, stderr: ours.stderr, exitCode: ours.exitCode }).toEqual(
        real,
      );
    }
  });

  it('sysctl -a shows them; the timeouts reach the engine', () => {
    const lesson = cluster();
    const { w1, diag } = lesson;
    const all = must(w1, 'sysctl -a');
    expect(all).toContain('net.netfilter.nf_conntrack_max = 262144\n');
    expect(all).toContain('net.netfilter.nf_conntrack_count = 5\n');
    expect(all).toContain('net.netfilter.nf_conntrack_tcp_timeout_established = 432000\n');
    expect(must(w1, 'sysctl -w net.netfilter.nf_conntrack_udp_timeout=3')).toBe(
      'net.netfilter.nf_conntrack_udp_timeout = 3\n',
    );
    udp(diag, 40003, '172.18.0.200', 53);
    lesson.sim.run(1_000_000);
    expect(list(w1, '-L -p udp --sport 40003')).toEqual([
      'udp      17 3 src=10.244.1.5 dst=172.18.0.200 sport=40003 dport=53 [UNREPLIED] src=172.18.0.200 dst=172.18.0.2 sport=53 dport=40003 mark=0 use=1',
    ]);
    lesson.sim.run(5 * SECOND);
    expect(list(w1, '-L -p udp --sport 40003')).toEqual([]);
  });

  it('nf_conntrack_max=2: a third flow finds the table full and is dropped, established flows keep working', () => {
    const lesson = lessonServices({ kubeProxyRules: kubeProxyNatRules([SIGNALEMENTS]) });
    const { w1, diag, client, sim } = lesson;
    const seen: number[] = [];
    client.udp.bind(0, 443, (d) => {
      seen.push(d.srcPort);
      client.udp.send({ dst: d.srcAddr, dstPort: d.srcPort, srcPort: 443, payload: d.payload });
    });
    for (const port of [40001, 40002, 40003]) diag.udp.bind(0, port, () => {});
    must(w1, 'conntrack -F');
    expect(must(w1, 'sysctl -w net.netfilter.nf_conntrack_max=2')).toBe(
      'net.netfilter.nf_conntrack_max = 2\n',
    );
    // Two answered flows, made ASSURED by a second packet 3 s later: early drop may not evict them.
    for (const port of [40001, 40002]) udp(diag, port, '172.18.0.100', 443);
    sim.run(3 * SECOND);
    for (const port of [40001, 40002]) udp(diag, port, '172.18.0.100', 443);
    sim.run(SECOND);
    expect(list(w1, '-L -u ASSURED')).toHaveLength(2);
    expect(seen).toEqual([40001, 40002, 40001, 40002]);

    udp(diag, 40003, '172.18.0.100', 443);
    sim.run(SECOND);
    expect(seen).not.toContain(40003);
    expect(sim.kernelLog).toContain(
      `nf_conntrack: nf_conntrack: table full in netns ${w1.inum}, dropping packet`,
    );
    expect(exec(w1, 'conntrack -S').stdout).toContain(' drop=1 early_drop=0 ');
    expect(must(w1, 'sysctl -n net.netfilter.nf_conntrack_count')).toBe('2\n');

    udp(diag, 40001, '172.18.0.100', 443);
    sim.run(SECOND);
    expect(seen.at(-1)).toBe(40001);

    // A larger table lets the new flow in.
    must(w1, 'sysctl -w net.netfilter.nf_conntrack_max=262144');
    udp(diag, 40003, '172.18.0.100', 443);
    sim.run(SECOND);
    expect(seen.at(-1)).toBe(40003);
  });
});

describe('robustness', () => {
  const WORDS = [
    '-L',
    '-D',
    '-U',
    '-G',
    '-E',
    '-F',
    '-C',
    '-S',
    '-V',
    '-h',
    '-p',
    'tcp',
    'udp',
    'icmp',
    '-s',
    '-d',
    '-r',
    '-q',
    '10.244.1.5',
    '10.0.0.0/8',
    '--sport',
    '--dport',
    '--state',
    'ESTABLISHED',
    '-m',
    '0x4000/0x4000',
    '-u',
    'UNREPLIED',
    '-o',
    'xml',
    'save',
    'id,extended',
    '-e',
    'NEW,DESTROY',
    '-n',
    '-g',
    '-j',
    '--mask-src',
    '255.0.0.0',
    '-f',
    'ipv6',
    '-t',
    '5',
    '-z',
    'expect',
    'conntrack',
    '--',
    '-',
    '--id=1',
    '-b',
    '1000',
  ];

  it('never throws on fuzzed argument lists, with entries in the table', () => {
    const { w1 } = cluster();
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constantFrom(...WORDS), fc.string({ maxLength: 8 })), { maxLength: 8 }),
        (args) => {
          const result = conntrack(w1, args);
          expect(typeof result.stdout).toBe('string');
          expect(Number.isInteger(result.exitCode)).toBe(true);
          const started = startConntrack(w1, args);
          if ('stop' in started) started.stop();
        },
      ),
      { numRuns: 400 },
    );
  });
});
