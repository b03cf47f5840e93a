// A corpus of iptables rule specifications, valid and invalid, generated from the options of iptables 1.8.9's
// generic rule syntax and of each match and target module packetlab models (their man page forms, with values
// in range, out of range and malformed), for comparing the accept/refuse decision and the listings with the real tool.

import { product } from './combine.ts';

export interface CorpusRule {
  /** The table the rule goes to (its chain is the user chain `C` there). */
  readonly table: 'filter' | 'nat' | 'mangle' | 'raw';
  /** The words after `-A C`. */
  readonly words: readonly string[];
}

/** Splits a rule written as one line on blanks, keeping "double quoted" words whole (without the quotes). */
function words(line: string): string[] {
  const out: string[] = [];
  const pattern = /"([^"]*)"|(\S+)/g;
  for (let match = pattern.exec(line); match !== null; match = pattern.exec(line))
    out.push(match[1] ?? match[2]!);
  return out;
}

const ADDRESSES = [
  '10.0.0.1',
  '10.0.0.0/8',
  '10.0.0.0/255.0.0.0',
  '0.0.0.0/0',
  '10.1.2.3/32',
  '! 10.0.0.0/24',
  '300.1.1.1',
  '10.0.0.0/33',
  'a.b.c.d',
  '',
];
const IFACES = ['eth0', 'veth+', '! cni0', 'averyveryverylongname', 'eth0.100', '+'];
const PROTOCOLS = [
  'tcp',
  'udp',
  'icmp',
  'sctp',
  'all',
  '6',
  '17',
  '0',
  '! tcp',
  'gre',
  'esp',
  'foo',
  '256',
  'TCP',
];
const TARGETS = ['ACCEPT', 'DROP', 'RETURN', 'NOSUCH'];

const PORTS = [
  '80',
  '1:1024',
  ':1024',
  '1024:',
  'http',
  'ssh',
  '65535',
  '65536',
  '-1',
  'nosuchservice',
  '80:22',
  '! 443',
];
const TCP_FLAGS = ['SYN,ACK SYN', 'ALL NONE', 'FIN,RST FIN', 'ALL ALL', 'SYN FOO', '! SYN,ACK,FIN,RST SYN'];
const ICMP_TYPES = [
  'echo-request',
  '8',
  '8/0',
  '3/4',
  'destination-unreachable',
  'any',
  'nosuch',
  '300',
  '! echo-reply',
  'fragmentation-needed',
];
const MARKS = ['0x1', '0x4000/0x4000', '1/1', '0xffffffff', '0x100000000', 'x', '! 0x10', '0x10/0xff/0x1'];
const CT_STATES = [
  'NEW',
  'ESTABLISHED,RELATED',
  'INVALID',
  'UNTRACKED',
  'SNAT,DNAT',
  'NEW,FOO',
  '! NEW',
  'new',
];

function generic(): string[] {
  const rules: string[] = [];
  for (const addr of ADDRESSES) {
    if (addr === '') continue;
    rules.push(`-s ${addr}`, `-d ${addr}`);
  }
  for (const iface of IFACES) rules.push(`-i ${iface}`, `-o ${iface}`);
  for (const proto of PROTOCOLS) rules.push(`-p ${proto}`);
  for (const target of TARGETS) rules.push(`-j ${target}`, `-s 10.0.0.1 -j ${target}`);
  rules.push(
    '-f',
    '! -f',
    '-p tcp -f',
    '-s',
    '-j',
    '-m',
    '-p',
    '--nosuch',
    '-s 1.1.1.1 -s 2.2.2.2',
    '-p tcp -p udp',
  );
  rules.push(
    '-s 10.0.0.1 -d 10.0.0.2 -i eth0 -p tcp -j ACCEPT',
    '! -s 10.0.0.1 ! -d 10.0.0.2 ! -i lo ! -p udp',
  );
  rules.push(
    '-g C',
    '-j C',
    '-g NOSUCH',
    '-m comment --comment "a comment"',
    '-m comment --comment',
    '-m comment',
  );
  rules.push('-m comment --comment "kubernetes service portals" -j ACCEPT');
  return rules;
}

function tcpUdp(): string[] {
  const rules: string[] = [];
  for (const proto of ['tcp', 'udp']) {
    for (const port of PORTS) {
      rules.push(
        `-p ${proto} --dport ${port}`,
        `-p ${proto} --sport ${port}`,
        `-p ${proto} -m ${proto} --dport ${port}`,
      );
    }
    rules.push(
      `-m ${proto} --dport 80`,
      `-p ${proto} --dport 80 --dport 81`,
      `-p ${proto} --source-port 53 --destination-port 53`,
    );
  }
  for (const flags of TCP_FLAGS) rules.push(`-p tcp --tcp-flags ${flags}`);
  rules.push(
    '-p tcp --syn',
    '-p tcp ! --syn',
    '-p tcp --syn --tcp-flags SYN SYN',
    '-p tcp --tcp-option 2',
    '-p tcp --tcp-option 300',
    '-p udp --syn',
  );
  return rules;
}

function icmp(): string[] {
  const rules = ICMP_TYPES.map((type) => `-p icmp --icmp-type ${type}`);
  rules.push('-p icmp -m icmp --icmp-type 0', '-m icmp --icmp-type 8', '-p icmp --icmp-type');
  return rules;
}

function markAndConntrack(): string[] {
  const rules: string[] = [];
  for (const mark of MARKS) rules.push(`-m mark --mark ${mark}`, `-m connmark --mark ${mark}`);
  rules.push('-m mark', '-m mark --mark');
  for (const state of CT_STATES) rules.push(`-m conntrack --ctstate ${state}`, `-m state --state ${state}`);
  rules.push(
    '-m conntrack --ctstatus ASSURED',
    '-m conntrack --ctproto tcp',
    '-m conntrack --ctorigdst 10.0.0.1',
    '-m conntrack --ctorigdstport 80',
    '-m conntrack --ctdir ORIGINAL',
    '-m conntrack',
  );
  return rules;
}

function addrtypeStatisticMultiportRecent(): string[] {
  const rules: string[] = [];
  for (const type of [
    'LOCAL',
    'UNICAST',
    'BROADCAST',
    'MULTICAST',
    'BLACKHOLE',
    'UNREACHABLE',
    'local',
    'FOO',
  ])
    rules.push(`-m addrtype --dst-type ${type}`, `-m addrtype ! --src-type ${type}`);
  rules.push(
    '-m addrtype --dst-type LOCAL --limit-iface-in',
    '-m addrtype --dst-type LOCAL --limit-iface-out',
    '-m addrtype',
  );
  for (const p of ['0.5', '0.33333333349', '1', '0', '1.5', 'x', '0.00000000001'])
    rules.push(`-m statistic --mode random --probability ${p}`);
  for (const every of ['2', '3 --packet 1', '3 --packet 3', '0', 'x'])
    rules.push(`-m statistic --mode nth --every ${every}`);
  rules.push(
    '-m statistic --mode foo',
    '-m statistic',
    '-m statistic --mode random',
    '-m statistic --mode nth --packet 1',
  );
  for (const ports of ['80,443', '1:1024,8080', '80', '1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16', '80,', 'x'])
    rules.push(
      `-p tcp -m multiport --dports ${ports}`,
      `-p udp -m multiport --sports ${ports}`,
      `-p tcp -m multiport --ports ${ports}`,
    );
  rules.push(
    '-m multiport --dports 80',
    '-p tcp -m multiport ! --dports 80,443',
    '-p tcp -m multiport --dports 80 --sports 80',
  );
  for (const form of [
    '--set --name A',
    '--rcheck --seconds 60 --name A',
    '--update --seconds 60 --hitcount 3 --name A',
    '--remove --name A --rdest',
    '--set --rttl',
    '--rcheck --rttl --name A',
    '--set --rcheck',
    '--rcheck --reap',
    '--rcheck --seconds 10 --reap --name B --mask 255.255.255.0',
    '',
    '! --rcheck --name A',
  ])
    rules.push(`-m recent ${form}`);
  return rules;
}

function nativeMatches(): string[] {
  const rules: string[] = [];
  for (const length of ['100:200', '1500', '! 1500', ':100', '100:', '5:3', 'x', '70000', '1:2:3'])
    rules.push(`-m length --length ${length}`);
  rules.push('-m length');
  for (const type of [
    'unicast',
    'broadcast',
    'multicast',
    'host',
    'otherhost',
    'outgoing',
    'loopback',
    'BROADCAST',
    'foo',
  ])
    rules.push(`-m pkttype --pkt-type ${type}`, `-m pkttype ! --pkt-type ${type}`);
  rules.push('-m pkttype');
  for (const range of [
    '10.0.0.1-10.0.0.9',
    '10.0.0.9-10.0.0.1',
    '10.0.0.1',
    'x-y',
    '10.0.0.1-x',
    '10.0.0.0/24',
  ])
    rules.push(`-m iprange --src-range ${range}`, `-m iprange ! --dst-range ${range}`);
  rules.push('-m iprange', '-m iprange --src-range 1.1.1.1-1.1.1.2 ! --dst-range 10.0.0.1-10.0.0.9');
  for (const ttl of [
    '--ttl-eq 64',
    '--ttl-gt 5',
    '--ttl-lt 3',
    '! --ttl-eq 1',
    '! --ttl-gt 3',
    '--ttl-eq 300',
    '--ttl-eq x',
    '--ttl-eq 1 --ttl-gt 2',
    '',
  ])
    rules.push(`-m ttl ${ttl}`.trim());
  for (const dscp of [
    '--dscp 10',
    '--dscp 0x2e',
    '! --dscp 10',
    '--dscp 64',
    '--dscp x',
    '--dscp-class EF',
    '--dscp-class af21',
    '--dscp-class FOO',
    '',
  ])
    rules.push(`-m dscp ${dscp}`.trim());
  for (const mac of [
    '02:00:00:00:00:01',
    '02:AB:cd:00:00:01',
    '! 02:00:00:00:00:01',
    '02:00',
    '2:0:0:0:0:1',
    'zz:00:00:00:00:00',
  ])
    rules.push(`-m mac --mac-source ${mac}`);
  rules.push('-m mac');
  return rules;
}

function moreForms(): string[] {
  const rules: string[] = [];
  for (const comment of ['"with spaces"', '"quote\'inside"', 'x'.repeat(256), '""', '"a\\b"'])
    rules.push(`-m comment --comment ${comment}`);
  for (const addr of ['10.0.0.1/24', '10.0.0.0/0.0.0.255', '10.0.0.0/255.255.0.255', '1.2.3.4/0', '0/0'])
    rules.push(`-s ${addr}`, `-d ${addr} -j DROP`);
  for (const proto of ['icmp', 'udplite', 'sctp', 'dccp', 'ah', 'esp', 'igmp', 'ipv6-icmp', '255', '-1'])
    rules.push(`-p ${proto} -j ACCEPT`);
  rules.push('-p sctp --dport 80', '-p dccp --dport 80', '-p udplite --dport 80', '-p icmp --dport 80');
  rules.push(
    '-i eth0 -o eth1',
    '-i eth+ -o lo',
    '! -i eth0 ! -o eth1 -j DROP',
    '-o "bad name"',
    '-i a/b',
    '! -i "x y" -o c/d -j DROP',
  );
  rules.push('-m conntrack --ctstate NEW -m mark --mark 0x1 -j ACCEPT', '-m mark --mark 1 -m mark --mark 2');
  rules.push(
    '-p tcp -m tcp -m tcp --dport 80',
    '-p tcp --dport 80 -m tcp --sport 1024:',
    '-p tcp -m multiport --dports 1:2,3:4,5:6,7:8,9',
  );
  rules.push('-m addrtype --src-type LOCAL --dst-type UNICAST', '-m addrtype --dst-type LOCAL,BROADCAST');
  rules.push(
    '-m statistic --mode random --probability 0.25 -j DROP',
    '-m statistic --mode nth --every 4 --packet 3 -j ACCEPT',
  );
  rules.push(
    '-m recent --name ssh --set --rsource',
    '-m recent --name ssh --update --seconds 60 --hitcount 4 --rsource -j DROP',
  );
  return rules;
}

function targets(): { table: CorpusRule['table']; rule: string }[] {
  const out: { table: CorpusRule['table']; rule: string }[] = [];
  const filter = (rule: string) => out.push({ table: 'filter', rule });
  const nat = (rule: string) => out.push({ table: 'nat', rule });
  const mangle = (rule: string) => out.push({ table: 'mangle', rule });
  const raw = (rule: string) => out.push({ table: 'raw', rule });
  for (const reject of [
    '',
    '--reject-with icmp-port-unreachable',
    '--reject-with icmp-host-prohibited',
    '--reject-with tcp-reset',
    '--reject-with foo',
    '--reject-with icmp-net-unreachable',
  ])
    filter(`-j REJECT ${reject}`.trim());
  filter('-p tcp -j REJECT --reject-with tcp-reset');
  for (const mark of [
    '--set-xmark 0x4000/0x4000',
    '--set-mark 0x1',
    '--or-mark 0x4000',
    '--and-mark 0xffffbfff',
    '--xor-mark 0x1',
    '--set-mark 0x1/0xff',
    '',
    '--set-mark x',
  ])
    mangle(`-j MARK ${mark}`.trim());
  filter('-j MARK --set-xmark 0x4000/0x4000');
  for (const conn of [
    '--save-mark',
    '--restore-mark',
    '--set-mark 0x1',
    '--save-mark --mask 0xff',
    '--restore-mark --nfmask 0xff --ctmask 0xff',
    '',
  ])
    mangle(`-j CONNMARK ${conn}`.trim());
  for (const dnat of [
    '10.0.0.1',
    '10.0.0.1:80',
    '10.0.0.1-10.0.0.5',
    '10.0.0.1:80-90',
    ':80',
    '10.0.0.1:ssh',
    '300.0.0.1',
    '10.0.0.1:0',
    '',
  ])
    nat(`-p tcp -j DNAT --to-destination ${dnat}`.trim());
  nat('-j DNAT --to-destination 10.0.0.1:80');
  for (const snat of [
    '10.0.0.1',
    '10.0.0.1:1024-2048',
    '10.0.0.1 --random',
    '10.0.0.1 --random-fully',
    '10.0.0.1 --persistent',
  ])
    nat(`-p udp -j SNAT --to-source ${snat}`);
  for (const masq of [
    '',
    '--random',
    '--random-fully',
    '--to-ports 1024-2048',
    '-p tcp --to-ports 1024-2048',
    '--to-ports 0',
  ])
    nat(`-j MASQUERADE ${masq}`.trim());
  for (const redirect of [
    '-p tcp --to-ports 8080',
    '--to-ports 8080',
    '-p tcp --to-ports 8080-8090',
    '-p tcp',
  ])
    nat(`-j REDIRECT ${redirect}`.replace('-j REDIRECT -p tcp', '-p tcp -j REDIRECT'));
  for (const log of [
    '',
    '--log-prefix "x: "',
    '--log-level 7',
    '--log-level debug',
    '--log-level foo',
    '--log-tcp-sequence --log-uid',
    '--log-prefix "012345678901234567890123456789"',
  ])
    filter(`-j LOG ${log}`.trim());
  raw('-j TRACE');
  filter('-j TRACE');
  for (const ct of [
    '--notrack',
    '--zone 1',
    '',
    '--helper ftp',
    '--helper ftp --notrack',
    '--helper',
    '--helper ftp --helper sip',
  ])
    raw(`-j CT ${ct}`.trim());
  raw('-j NOTRACK');
  return out;
}

/** owner, socket, physdev, TPROXY, TCPMSS, CONNMARK's options and CT's zones (issue 12), in their chains' hooks. */
export function socketAndBridgeForms(): { table: CorpusRule['table']; rule: string }[] {
  const out: { table: CorpusRule['table']; rule: string }[] = [];
  const add = (table: CorpusRule['table'], rule: string) => out.push({ table, rule });
  for (const owner of [
    '--uid-owner 1337',
    '! --uid-owner 1337',
    '--uid-owner 1000-2000',
    '--uid-owner 1000:2000',
    '--uid-owner root',
    '--uid-owner 0x10',
    '--gid-owner 1337',
    '! --gid-owner 1337',
    '--gid-owner 10-20 --suppl-groups',
    '--socket-exists',
    '! --socket-exists',
    '--uid-owner 1 --gid-owner 2 --socket-exists',
    '! --uid-owner 1 ! --gid-owner 2',
    '',
    '--uid-owner nosuchuser',
    '--uid-owner 4294967295',
    '--uid-owner 20-10',
    '--uid-owner 1 --uid-owner 2',
    '--suppl-groups',
    '--uid-owner 1x',
  ])
    add('filter', `-m owner ${owner} -j ACCEPT`.replace('  ', ' '));
  add('nat', '-p tcp -m owner --uid-owner 1337 -j RETURN');
  add('mangle', '-m owner ! --uid-owner 1337 -j MARK --set-mark 0x1');
  for (const socket of [
    '',
    '--transparent',
    '--nowildcard',
    '--restore-skmark',
    '--transparent --nowildcard --restore-skmark',
    '! --transparent',
    '--transparent --transparent',
  ])
    add('mangle', `-m socket ${socket} -j ACCEPT`.replace('  ', ' '));
  for (const physdev of [
    '--physdev-in eth0',
    '--physdev-out eth0',
    '! --physdev-in veth+',
    '--physdev-is-in',
    '! --physdev-is-in',
    '--physdev-is-bridged',
    '! --physdev-is-bridged',
    '--physdev-is-out',
    '--physdev-in eth0 --physdev-out eth1 --physdev-is-in --physdev-is-out --physdev-is-bridged',
    '! --physdev-is-bridged ! --physdev-in eth0',
    '',
    '--physdev-in averyveryverylongname',
    '--physdev-in eth0 --physdev-in eth1',
  ])
    add('filter', `-m physdev ${physdev} -j ACCEPT`.replace('  ', ' '));
  for (const tproxy of [
    '-p tcp -j TPROXY --on-port 15001 --tproxy-mark 0x200/0xf00',
    '-p tcp -j TPROXY --on-port 15001 --on-ip 127.0.0.1 --tproxy-mark 0x1',
    '-p udp -j TPROXY --on-port 0',
    '-p tcp -j TPROXY --on-port 65536',
    '-p tcp -j TPROXY --on-port ssh',
    '-p tcp -j TPROXY --on-port 010',
    '-p tcp -j TPROXY --on-port -1',
    '-p tcp -j TPROXY --on-port 0x10',
    '-p tcp -j TPROXY --on-port 1 --on-ip localhost',
    '-p tcp -j TPROXY --on-port 1 --on-ip 300.1.1.1',
    '-p tcp -j TPROXY --on-port 1 --on-ip 1.2.3.4/24',
    '-p tcp -j TPROXY --on-port 1 --tproxy-mark foo',
    '-p tcp -j TPROXY --on-port 1 --tproxy-mark 0x1/0x2/0x3',
    '-p tcp -j TPROXY --on-port 1 --on-port 2',
    '-p tcp -j TPROXY',
    '-j TPROXY --on-port 1',
    '! -p tcp -j TPROXY --on-port 1',
    '-p icmp -j TPROXY --on-port 1',
  ])
    add('mangle', tproxy);
  add('filter', '-p tcp -j TPROXY --on-port 1');
  for (const mss of [
    '-p tcp --tcp-flags SYN,RST SYN -j TCPMSS --clamp-mss-to-pmtu',
    '-p tcp --syn -j TCPMSS --set-mss 1400',
    '-p tcp -j TCPMSS --set-mss 1400',
    '-j TCPMSS --set-mss 1400',
    '-p tcp --tcp-flags SYN,RST SYN -j TCPMSS',
    '-p tcp --tcp-flags SYN,RST SYN -j TCPMSS --set-mss 1400 --clamp-mss-to-pmtu',
    '-p tcp -j TCPMSS --set-mss 65536',
    '-p tcp -j TCPMSS --set-mss 65515',
    '-p tcp -j TCPMSS --set-mss 65516',
    '-p tcp -j TCPMSS --set-mss 0x100',
    '-p tcp -j TCPMSS --set-mss foo',
    '-p tcp -j TCPMSS --set-mss 1 --set-mss 2',
  ])
    add('mangle', mss);
  add('filter', '-p tcp --tcp-flags SYN,RST SYN -j TCPMSS --clamp-mss-to-pmtu');
  add('nat', '-p tcp -j TCPMSS --set-mss 1000');
  for (const conn of [
    '--set-xmark 0x1/0xff',
    '--and-mark 0xff',
    '--or-mark 0x200',
    '--xor-mark 0x3',
    '--save-mark --nfmask 0xf00 --ctmask 0xff0',
    '--restore-mark --nfmask 0xf00 --ctmask 0xff0',
    '--restore-mark --mask 0xf00',
    '--set-mark 0x1/0x2',
    '--save-mark --restore-mark',
    '--set-mark 1 --save-mark',
    '--save-mark --set-mark 1',
    '--nfmask 0xff',
    '--set-mark 1 --nfmask 0xff',
    '--set-xmark 1/2 --set-xmark 3',
    '--set-mark x',
  ])
    add('mangle', `-j CONNMARK ${conn}`);
  for (const ct of [
    '--zone 0',
    '--zone 65536',
    '--zone x',
    '--zone 1 --zone 2',
    '--notrack --notrack',
    '--zone-orig mark',
  ])
    add('raw', `-j CT ${ct}`);
  add('raw', '-j NOTRACK --zone 1');
  add('mangle', '-j CT --notrack');
  return out;
}

/** The corpus: a few hundred rules per family of options, each on its own in the user chain `C` of its table. */
export function iptablesCorpus(): CorpusRule[] {
  const filterRules = [
    ...generic(),
    ...tcpUdp(),
    ...icmp(),
    ...markAndConntrack(),
    ...addrtypeStatisticMultiportRecent(),
    ...nativeMatches(),
    ...moreForms(),
    ...product(
      ['-p tcp', '-p udp'],
      ['--dport 80', '-m multiport --dports 80,443'],
      ['-j ACCEPT', '-m comment --comment x -j DROP'],
    ),
  ];
  return [
    ...filterRules.map((rule) => ({ table: 'filter' as const, words: words(rule) })),
    ...targets().map(({ table, rule }) => ({ table, words: words(rule) })),
    ...socketAndBridgeForms().map(({ table, rule }) => ({ table, words: words(rule) })),
    ...iptBCorpus().map(({ table, rule }) => ({ table, words: words(rule) })),
  ];
}

// ---- ipt-b (issue 12): sctp, limit, hashlimit, connlimit, helper, rpfilter, u32, string, time, policy, ah, esp,
// ecn, tos matches; NFLOG, NFQUEUE, CHECKSUM, NETMAP, ECN, TOS, DSCP targets ----------------------------------

const SCTP_PORTS = ['80', '1:1024', ':1024', '1024:', 'http', '65536', 'nosuch', '! 443', '80:22'];
const RATES = [
  '3/min',
  '3/minute',
  '10/s',
  '10/second',
  '1/h',
  '1/hour',
  '5/d',
  '5/day',
  '100',
  '0/s',
  'x/s',
  '1000000/s',
  '10/sec',
  '10/mi',
];

/** The dccp match: ports (names, ranges, 16-bit wrap), packet types with INVALID, options, repeats, inversions. */
function dccpMatches(): string[] {
  const rules: string[] = [];
  for (const port of ['80', 'http', '1:1024', '5:1', ':5', '7:', '70000', 'foo', '-1'])
    rules.push(`-p dccp --dport ${port}`, `-p dccp ! --sport ${port} -j ACCEPT`);
  for (const types of [
    'REQUEST,RESPONSE',
    'DATA',
    'request',
    'INVALID',
    'INVALID,REQUEST',
    'REQUEST,RESPONSE,DATA,ACK,DATAACK,CLOSEREQ,CLOSE,RESET,SYNC,SYNCACK,INVALID',
    'FOO',
    '! DATA',
  ])
    rules.push(`-p dccp --dccp-types ${types}`, `-p dccp ! --dccp-types ${types}`);
  for (const option of ['2', '0', '255', '256', '0x10', 'x'])
    rules.push(`-p dccp --dccp-option ${option}`, `-p dccp ! --dccp-option ${option} -j DROP`);
  rules.push(
    '-p dccp --dport 80 --sport 90 --dccp-types INVALID',
    '-p dccp -m dccp --dport 80 --dccp-option 3',
    '-p dccp --dccp-types DATA --dccp-types ACK',
    '-p dccp --dport 1 --dport 2',
    '-p tcp --dccp-types REQUEST',
    '-p 33 --dport 80',
    '-m dccp --dport 80',
    '-p dccp -m dccp',
  );
  return rules;
}

function sctpMatches(): string[] {
  const rules: string[] = [];
  for (const port of SCTP_PORTS)
    rules.push(`-p sctp --sport ${port}`, `-p sctp -m sctp --dport ${port} -j ACCEPT`);
  rules.push('-p sctp --sport 80 --dport 90:100 -j ACCEPT', '-p sctp --source-port 5 --destination-port 6');
  for (const chunks of [
    'any DATA',
    'all INIT,INIT_ACK',
    'only SACK',
    'any DATA,INIT,INIT_ACK,SACK,HEARTBEAT,HEARTBEAT_ACK,ABORT,SHUTDOWN,SHUTDOWN_ACK,ERROR,COOKIE_ECHO,COOKIE_ACK,ECN_ECNE,ECN_CWR,SHUTDOWN_COMPLETE,ASCONF,ASCONF_ACK,FORWARD_TSN',
    'all DATA:Be',
    'any DATA:I',
    'any ABORT:T',
    'all SHUTDOWN_COMPLETE:t',
    'any FOO',
    'some DATA',
    'any',
    'all NONE',
    'all ALL',
    '! any DATA',
  ])
    rules.push(`-p sctp -m sctp --chunk-types ${chunks}`);
  rules.push(
    '-m sctp --dport 80',
    '-p tcp -m sctp --dport 80',
    '-p sctp -m sctp',
    '-p sctp -m sctp ! --sport 1 ! --dport 2',
  );
  return rules;
}

function rateMatches(): string[] {
  const rules: string[] = [];
  for (const rate of RATES) rules.push(`-m limit --limit ${rate}`);
  for (const burst of ['1', '5', '10000', '10001', '0', 'x', '-1'])
    rules.push(`-m limit --limit 10/s --limit-burst ${burst} -j ACCEPT`);
  rules.push(
    '-m limit',
    '-m limit ! --limit 1/s',
    '-m limit --limit-burst 3',
    '-m limit --limit 1/s --limit 2/s',
  );
  let name = 0;
  const hashlimit = (rest: string) => rules.push(`-m hashlimit --hashlimit-name h${name++} ${rest}`.trim());
  for (const rate of ['5/sec', '5/s', '1/min', '100/hour', '7/day', '100', '0/s', '2000000/s', 'x'])
    hashlimit(`--hashlimit-upto ${rate}`);
  for (const rate of ['5/sec', '1/min']) hashlimit(`--hashlimit-above ${rate} -j DROP`);
  for (const mode of [
    'srcip',
    'dstip',
    'srcport',
    'dstport',
    'srcip,dstport',
    'dstip,srcip',
    'srcip,srcport,dstip,dstport',
    'foo',
    '',
  ])
    hashlimit(`--hashlimit-upto 10/s --hashlimit-mode ${mode}`);
  for (const extra of [
    '--hashlimit-burst 10',
    '--hashlimit-burst 0',
    '--hashlimit-burst 100000',
    '--hashlimit-srcmask 24',
    '--hashlimit-dstmask 16 --hashlimit-mode dstip',
    '--hashlimit-srcmask 33',
    '--hashlimit-htable-size 1024',
    '--hashlimit-htable-max 2048',
    '--hashlimit-htable-expire 10000',
    '--hashlimit-htable-gcinterval 500',
    '--hashlimit-htable-size 16 --hashlimit-htable-max 32 --hashlimit-htable-expire 1000 --hashlimit-htable-gcinterval 100',
    '--hashlimit-mode srcip --hashlimit-srcmask 24 --hashlimit-burst 20',
  ])
    hashlimit(`--hashlimit-upto 10/s ${extra}`);
  hashlimit('');
  hashlimit('--hashlimit-upto 1/s --hashlimit-above 2/s');
  hashlimit('! --hashlimit-upto 1/s');
  hashlimit('--hashlimit 10/s');
  rules.push('-m hashlimit --hashlimit-upto 1/s');
  rules.push(`-m hashlimit --hashlimit-upto 1/s --hashlimit-name ${'n'.repeat(40)}`);
  rules.push(
    '-m hashlimit --hashlimit-above 5/sec --hashlimit-mode srcip,dstport --hashlimit-name kube -j DROP',
  );
  return rules;
}

function connlimitHelperPolicy(): string[] {
  const rules: string[] = [];
  for (const spec of [
    '--connlimit-above 3',
    '--connlimit-upto 3',
    '--connlimit-above 3 --connlimit-mask 24',
    '--connlimit-upto 10 --connlimit-mask 16 --connlimit-daddr',
    '--connlimit-above 1 --connlimit-saddr',
    '--connlimit-above 0',
    '--connlimit-above x',
    '--connlimit-mask 24',
    '--connlimit-above 3 --connlimit-mask 33',
    '--connlimit-above 3 --connlimit-upto 4',
    '! --connlimit-above 3',
    '--connlimit-above 3 --connlimit-saddr --connlimit-daddr',
    '',
  ])
    rules.push(`-p tcp -m connlimit ${spec}`.trim(), `-m connlimit ${spec} -j REJECT`.trim());
  for (const helper of ['ftp', 'sip', '"amanda"', 'x'.repeat(30), '""', 'ftp-2121'])
    rules.push(`-m helper --helper ${helper} -j ACCEPT`, `-m helper ! --helper ${helper}`);
  rules.push('-m helper');
  for (const policy of [
    '--dir in --pol none',
    '--dir out --pol none',
    '--dir in --pol ipsec',
    '--dir in ! --pol none',
    '--pol none',
    '--dir in',
    '--dir sideways --pol none',
    '--dir in --pol foo',
    '--dir out --pol ipsec --strict --reqid 1 --proto esp',
    '--dir in --pol ipsec --spi 0x10 --proto ah',
    '--dir in --pol ipsec --mode tunnel --tunnel-src 10.0.0.1 --tunnel-dst 10.0.0.2',
    '--dir in --pol ipsec --mode transport',
    '--dir in --pol ipsec --strict --reqid 1 --next --reqid 2',
    '--dir in --pol ipsec --proto udp',
    '--dir in --pol none --strict',
    '--dir in --pol ipsec ! --reqid 5',
  ])
    rules.push(`-m policy ${policy} -j ACCEPT`);
  return rules;
}

function payloadMatches(): string[] {
  const rules: string[] = [];
  for (const u32 of [
    '"0>>22&0x3C@0>>16=0x50"',
    '"0&0xFFFF=0x100:0xFFFF"',
    '"6&0xFF=1"',
    '"12=0x0a000001"',
    '"0>>22&0x3C@12>>26&0x3C@0=0x47455420"',
    '"6&0xFF=6 && 0>>22&0x3C@0>>16=80"',
    '"0=1,2,3"',
    '"0=1:5,7"',
    '"foo"',
    '"0="',
    '""',
    '"0x10&0xff=0x11"',
    '"4&0x3FFF=0x0"',
  ])
    rules.push(`-m u32 --u32 ${u32} -j ACCEPT`, `-m u32 ! --u32 ${u32}`);
  for (const algo of ['bm', 'kmp', 'foo', ''])
    rules.push(`-m string --algo ${algo} --string abc`.replace('--algo  ', ''));
  for (const spec of [
    '--string "GET /"',
    '--string "GET /" --from 10 --to 100',
    '--string x --from 100 --to 10',
    '--string x --to 65535',
    '--string x --to 65536',
    '--string x --from -1',
    '--hex-string "|47455420|"',
    '--hex-string "|47 45 54|20"',
    '--hex-string "abc|0d0a|"',
    '--hex-string "|4|"',
    '--hex-string "|zz|"',
    '--hex-string "|00|"',
    '--string "tab\there"',
    `--string ${'s'.repeat(128)}`,
    `--string ${'s'.repeat(129)}`,
    '--string x --icase',
    '! --string x',
    '--string ""',
    '',
  ])
    rules.push(`-m string --algo bm ${spec}`.trim());
  rules.push('-m string --string x');
  return rules;
}

function timeMatches(): string[] {
  const rules: string[] = [];
  for (const spec of [
    '--timestart 09:00 --timestop 17:00',
    '--timestart 09:00:30',
    '--timestop 23:59:59',
    '--timestart 24:00',
    '--timestart 9',
    '--timestart 22:00 --timestop 06:00',
    '--timestart 22:00 --timestop 06:00 --contiguous',
    '--weekdays Mon,Tue,Wed',
    '--weekdays 1,2,7',
    '--weekdays Sat,Sun --timestart 10:00',
    '--weekdays Foo',
    '! --weekdays Mon',
    '--monthdays 1,15,31',
    '--monthdays 32',
    '! --monthdays 1',
    '--datestart 2020-01-01',
    '--datestart 2020-01-01T10:00:00',
    '--datestart 2020-01-01T10:00',
    '--datestart 2020-13-01',
    '--datestop 2030-06-30T23:59:59',
    '--datestart 2020-01-01 --datestop 2021-01-01',
    '--datestart 1969-01-01',
    '--kerneltz',
    '--utc',
    '--localtz',
    '--timestart 08:00 --kerneltz',
    '--timestart 08:00 --localtz',
    '',
  ])
    rules.push(`-m time ${spec} -j ACCEPT`.trim());
  return rules;
}

function headerMatches(): string[] {
  const rules: string[] = [];
  for (const spi of ['100', '100:200', ':200', '200:', '! 5', '4294967295', '4294967296', 'x', '0x10'])
    rules.push(`-p ah -m ah --ahspi ${spi}`, `-p esp -m esp --espspi ${spi} -j ACCEPT`);
  rules.push(
    '-m ah --ahspi 1',
    '-m esp --espspi 1',
    '-p ah -m ah',
    '-p esp -m esp',
    '-p tcp -m esp --espspi 1',
  );
  for (const ecn of [
    '--ecn-tcp-cwr',
    '--ecn-tcp-ece',
    '--ecn-tcp-cwr --ecn-tcp-ece',
    '! --ecn-tcp-cwr',
    '--ecn-ip-ect 0',
    '--ecn-ip-ect 1',
    '--ecn-ip-ect 3',
    '--ecn-ip-ect 4',
    '! --ecn-ip-ect 2',
    '--ecn-tcp-ece --ecn-ip-ect 2',
    '',
  ])
    rules.push(`-p tcp -m ecn ${ecn}`.trim());
  rules.push('-m ecn --ecn-ip-ect 1', '-m ecn --ecn-tcp-cwr', '-p udp -m ecn --ecn-ip-ect 1');
  for (const tos of [
    '0x10',
    '0x10/0x3f',
    '16',
    'Minimize-Delay',
    'Maximize-Throughput',
    'Maximize-Reliability',
    'Minimize-Cost',
    'Normal-Service',
    '0x100',
    'foo',
    '! 0x08',
    '0x02/0x02',
  ])
    rules.push(`-m tos --tos ${tos} -j ACCEPT`);
  rules.push('-m tos');
  return rules;
}

function moreTargets(): { table: CorpusRule['table']; rule: string }[] {
  const out: { table: CorpusRule['table']; rule: string }[] = [];
  const filter = (rule: string) => out.push({ table: 'filter', rule });
  const nat = (rule: string) => out.push({ table: 'nat', rule });
  const mangle = (rule: string) => out.push({ table: 'mangle', rule });
  const raw = (rule: string) => out.push({ table: 'raw', rule });
  for (const nflog of [
    '',
    '--nflog-group 5',
    '--nflog-group 65535',
    '--nflog-group 65536',
    '--nflog-prefix hello',
    '--nflog-prefix "with space"',
    `--nflog-prefix ${'p'.repeat(64)}`,
    '--nflog-size 200',
    '--nflog-size 0',
    '--nflog-range 100',
    '--nflog-threshold 3',
    '--nflog-threshold 0',
    '--nflog-group 2 --nflog-prefix x --nflog-size 128 --nflog-threshold 10',
    '--nflog-group x',
  ])
    filter(`-j NFLOG ${nflog}`.trim());
  mangle('-j NFLOG --nflog-group 1');
  raw('-j NFLOG');
  for (const queue of [
    '',
    '--queue-num 3',
    '--queue-num 65535',
    '--queue-num 65536',
    '--queue-bypass',
    '--queue-num 3 --queue-bypass',
    '--queue-balance 1:4',
    '--queue-balance 4:1',
    '--queue-balance 1:4 --queue-cpu-fanout',
    '--queue-balance 0:3 --queue-bypass --queue-cpu-fanout',
    '--queue-num 1 --queue-balance 1:2',
    '--queue-num x',
    '--fail-open',
  ])
    filter(`-j NFQUEUE ${queue}`.trim());
  mangle('-j NFQUEUE --queue-num 7');
  for (const rule of ['-p udp -j CHECKSUM --checksum-fill', '-j CHECKSUM', '-j CHECKSUM --checksum-fill'])
    mangle(rule);
  filter('-j CHECKSUM --checksum-fill');
  for (const to of ['10.0.0.0/24', '10.0.0.0/8', '192.168.1.5', '10.0.0.0/255.255.0.0', '300.0.0.0/8', ''])
    nat(`-j NETMAP --to ${to}`.trim());
  nat('-j NETMAP');
  filter('-j NETMAP --to 10.0.0.0/24');
  for (const ecn of ['--ecn-tcp-remove', '', '--ecn-tcp-cwr', '--ecn-tcp-ece', '--ecn-ip-ect 1'])
    mangle(`-p tcp -j ECN ${ecn}`.trim());
  mangle('-j ECN --ecn-tcp-remove');
  filter('-p tcp -j ECN --ecn-tcp-remove');
  for (const tos of [
    '--set-tos 0x10',
    '--set-tos 0x10/0x3f',
    '--set-tos Minimize-Delay',
    '--and-tos 0x3',
    '--or-tos 0x4',
    '--xor-tos 0x1',
    '--set-tos 0x100',
    '--set-tos foo',
    '',
  ])
    mangle(`-j TOS ${tos}`.trim());
  filter('-j TOS --set-tos 0x10');
  for (const dscp of [
    '--set-dscp 10',
    '--set-dscp 0x3f',
    '--set-dscp 64',
    '--set-dscp x',
    '--set-dscp-class AF41',
    '--set-dscp-class ef',
    '--set-dscp-class CS0',
    '--set-dscp-class BE',
    '--set-dscp-class foo',
    '--set-dscp 1 --set-dscp-class EF',
    '',
  ])
    mangle(`-j DSCP ${dscp}`.trim());
  filter('-j DSCP --set-dscp 1');
  return out;
}

function rpfilterMatches(): { table: CorpusRule['table']; rule: string }[] {
  const out: { table: CorpusRule['table']; rule: string }[] = [];
  for (const spec of [
    '',
    '--loose',
    '--validmark',
    '--accept-local',
    '--invert',
    '--loose --validmark --accept-local --invert',
    '--loose --invert',
  ]) {
    out.push({ table: 'raw', rule: `-m rpfilter ${spec} -j DROP`.trim() });
    out.push({ table: 'mangle', rule: `-m rpfilter ${spec}`.trim() });
  }
  out.push({ table: 'filter', rule: '-m rpfilter' });
  out.push({ table: 'nat', rule: '-m rpfilter' });
  return out;
}

/** Combinations of the ipt-b extensions with the generic options and with each other. */
function iptBCombinations(): { table: CorpusRule['table']; rule: string }[] {
  const out: { table: CorpusRule['table']; rule: string }[] = [];
  const filter = (rule: string) => out.push({ table: 'filter', rule });
  const mangle = (rule: string) => out.push({ table: 'mangle', rule });
  const raw = (rule: string) => out.push({ table: 'raw', rule });
  const nat = (rule: string) => out.push({ table: 'nat', rule });
  const prefixes = ['', '-p tcp', '-p udp --dport 53', '-s 10.0.0.0/8', '-i eth0', '! -d 192.168.0.1'];
  for (const rule of product(
    prefixes,
    [
      '-m limit --limit 5/s',
      '-m limit --limit 2/min --limit-burst 1',
      '-m helper --helper ftp',
      '-m policy --dir in --pol none',
    ],
    ['-j ACCEPT', '-j NFLOG --nflog-group 2', '-j NFQUEUE --queue-num 4 --queue-bypass'],
  ))
    filter(rule);
  for (const rate of [
    '1/s',
    '7/sec',
    '30/m',
    '2/minute',
    '5/h',
    '1/day',
    '100',
    '10000/s',
    '10001/s',
    '3/x',
    '/s',
    '5/',
  ])
    for (const burst of ['', '--limit-burst 1', '--limit-burst 100'])
      filter(`-m limit --limit ${rate} ${burst}`.trim());
  let name = 100;
  for (const kind of ['upto', 'above'])
    for (const rate of ['1/s', '20/min', '3/hour'])
      for (const mode of ['', 'srcip', 'dstip,dstport', 'srcip,srcport'])
        for (const extra of ['', '--hashlimit-burst 3', '--hashlimit-srcmask 16 --hashlimit-dstmask 24'])
          filter(
            `-p tcp -m hashlimit --hashlimit-${kind} ${rate} ${mode === '' ? '' : `--hashlimit-mode ${mode}`} ${extra} --hashlimit-name c${name++}`.replace(
              / +/g,
              ' ',
            ),
          );
  for (const spec of [
    '--connlimit-above 10',
    '--connlimit-upto 2 --connlimit-mask 24',
    '--connlimit-above 5 --connlimit-daddr',
  ])
    for (const proto of ['-p tcp --syn', '-p udp', '-p tcp --dport 22'])
      filter(`${proto} -m connlimit ${spec} -j REJECT --reject-with tcp-reset`);
  for (const u32 of [
    '0>>22&0x3C@4>>16=0x1000',
    '0>>22&0x3C@12>>26&0x3C@0=0x50',
    '0 & 0x0000FFFF = 0x0000FFFF',
    '3&0x20>>5=1',
    '0<<1=2',
    '0>>22&0x3C@0>>16=53:54,80',
    '0=0xffffffff',
    '0=0x100000000',
    '0&0xFF',
    '0@',
    '0=1&&',
    '=1',
  ])
    filter(`-m u32 --u32 "${u32}"`);
  for (const algo of ['bm', 'kmp'])
    for (const pattern of [
      '--string HTTP',
      '--string "Host: example"',
      '--hex-string "|0d0a0d0a|"',
      '--hex-string "a|20|b"',
      '! --string x',
    ])
      for (const range of ['', '--from 20', '--to 1500', '--from 40 --to 60 --icase'])
        filter(`-p tcp --dport 80 -m string --algo ${algo} ${pattern} ${range}`.trim());
  for (const day of [
    'Mon',
    'Tue',
    'Wed',
    'Thu',
    'Fri',
    'Sat',
    'Sun',
    'Mo',
    'Tu',
    'Su',
    'Monday',
    '1',
    '7',
    '0',
  ])
    filter(`-m time --weekdays ${day}`);
  for (const window of [
    '00:00 --timestop 00:01',
    '08:00:00 --timestop 18:30',
    '23:59:59 --timestop 00:00:00',
    '12:00 --timestop 12:00',
  ])
    for (const tz of ['', '--kerneltz', '--utc']) filter(`-m time --timestart ${window} ${tz}`.trim());
  for (const date of [
    '2000',
    '2000-02',
    '2000-02-29',
    '2000-02-29T23',
    '2000-02-29T23:59',
    '1970-01-01',
    '2038-01-19T03:14:07',
    '2100-01-01',
    '20000',
    'x',
  ])
    filter(`-m time --datestart ${date}`);
  for (const days of ['1', '2', '3', '21', '22', '23', '28,29,30', '1,32'])
    filter(`-m time --monthdays ${days}`);
  for (const policy of [
    '--dir out --pol ipsec --proto esp',
    '--dir in --pol ipsec --mode tunnel',
    '--dir in --pol ipsec --tunnel-src 10.0.0.0/8',
    '--dir in --pol ipsec --reqid 0x10',
    '--dir in --pol ipsec --spi 7 --next --spi 8 --next --spi 9',
  ])
    filter(`-m policy ${policy}`);
  for (const tos of [
    '0x00',
    '0x08/0x08',
    '0xff',
    '0xff/0xff',
    '4/0x3f',
    'minimize-delay',
    'MINIMIZE-COST',
    '0x1e/0x1e',
  ])
    filter(`-p udp -m tos ! --tos ${tos}`);
  for (const ecn of [
    '--ecn-ip-ect 2',
    '! --ecn-ip-ect 3',
    '--ecn-tcp-ece ! --ecn-tcp-cwr',
    '! --ecn-tcp-ece --ecn-ip-ect 1',
  ])
    for (const proto of ['-p tcp', '! -p tcp', '-p 6']) filter(`${proto} -m ecn ${ecn}`);
  for (const spi of ['0', '1:1', '5:4', '0:4294967295', '1:2:3', '-1'])
    for (const match of ['-p ah -m ah --ahspi', '-p esp -m esp --espspi', '-p 50 -m esp --espspi'])
      filter(`${match} ${spi}`);
  for (const port of ['0', '1', '65535', '100:200', '! 7', '0:0'])
    for (const side of ['--sport', '--dport']) filter(`-p sctp ${side} ${port} -j DROP`);
  for (const chunks of [
    'all INIT_ACK,COOKIE_ECHO',
    'only DATA,SACK',
    'any HEARTBEAT',
    'all ABORT:T',
    'all DATA:IUBE',
    'all DATA:iube',
    'any DATA:X',
    'all INIT:T',
  ])
    filter(`-p sctp -m sctp --dport 5060 --chunk-types ${chunks}`);
  for (const spec of ['', '--loose', '--validmark --invert', '--accept-local'])
    for (const target of ['-j DROP', '-j ACCEPT', '-j MARK --set-mark 1'])
      raw(`-i eth0 -m rpfilter ${spec} ${target}`.replace(/ +/g, ' '));
  for (const queue of [
    '--queue-num 0',
    '--queue-num 100 --queue-bypass',
    '--queue-balance 0:0',
    '--queue-balance 2:9 --queue-cpu-fanout',
    '--queue-balance 1',
    '--queue-bypass --queue-num 5',
  ])
    for (const prefix of ['-p tcp --dport 443', '-s 10.1.0.0/16']) filter(`${prefix} -j NFQUEUE ${queue}`);
  for (const nflog of [
    '--nflog-group 1 --nflog-prefix "kube drop"',
    '--nflog-prefix a --nflog-prefix b',
    '--nflog-size 65535',
    '--nflog-threshold 65535',
    '--nflog-threshold 65536',
    '--nflog-size -1',
  ])
    for (const prefix of ['-p icmp', '-m conntrack --ctstate INVALID']) filter(`${prefix} -j NFLOG ${nflog}`);
  for (const rule of [
    '-p tcp -j TOS --set-tos Maximize-Throughput',
    '-p tcp -j TOS --set-tos 0x08/0x08',
    '-j TOS --and-tos 0xff',
    '-j TOS --or-tos 0',
    '-j TOS --xor-tos 0xff',
    '-j TOS --set-tos 0x10 --and-tos 3',
    '-p udp --dport 53 -j DSCP --set-dscp-class CS6',
    '-j DSCP --set-dscp-class af11',
    '-j DSCP --set-dscp 0',
    '-j DSCP --set-dscp 0x40',
    '-p tcp -j ECN --ecn-tcp-cwr 1',
    '-p tcp -j ECN --ecn-tcp-ece 0 --ecn-ip-ect 2',
    '-p tcp -j ECN --ecn-tcp-cwr 2',
    '-j ECN --ecn-ip-ect 3',
    '-p udp --dport 68 -j CHECKSUM --checksum-fill',
  ])
    mangle(rule);
  for (const to of [
    '10.0.0.1:80-90/100',
    '10.0.0.1:1000-2000/3000',
    '10.0.0.1:http-https',
    '10.0.0.1:80/100',
    '10.0.0.1:90-80',
    '10.0.0.1:80:90',
    '10.0.0.1:80-90x',
    '10.0.0.1:80-http',
    '10.0.0.1:ssh-90',
    '10.0.0.1:80-90/0',
    '10.0.0.1:80-90/ssh',
    '10.0.0.1:80-90/x',
    '10.0.0.1:80-90/65536',
    '10.0.0.1:65536',
    '10.0.0.1:x',
    '10.0.0.1:',
    '10.0.0.1:0x50',
    ':80-90/100',
    '10.0.0.1:domain',
  ])
    nat(`-p tcp -j DNAT --to-destination ${to}`);
  nat('-j DNAT --to-destination 10.0.0.1:80-90/100');
  nat('-p udp -j SNAT --to-source 10.0.0.1:1000-2000/5000');
  for (const ports of ['http', '80-90/100', '90-80', 'x', '80:90', '80-90x', '65536', 'ssh'])
    for (const target of ['REDIRECT', 'MASQUERADE']) nat(`-p tcp -j ${target} --to-ports ${ports}`);
  // Each match with the generic options and targets around it, in the filter and mangle tables.
  let table = 0;
  for (const rule of product(
    ['-p tcp --dport 443', '-s 10.244.0.0/16 ! -o cni0', '-p udp -m conntrack --ctstate NEW'],
    [
      '-m sctp --dport 1',
      '-m hashlimit --hashlimit-upto 50/sec --hashlimit-mode srcip --hashlimit-name NAME',
      '-m connlimit --connlimit-above 100',
      '-m u32 --u32 "0>>22&0x3C@8=0"',
      '-m string --algo bm --string kube',
      '-m time --timestart 01:00 --timestop 02:00 --weekdays Sat',
      '-m policy --dir out --pol none',
      '-m tos --tos 0x04',
      '-m ecn --ecn-ip-ect 3',
      '-m helper --helper tftp',
      '-m limit --limit 100/s --limit-burst 200',
      '-m esp --espspi 1',
    ],
    ['-j ACCEPT', '-j DROP', '-j NFLOG --nflog-prefix x', '-j NFQUEUE --queue-bypass', '-j RETURN'],
  )) {
    const named = rule.replace('NAME', `p${table++}`);
    if (table % 2 === 0) filter(named);
    else mangle(named);
  }
  // The targets with the generic options: mangle, raw (where the header targets are refused) and nat.
  for (const rule of product(
    [
      '-p tcp',
      '-p udp --sport 53',
      '-d 10.96.0.10',
      '-i eth0 -o eth1',
      '! -s 10.0.0.0/8',
      '-p icmp --icmp-type 8',
    ],
    [
      '-j TOS --set-tos 0x08',
      '-j TOS --xor-tos 0x02',
      '-j DSCP --set-dscp 46',
      '-j DSCP --set-dscp-class AF21',
      '-j ECN --ecn-tcp-remove',
      '-j ECN --ecn-ip-ect 0',
      '-j CHECKSUM --checksum-fill',
      '-j NFLOG --nflog-group 7 --nflog-threshold 2',
      '-j NFQUEUE --queue-balance 3:5 --queue-bypass',
      '-m rpfilter --loose -j DROP',
    ],
  )) {
    mangle(rule);
    raw(rule);
  }
  for (const rule of product(
    ['-p tcp', '-d 10.96.0.0/12', '-o eth0', '-i eth0'],
    [
      '-j NETMAP --to 10.1.0.0/16',
      '-j DNAT --to-destination 10.0.0.9:8000-8099/9000',
      '-j SNAT --to-source 10.0.0.9:2000-3000/2000',
    ],
  ))
    nat(rule);
  for (const rule of [
    '-d 10.0.0.0/24 -j NETMAP --to 192.168.0.0/24',
    '-s 10.0.0.0/16 -j NETMAP --to 172.16.0.0/16',
    '-j NETMAP --to 0.0.0.0/0',
    '-j NETMAP --to 10.0.0.1/255.255.255.255',
    '-p tcp -j NETMAP --to 10.0.0.0/30',
  ])
    nat(rule);
  return out;
}

/** ipt-b's block of the corpus. */
export function iptBCorpus(): { table: CorpusRule['table']; rule: string }[] {
  return [
    ...[
      ...sctpMatches(),
      ...dccpMatches(),
      ...rateMatches(),
      ...connlimitHelperPolicy(),
      ...payloadMatches(),
      ...timeMatches(),
      ...headerMatches(),
    ].map((rule) => ({ table: 'filter' as const, rule })),
    ...rpfilterMatches(),
    ...moreTargets(),
    ...iptBCombinations(),
  ];
}
