// A corpus of iptables rule specifications, valid and invalid, generated from the options of iptables 1.8.9's
// generic rule syntax and of each match and target module packetlab models (their man page forms, with values
// in range, out of range and malformed), for comparing the accept/refuse decision and the listings with the real tool.

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

/** Every combination of one value from each list, joined by spaces. */
function product(...lists: readonly (readonly string[])[]): string[] {
  return lists.reduce<string[]>(
    (acc, list) => acc.flatMap((prefix) => list.map((item) => `${prefix} ${item}`.trim())),
    [''],
  );
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
  rules.push('-i eth0 -o eth1', '-i eth+ -o lo', '! -i eth0 ! -o eth1 -j DROP', '-o "bad name"');
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
  for (const ct of ['--notrack', '--zone 1', '', '--helper ftp']) raw(`-j CT ${ct}`.trim());
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
  ];
}
