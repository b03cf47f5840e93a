// The bridge, netdev, arp and ip6 families: listings and errors as nft 1.0.6 prints them (the fixture and each error
// checked against the real nft when it is installed, pinned otherwise), and the chains' evaluation on packetlab's
// bridge, devices and ARP: where each hook runs, what its counters count, what a drop leaves behind.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNft } from '../../../src/netfilter/nft/index.ts';
import { RulesetStore } from '../../../src/netfilter/ruleset.ts';
import { Simulation } from '../../../src/netns/simulation.ts';
import { exec, spawn } from '../../../src/tools/exec.ts';
import { RealNamespaces, requireNetns } from '../../support/netns.ts';
import { requireTool } from '../../support/tools.ts';

const here = dirname(fileURLToPath(import.meta.url));
const fixtureDir = join(here, 'fixtures');
const fixture = (name: string): string => readFileSync(join(fixtureDir, name), 'utf8');

/** Each command, and the first line of nft 1.0.6's answer with its caret line (the rest is the command again). */
const ERRORS: readonly (readonly [string, string, string])[] = [
  [
    'add table bridge x; add chain bridge x c { type filter hook ingress priority 0; }',
    'Error: The bridge family does not support this hook',
    '                                                            ^^^^^^^',
  ],
  [
    'add table bridge x; add chain bridge x c { type nat hook prerouting priority 0; }',
    'Error: Could not process rule: No such file or directory',
    '                                                ^^^',
  ],
  [
    'add table arp x; add chain arp x c { type filter hook forward priority 0; }',
    'Error: Could not process rule: Operation not supported',
    `                 ${'^'.repeat(59)}`,
  ],
  [
    'add table arp x; add chain arp x c { type filter hook prerouting priority 0; }',
    'Error: The arp family does not support this hook',
    '                                                      ^^^^^^^^^^',
  ],
  [
    'add table netdev x; add chain netdev x c { type filter hook ingress priority 0; }',
    "Error: Missing `device' in this chain definition",
    `                                           ${'^'.repeat(35)}`,
  ],
  [
    'add table netdev x; add chain netdev x c { type filter hook input device veth0 priority 0; }',
    'Error: The netdev family does not support this hook',
    '                                                            ^^^^^',
  ],
  [
    'add table netdev x; add chain netdev x c { type filter hook ingress device veth0 priority raw; }',
    'Error: invalid priority expression value in this context.',
    '                                                                                 ^^^^^^^^^^^^',
  ],
  [
    'add table ip x; add chain ip x c { type filter hook ingress device veth0 priority 0; }',
    'Error: The ip family does not support this hook',
    '                                                    ^^^^^^^',
  ],
  [
    'add table bridge x; add chain bridge x c { type filter hook prerouting device veth0 priority 0; }',
    'Error: This chain type cannot be bound to device',
    '                                                                       ^^^^^^^^^^^^',
  ],
  [
    'add table bridge x; add chain bridge x c { type filter hook forward priority out; }',
    'Error: invalid priority expression value in this context.',
    '                                                                    ^^^^^^^^^^^^',
  ],
  [
    'add table inet x; add chain inet x c { type filter hook ingress device lo priority dstnat; }',
    'Error: invalid priority expression value in this context.',
    '                                                                          ^^^^^^^^^^^^^^^',
  ],
  [
    'add table bridge x; add chain bridge x c; add rule bridge x c vlan id 4096',
    'Error: Value 4096 exceeds valid range 0-4095',
    '                                                                      ^^^^',
  ],
  [
    'add table bridge x; add chain bridge x c; add rule bridge x c arp operation foo',
    'Error: Could not parse ARP operation',
    '                                                                            ^^^',
  ],
  [
    'add table ip6 x; add chain ip6 x c; add rule ip6 x c ip6 saddr 2001:db8::/129',
    'Error: Prefix length 129 is invalid for type of 128 bits width',
    '                                                               ^^^^^^^^^^^^^^',
  ],
  [
    'add table ip6 x; add chain ip6 x c; add rule ip6 x c icmpv6 type bogus',
    'Error: Could not parse ICMPv6 type',
    '                                                                 ^^^^^',
  ],
];

describe('nft families: listings and errors', () => {
  const real = new RealNamespaces();
  let ready = false;

  beforeAll(() => {
    if (!requireNetns() || !requireTool('nft')) return;
    real.add('n');
    ready = true;
  });

  afterAll(() => real.cleanup());

  it('families.nft lists as nft 1.0.6 lists it (priorities by family, devices, hidden dependencies)', () => {
    const netfilter = { store: new RulesetStore() };
    expect(runNft(netfilter, fixture('families.nft'), { file: 'families.nft' }).stderr).toBe('');
    const ours = runNft(netfilter, 'list ruleset').stdout;
    expect(ours).toBe(fixture('families.list'));
    if (!ready) return;
    expect(real.exec('n', 'nft', ['flush', 'ruleset']).exitCode).toBe(0);
    expect(real.exec('n', 'nft', ['-f', join(fixtureDir, 'families.nft')]).stderr).toBe('');
    expect(real.exec('n', 'nft', ['list', 'ruleset']).stdout).toBe(ours);
  });

  it('nft monitor names the chains priorities as the family does, without devices (pinned from nft 1.0.6)', () => {
    const sim = new Simulation({ seed: 'nft-families-monitor' });
    const ns = sim.addNamespace('m');
    const monitor = spawn(ns, 'nft monitor');
    const commands =
      'add table bridge m; add chain bridge m c { type filter hook prerouting priority -200; }; ' +
      'add table netdev n; add chain netdev n i { type filter hook ingress devices = { a, b } priority 0; }';
    expect(exec(ns, `nft '${commands}'`).stderr).toBe('');
    if (!('stop' in monitor)) throw new Error('nft monitor did not start');
    expect(monitor.stop().stdout).toBe(
      'add table bridge m\n' +
        'add chain bridge m c { type filter hook prerouting priority filter; policy accept; }\n' +
        'add table netdev n\n' +
        'add chain netdev n i { type filter hook ingress priority filter; policy accept; }\n' +
        '# new generation 2 by process 1000 (nft)\n',
    );
  });

  it.each(ERRORS)('%s', (command, message, caret) => {
    const ours = runNft({ store: new RulesetStore() }, command);
    expect(ours).toEqual({ stdout: '', stderr: `${message}\n${command}\n${caret}\n`, exitCode: 1 });
    if (!ready) return;
    real.exec('n', 'nft', ['flush', 'ruleset']);
    expect(real.exec('n', 'nft', [command])).toEqual(ours);
  });
});

/** Namespace sw with bridge br0 and ports p1, p2 to hosts a (10.9.0.1) and b (10.9.0.2). */
function bridged() {
  const sim = new Simulation({ seed: 'nft-families' });
  const [a, b, sw] = [sim.addNamespace('a'), sim.addNamespace('b'), sim.addNamespace('sw')];
  const run = (ns: typeof a, line: string) => expect(exec(ns, line).stderr).toBe('');
  run(sw, 'ip link add br0 type bridge');
  run(sw, 'ip link add p1 type veth peer name e0 netns a');
  run(sw, 'ip link add p2 type veth peer name e0 netns b');
  for (const port of ['p1', 'p2']) run(sw, `ip link set ${port} master br0`);
  for (const dev of ['p1', 'p2', 'br0']) run(sw, `ip link set ${dev} up`);
  run(a, 'ip addr add 10.9.0.1/24 dev e0');
  run(a, 'ip link set e0 up');
  run(b, 'ip addr add 10.9.0.2/24 dev e0');
  run(b, 'ip link set e0 up');
  const nft = (ns: typeof a, text: string) => {
    sim.files.set('r.nft', new TextEncoder().encode(text));
    run(ns, 'nft -f r.nft');
  };
  return { sim, a, b, sw, nft };
}

/** The counters of one rule line of a listing, `[packets, bytes]`. */
function counters(listing: string, rule: string): [number, number] {
  const line = listing.split('\n').find((l) => l.trim().startsWith(rule));
  const match = line === undefined ? null : /(?:^| )counter packets (\d+) bytes (\d+)/.exec(line.trim());
  if (match === null) throw new Error(`no counter for ${rule} in\n${listing}`);
  return [Number(match[1]), Number(match[2])];
}

describe('nft families: evaluation', () => {
  it('a bridge prerouting drop ends the frame before the bridge learns its source', () => {
    const { a, sw, nft } = bridged();
    nft(
      sw,
      'table bridge t { chain pre { type filter hook prerouting priority filter; ether type arp counter drop; }\n}',
    );
    expect(exec(a, 'ping -c 1 -W 1 10.9.0.2').exitCode).toBe(1);
    const [requests, bytes] = counters(exec(sw, 'nft list ruleset').stdout, 'ether type arp');
    expect(requests).toBeGreaterThan(0);
    expect(bytes).toBe(requests * 28);
    expect(exec(sw, 'bridge fdb show br br0').stdout).not.toContain('dev p1 master br0\n');
  });

  it('forward sees port to port, input what goes up, output and postrouting what the host sends', () => {
    const { a, b, sw, nft } = bridged();
    exec(sw, 'ip addr add 10.9.0.3/24 dev br0');
    nft(
      sw,
      `table bridge t {
        chain fw { type filter hook forward priority 0; meta ibrname "br0" meta obrname "br0" ip protocol icmp counter; }
        chain inp { type filter hook input priority 0; ip protocol icmp counter; }
        chain out { type filter hook output priority 0; ip protocol icmp counter; }
        chain post { type filter hook postrouting priority 0; ip protocol icmp counter; }
      }`,
    );
    expect(exec(a, 'ping -c 2 10.9.0.2').exitCode).toBe(0);
    expect(exec(b, 'ping -c 1 10.9.0.3').exitCode).toBe(0);
    const listing = exec(sw, 'nft list ruleset').stdout;
    // 84 bytes: skb->len at the bridge hooks leaves out the Ethernet header.
    expect(counters(listing, 'meta ibrname "br0"')).toEqual([4, 336]);
    expect(counters(listing.slice(listing.indexOf('chain inp')), 'ip protocol icmp')).toEqual([1, 84]);
    expect(counters(listing.slice(listing.indexOf('chain out')), 'ip protocol icmp')).toEqual([1, 84]);
    expect(counters(listing.slice(listing.indexOf('chain post')), 'ip protocol icmp')).toEqual([5, 420]);
  });

  it('a bridge forward drop by arp operation, and the trace names the ports', () => {
    const { a, sw, nft } = bridged();
    nft(
      sw,
      `table bridge t {
        chain fw {
          type filter hook forward priority 0; policy accept;
          arp operation request meta nftrace set 1
          arp operation request arp daddr ip 10.9.0.2 counter drop
        }
      }`,
    );
    const trace = spawn(sw, 'nft monitor trace');
    expect(exec(a, 'ping -c 1 -W 1 10.9.0.2').exitCode).toBe(1);
    if (!('stop' in trace)) throw new Error('nft monitor trace did not start');
    const lines = trace.stop().stdout;
    expect(lines).toMatch(/^trace id \w{8} bridge t fw packet: iif "p1" oif "p2" ether saddr /m);
    // An ARP packet's trace decodes its operation only, as nft does for the bridge family.
    expect(lines).toMatch(/ether daddr ff:ff:ff:ff:ff:ff arp operation request \n/);
    expect(lines).toMatch(
      /bridge t fw rule arp operation request arp daddr ip 10\.9\.0\.2 counter packets 0 bytes 0 drop \(verdict drop\)/,
    );
    const [requests, bytes] = counters(
      exec(sw, 'nft list ruleset').stdout,
      'arp operation request arp daddr',
    );
    expect(requests).toBeGreaterThan(0);
    expect(bytes).toBe(requests * 28);
  });

  it('netdev ingress drops after the capture and before the stack; egress drops before the capture', () => {
    const { a, b, nft } = bridged();
    nft(
      b,
      `table netdev t {
        chain in { type filter hook ingress device e0 priority 0; icmp type echo-request counter drop; }
        chain eg { type filter hook egress device e0 priority 0; arp operation reply counter; }
      }`,
    );
    const capture = spawn(b, 'tcpdump -n -i e0 icmp');
    expect(exec(a, 'ping -c 2 -W 1 10.9.0.2').exitCode).toBe(1);
    if (!('stop' in capture)) throw new Error('tcpdump did not start');
    expect(capture.stop().stdout.match(/ICMP echo request/g)).toHaveLength(2);
    const listing = exec(b, 'nft list ruleset').stdout;
    expect(counters(listing, 'icmp type echo-request')).toEqual([2, 168]);
    // Egress counts the whole frame (skb->data at the Ethernet header in __dev_queue_xmit): 42 bytes of ARP.
    expect(counters(listing, 'arp operation reply')).toEqual([1, 42]);
    expect(exec(b, 'ip -s link show dev e0').stdout).toMatch(/RX: {2}bytes packets .*\n\s+\d+\s+3 /);
  });

  it('arp input counts the ARP header, arp output the whole frame, and an input drop leaves no neighbour', () => {
    const { a, b, nft } = bridged();
    nft(
      b,
      `table arp t {
        chain i { type filter hook input priority 0; arp saddr ip 10.9.0.1 counter drop; }
        chain o { type filter hook output priority 0; counter; }
      }`,
    );
    expect(exec(a, 'ping -c 1 -W 1 10.9.0.2').exitCode).toBe(1);
    const listing = exec(b, 'nft list ruleset').stdout;
    const [requests, bytes] = counters(listing, 'arp saddr ip 10.9.0.1');
    expect(requests).toBeGreaterThan(0);
    expect(bytes).toBe(requests * 28);
    expect(counters(listing.slice(listing.indexOf('chain o')), 'counter')).toEqual([0, 0]);
    expect(exec(b, 'ip neigh show').stdout).toBe('');
  });

  it('ip6 chains load and list, and IPv4 traffic never meets them', () => {
    const { a, b, nft } = bridged();
    nft(b, 'table ip6 t { chain c { type filter hook input priority 0; counter; ip6 saddr ::1 drop; }\n}');
    expect(exec(a, 'ping -c 1 10.9.0.2').exitCode).toBe(0);
    const listing = exec(b, 'nft list ruleset').stdout;
    expect(counters(listing, 'counter')).toEqual([0, 0]);
    expect(listing).toContain('ip6 saddr ::1 drop');
  });
});
