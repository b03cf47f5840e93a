// ipset on the kernel and on packetlab: `ipset restore` of every modelled type (initval pinned, so both hash the
// same and list in the same order), `-m set` matches with counters and --return-nomatch, the SET target adding the
// addresses it sees, list:set, references held by rules, and the errors of both tools; then `ipset list`, `ipset
// save` and `iptables-save -c` after the same packets.

import { describe, expect, it } from 'vitest';
import { differential, outputOf } from './harness.ts';
import { twoHosts } from './topologies.ts';

const SETS = `create allowed hash:ip counters comment initval 0x00c0ffee
add allowed 10.0.0.1 comment "host a"
add allowed 10.0.0.9
create nets hash:net counters initval 0x00000042
add nets 10.0.0.0/24
add nets 10.0.0.1 nomatch
create services hash:ip,port counters initval 0x12345678
add services 10.0.0.2,udp:8000
add services 10.0.0.2,icmp:echo-request
create blocked hash:net,port initval 0x7
add blocked 10.0.0.0/30,udp:8001
create ifaces hash:net,iface initval 0x99
add ifaces 10.0.0.0/24,veth-b
create ports bitmap:port range 7000-9000 counters
add ports 8000-8002
create seen hash:ip timeout 0 initval 0xabcdef
create everything list:set counters
add everything allowed
add everything services
`;

const RULES = `*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -m set --match-set blocked src,dst -j DROP
-A INPUT -m set --match-set allowed src -j SET --add-set seen src
-A INPUT -m set --match-set nets src --return-nomatch
-A INPUT -m set --match-set nets src
-A INPUT -m set --match-set services dst,dst -m set --match-set ports dst ! --update-counters
-A INPUT -m set --match-set ifaces src,src
-A INPUT -m set --match-set everything src,dst --packets-gt 2
-A INPUT -m set ! --match-set services dst,dst -j ACCEPT
COMMIT
`;

/** A session of ipset commands, each observed in turn: every type's syntax, ranges, bucket growth and shrinking,
 * counters a reused slot inherits, netmask, tests, and the errors of the tool and of the kernel. */
const SESSION: readonly (readonly string[])[] = [
  ['create', 'ips', 'hash:ip', 'timeout', '0', 'counters', 'comment', 'initval', '0x912d0241'],
  ['add', 'ips', '10.0.0.1', 'comment', 'hello world', 'packets', '5', 'bytes', '300'],
  ['add', 'ips', '10.0.0.2'],
  ['create', 'nets', 'hash:net', 'initval', '0x13b69919'],
  ['add', 'nets', '10.1.0.0/16'],
  ['add', 'nets', '10.2.0.0/24', 'nomatch'],
  ['add', 'nets', '10.3.0.1'],
  ['add', 'nets', '10.9.0.0-10.9.0.255'],
  ['add', 'nets', '10.10.0.1-10.10.0.6'],
  ['create', 'ipp', 'hash:ip,port', 'initval', '0xa8afdf6d'],
  ['add', 'ipp', '10.0.0.1,tcp:80'],
  ['add', 'ipp', '10.0.0.1,udp:53'],
  ['add', 'ipp', '10.0.0.2,80'],
  ['add', 'ipp', '10.0.0.5,tcp:80-82'],
  ['add', 'ipp', '10.0.0.7-10.0.0.8,53'],
  ['add', 'ipp', '10.0.0.1,sctp:80'],
  ['add', 'ipp', '10.0.0.1,icmp:ping'],
  ['add', 'ipp', '10.0.0.1,gre:0'],
  ['create', 'np', 'hash:net,port', 'initval', '0xedebd290'],
  ['add', 'np', '10.0.0.0/8,tcp:443'],
  ['add', 'np', '10.0.0.0/8,tcp:22-23'],
  ['add', 'np', '192.168.0.0/24,udp:53'],
  ['create', 'ni', 'hash:net,iface', 'initval', '0x9c42b7d3'],
  ['add', 'ni', '10.0.0.0/8,eth0'],
  ['add', 'ni', '10.0.0.0/8,physdev:eth1'],
  ['add', 'ni', '172.16.0.0/12,cni0'],
  ['create', 'bp', 'bitmap:port', 'range', '1024-2048'],
  ['add', 'bp', '1080'],
  ['add', 'bp', 'tcp:1090'],
  ['add', 'bp', '1100-1105'],
  ['create', 'ls', 'list:set'],
  ['add', 'ls', 'ips'],
  ['add', 'ls', 'nets'],
  ['add', 'ls', 'bp', 'before', 'nets'],
  ['create', 'big', 'hash:ip', 'hashsize', '64', 'initval', '0x12345678'],
  ['add', 'big', '10.0.0.0/25'],
  ['add', 'big', '10.0.1.0/26'],
  ['del', 'big', '10.0.0.7'],
  ['del', 'big', '10.0.0.9'],
  ['del', 'big', '10.0.0.0/28'],
  ['add', 'big', '10.0.2.0/29'],
  ['create', 'cnt', 'hash:ip', 'counters', 'hashsize', '64', 'initval', '1'],
  ['add', 'cnt', '10.0.0.1', 'packets', '5', 'bytes', '50'],
  ['add', 'cnt', '10.0.0.7'],
  ['del', 'cnt', '10.0.0.1'],
  ['add', 'cnt', '10.0.0.49'],
  ['create', 'nm', 'hash:ip', 'netmask', '24', 'initval', '5'],
  ['add', 'nm', '10.1.2.3'],
  ['add', 'nm', '10.1.2.200'],
  ['add', 'nm', '10.1.3.0/23'],
  ['test', 'nets', '10.1.2.3'],
  ['test', 'nets', '10.2.0.9'],
  ['test', 'nets', '10.1.0.0/16'],
  ['test', 'nets', '10.1.0.0/17'],
  ['test', 'np', '10.5.5.5,tcp:22'],
  ['test', 'np', '10.5.5.5,udp:22'],
  ['test', 'ls', 'ips'],
  ['test', 'ni', '10.1.1.1,eth0'],
  ['add', 'ips', '10.0.0.1'],
  ['add', 'ips', '10.0.0.1', '-exist'],
  ['del', 'ips', '10.9.9.9'],
  ['add', 'bp', '80'],
  ['add', 'ls', 'nope'],
  ['add', 'ls', 'ls'],
  ['destroy', 'ips'],
  ['rename', 'ips', 'zz'],
  ['swap', 'ips', 'nets'],
  ['create', 'x', 'hash:foo'],
  ['add', 'nets', '300.0.0.1'],
  ['add', 'nets', '10.0.0.0/33'],
  ['add', 'nets', '10.0.0.0/0'],
  ['add', 'ipp', '10.0.0.1'],
  ['add', 'ipp', '10.0.0.1,tcp:99999'],
  ['add', 'ipp', '10.0.0.1,foo:80'],
  ['add', 'ipp', '10.0.0.1,47:5'],
  ['create', 't7', 'bitmap:port'],
  ['add'],
  ['add', 'ips'],
  ['bogus'],
  ['create', 'ips', 'hash:ip'],
  ['create', 'ips', 'hash:ip', 'timeout', '0', 'counters', 'comment', '-exist'],
  ['add', 'nm', '1.1.1.1', 'timeout', '5'],
  ['add', 'nm', '1.1.1.1', 'packets', '5'],
  ['add', 'nm', '1.1.1.1', 'comment', 'x'],
  ['list'],
  ['save'],
  ['list', '-t', 'big'],
  ['list', '-n'],
  ['-o', 'save', 'list', 'cnt'],
  ['version'],
  ['flush', 'big'],
  ['list', 'big'],
  ['destroy', 'cnt'],
  ['create', 'after', 'hash:ip', 'initval', '7'],
  ['list', '-n'],
];

describe('differential: ipset', () => {
  it('restore, list and save of every type; -m set, SET and list:set over pings and UDP; references', async (ctx) => {
    const scenario = twoHosts('ipset')
      .command('b', ['ipset', 'restore'], SETS)
      .iptablesRestore('b', RULES)
      .ping('a', '10.0.0.2', { count: 3, interval: 0.2 })
      .udp({
        client: { ns: 'a', bind: '0.0.0.0', port: 41234 },
        server: { ns: 'b', bind: '0.0.0.0', port: 8000 },
        dst: '10.0.0.2',
        count: 2,
      })
      .udp({
        client: { ns: 'a', bind: '0.0.0.0', port: 41235 },
        server: { ns: 'b', bind: '0.0.0.0', port: 8001 },
        dst: '10.0.0.2',
        count: 1,
        timeoutMs: 300,
      })
      .observe('b', 'ipset', 'list')
      .observe('b', 'ipset', 'save')
      .observe('b', 'ipset', 'list', '-n')
      .observe('b', 'ipset', 'test', 'nets', '10.0.0.1')
      .observe('b', 'ipset', 'test', 'nets', '10.0.0.7')
      .observe('b', 'ipset', 'destroy', 'allowed')
      .observe('b', 'ipset', 'rename', 'services', 'svc')
      .observe('b', 'ipset', 'swap', 'nets', 'blocked')
      .observe('b', 'ipset', 'add', 'ports', '9001')
      .observe('b', 'ipset', 'add', 'allowed', '10.0.0.1')
      .observe('b', 'ipset', 'add', 'everything', 'everything')
      .observe('b', 'iptables', '-A', 'INPUT', '-m', 'set', '--match-set', 'missing', 'src', '-j', 'DROP')
      .observe('b', 'iptables-save', '-c', '-t', 'filter')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    const list = outputOf(result.linux, 'b: ipset list');
    // What the packets did: a's address joined `seen`, the pings counted in `services` and the list.
    expect(list).toMatch(/Name: seen[\s\S]*?Members:\n10\.0\.0\.1 timeout 0\n/);
    // Counted by three rules that test it (services twice, the list's member once per packet).
    expect(list).toContain('10.0.0.2,icmp:echo-request packets 6 bytes 504');
    expect(list).toContain('References: 2');
    expect(outputOf(result.linux, 'b: ipset destroy')).toBe(
      'ipset v7.17: Set cannot be destroyed: it is in use by a kernel component\n',
    );
    expect(outputOf(result.linux, 'b: iptables -A')).toContain("Set missing doesn't exist.");
    expect(outputOf(result.linux, 'b: iptables-save')).toContain(
      '[1:39] -A INPUT -m set --match-set blocked src,dst -j DROP',
    );
  });

  it('a session of commands: every type, ranges, buckets growing and shrinking, tests, errors', async (ctx) => {
    let builder = twoHosts('ipset-session');
    for (const argv of SESSION) builder = builder.observe('b', 'ipset', ...argv);
    const result = await differential(ctx, builder.build());
    if (result === undefined) return;
    expect(outputOf(result.linux, 'b: ipset create x hash:foo')).toBe(
      "ipset v7.17: Syntax error: typename 'hash:foo' is unknown\n",
    );
  });
});
