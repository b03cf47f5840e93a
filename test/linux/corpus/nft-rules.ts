// A corpus of nft rule lines, valid and invalid, generated from nft(8)'s grammar for the ip and inet families:
// payload matches (ip, tcp, udp, icmp, th), every meta and ct key, counters, numgen, jhash/symhash, limit, quota,
// log, reject, NAT, mark setting, verdicts and comments, with values in range, out of range and malformed, for
// comparing nft 1.0.6's accept/refuse decision, its message and its listing with packetlab's. No host names: nft
// resolves them with the system resolver, whose answer in a fresh namespace depends on the machine. No queue
// statements: this machine's kernel has no nft_queue module, so nft refuses them all (ENOENT).

import { product } from './combine.ts';

export interface NftCorpusRule {
  readonly family: 'ip' | 'inet';
  /** The chain of table `t` the rule goes to: `c` (regular), `pre`/`post` (nat prerouting/postrouting). */
  readonly chain: 'c' | 'pre' | 'post';
  /** The rule, after `nft add rule FAMILY t CHAIN`. */
  readonly rule: string;
}

const ADDRESSES = [
  '10.0.0.1',
  '10.0.0.0/8',
  '10.0.0.1-10.0.0.9',
  '{ 10.0.0.1, 10.0.0.2 }',
  '!= 10.0.0.1',
  '300.1.1.1',
  '10.0.0.0/33',
];
const PORTS = ['22', 'http', '1-1024', '{ 22, 80 }', '!= 22', '65536', '> 1023', 'nosuchservice'];
const BYTE_VALUES = ['64', '0-10', '!= 1', '256', '{ 1, 2 }', 'foo'];
const SHORT_VALUES = ['1000', '0-500', '> 1000', '70000', '{ 1, 2 }'];

function payloadMatches(): string[] {
  const out: string[] = [];
  for (const field of ['saddr', 'daddr']) for (const a of ADDRESSES) out.push(`ip ${field} ${a}`);
  for (const p of ['tcp', '6', '{ tcp, udp }', '!= udp', '300', 'foo', 'icmp', 'sctp', 'esp'])
    out.push(`ip protocol ${p}`);
  for (const field of ['length', 'id', 'frag-off', 'checksum'])
    for (const v of SHORT_VALUES) out.push(`ip ${field} ${v}`);
  for (const field of ['ttl', 'version', 'hdrlength'])
    for (const v of BYTE_VALUES) out.push(`ip ${field} ${v}`);
  for (const v of ['cs1', 'af41', 'ef', '0x2e', '64', '{ cs0, cs1 }', 'foo', '!= cs0'])
    out.push(`ip dscp ${v}`);
  for (const v of ['ce', 'ect0', 'not-ect', '3', '4', 'foo']) out.push(`ip ecn ${v}`);
  out.push(
    'ip frag-off & 0x1fff != 0',
    'ip frag-off & 0x2000 == 0x2000',
    'ip saddr & 255.255.0.0 == 10.1.0.0',
  );
  for (const proto of ['tcp', 'udp', 'th'])
    for (const field of ['sport', 'dport']) for (const p of PORTS) out.push(`${proto} ${field} ${p}`);
  for (const v of [
    'syn',
    'syn,ack',
    'syn / syn,ack',
    '! syn',
    '& (syn|ack) == syn',
    '& (syn|ack) == syn|ack',
    '== syn',
    '!= rst',
    'foo',
    '{ syn, ack }',
    'syn|ack',
    'cwr',
    'ecn',
  ])
    out.push(`tcp flags ${v}`);
  for (const field of ['sequence', 'ackseq', 'window', 'checksum', 'urgptr', 'doff'])
    for (const v of ['1', '0-100', '> 5', '{ 1, 2 }']) out.push(`tcp ${field} ${v}`);
  for (const field of ['length', 'checksum'])
    for (const v of ['8', '0-100', '70000']) out.push(`udp ${field} ${v}`);
  for (const v of [
    'echo-request',
    '8',
    '{ echo-request, echo-reply }',
    '!= echo-reply',
    'destination-unreachable',
    'time-exceeded',
    'parameter-problem',
    'router-advertisement',
    'foo',
    '256',
  ])
    out.push(`icmp type ${v}`);
  for (const v of ['3', 'port-unreachable', 'host-unreachable', 'frag-needed', '0-3', 'foo'])
    out.push(`icmp code ${v}`);
  for (const field of ['id', 'sequence', 'checksum', 'mtu', 'gateway'])
    for (const v of ['1', '0-100', '{ 1, 2 }']) out.push(`icmp ${field} ${v}`);
  out.push('ip protocol tcp tcp dport 22', 'ip protocol udp tcp dport 22', 'meta l4proto udp udp dport 53');
  out.push(
    'tcp dport 22 udp dport 53',
    'icmp type echo-request tcp dport 22',
    'tcp dport . ip saddr { 22 . 10.0.0.1 }',
  );
  out.push(
    'ip saddr . tcp dport { 10.0.0.1 . 22, 10.0.0.2 . 80 }',
    'ip daddr . ip protocol . th dport { 10.0.0.1 . tcp . 53 }',
  );
  out.push('ip foo 1', 'tcp foo 1', 'udp', 'ip', 'tcp dport', 'ip saddr 10.0.0.1 ip daddr 10.0.0.2');
  return out;
}

/** nft 1.0.6's meta keys (meta.c: meta_templates) and values of their types. */
const META_KEYS: readonly (readonly [string, readonly string[]])[] = [
  ['length', ['1000', '0-500', '> 1000', '{ 1, 2 }', 'foo']],
  ['protocol', ['ip', 'ip6', 'arp', 'vlan', '0x0800', 'foo']],
  ['nfproto', ['ipv4', 'ipv6', '{ ipv4, ipv6 }', 'foo']],
  ['l4proto', ['tcp', 'udp', '{ tcp, udp }', '!= icmp', '6', '256', 'foo']],
  ['priority', ['1:2', 'none', 'root', '0x10001', '1:ffff', 'foo']],
  [
    'mark',
    ['0x1', '1', '0x0/0xff', '!= 0x4000', '0x4000/16', '{ 0x1, 0x2 }', '0x1-0x10', 'foo', '0x100000000'],
  ],
  ['iif', ['"lo"', 'lo', '1', '"nosuchif"', '{ "lo" }']],
  [
    'iifname',
    ['"eth0"', 'eth0', '"veth*"', '{ "eth0", "eth1" }', '!= "lo"', '"averyveryverylongname"', '"eth\\*"'],
  ],
  ['iiftype', ['ether', 'loopback', 'ppp', '1', 'foo']],
  ['oif', ['"lo"', 'lo', '1', '"nosuchif"']],
  ['oifname', ['"eth0"', 'eth0', '"veth*"', '{ "eth0", "eth1" }', '!= "lo"']],
  ['oiftype', ['ether', 'loopback', 'foo']],
  ['skuid', ['0', 'root', '1000', '{ 0, 1000 }', '!= 0', '0-1000', 'nosuchuser']],
  ['skgid', ['0', 'root', '1000', '0-100', 'nosuchgroup']],
  ['nftrace', ['0', '1', '2']],
  ['rtclassid', ['1', 'foo', '0x10']],
  ['ibrname', ['"br0"', 'br0']],
  ['obrname', ['"br0"', 'br0']],
  ['pkttype', ['host', 'unicast', 'broadcast', 'multicast', 'other', '{ broadcast, multicast }', '5', 'foo']],
  ['cpu', ['0', '1', '0-3', '{ 0, 1 }', '!= 1', 'foo']],
  ['iifgroup', ['0', 'default', '1', 'foo']],
  ['oifgroup', ['0', 'default', '1', '{ 0, 1 }']],
  ['cgroup', ['1', '0x100001', '{ 1, 2 }']],
  ['random', ['1', '> 1000', '& 1 == 0']],
  ['ipsec', ['exists', 'missing', '1', '0']],
  ['iifkind', ['"veth"', 'veth', '"bridge"']],
  ['oifkind', ['"veth"', '"vxlan"']],
  ['time', ['"2026-01-01 00:00:00"', '"2026-01-01"', '< "2026-01-01 00:00:00"', '1700000000', 'foo']],
  ['day', ['"Monday"', 'Monday', '"Sunday"', '{ "Monday", "Friday" }', '1', '7', 'foo']],
  ['hour', ['"17:00"', '"17:00:30"', '"17:00"-"19:00"', '"25:00"', '17']],
  ['secmark', ['1', '0-10', '!= 0', '{ 1, 2 }', 'foo', '4294967296']],
  ['sdif', ['"lo"', '1']],
  ['sdifname', ['"vrf0"', 'vrf0']],
  ['broute', ['1', '0']],
  ['ibrpvid', ['1']],
  ['ibrvproto', ['vlan', '0x8100']],
  ['foo', ['1']],
];

function metaMatches(): string[] {
  const out: string[] = [];
  for (const [key, values] of META_KEYS) {
    for (const value of values) out.push(`meta ${key} ${value}`);
    out.push(`meta ${key}`);
  }
  // The unqualified keys (parser_bison.y: meta_key_unqualified).
  for (const key of [
    'mark',
    'iif',
    'iifname',
    'iiftype',
    'oif',
    'oifname',
    'oiftype',
    'skuid',
    'skgid',
    'nftrace',
  ])
    out.push(`${key} ${META_KEYS.find(([k]) => k === key)![1][0]}`);
  for (const key of ['rtclassid', 'ibrname', 'obrname', 'pkttype', 'cpu', 'iifgroup', 'oifgroup', 'cgroup'])
    out.push(`${key} ${META_KEYS.find(([k]) => k === key)![1][0]}`);
  for (const key of ['length', 'protocol', 'l4proto', 'random', 'day', 'hour', 'time']) out.push(`${key} 1`);
  // Setting meta keys (meta_stmt).
  for (const [key, values] of [
    [
      'mark',
      ['0x1', '1', 'mark or 0x4000', 'mark and 0xffff', 'ct mark', 'ct mark and 0xff', '0x100000000', 'foo'],
    ],
    ['priority', ['1:2', 'none', 'root', 'foo']],
    ['nftrace', ['1', '0', '2']],
    ['pkttype', ['host', 'broadcast', 'other', 'foo']],
    ['secmark', ['1']],
    ['iif', ['"lo"']],
    ['length', ['1']],
    ['l4proto', ['tcp']],
    ['skuid', ['0']],
    ['cpu', ['1']],
    ['random', ['1']],
  ] as const)
    for (const value of values) out.push(`meta ${key} set ${value}`);
  out.push(
    'mark set 0x1',
    'mark set mark xor 0x3',
    'nftrace set 1',
    'meta mark set meta mark or 0x10 and 0xff',
  );
  out.push('meta mark set numgen inc mod 2', 'meta mark set numgen random mod 4 offset 10');
  out.push('meta mark set jhash ip saddr mod 2', 'meta mark set symhash mod 2', 'meta mark set ip saddr');
  return out;
}

/** nft 1.0.6's ct keys (ct.c: ct_templates) and values. */
const CT_KEYS: readonly (readonly [string, readonly string[]])[] = [
  [
    'state',
    [
      'established',
      'established,related',
      'new',
      '{ new, invalid }',
      'invalid',
      'untracked',
      '! new',
      'foo',
      '!= established',
    ],
  ],
  ['direction', ['original', 'reply', '!= reply', 'foo', '0']],
  [
    'status',
    ['expected', 'seen-reply', 'assured', 'confirmed', 'snat', 'dnat', 'dying', 'dnat,snat', '! dnat', 'foo'],
  ],
  ['mark', ['0x1', '1', '!= 0', '0x0/0xff', '{ 1, 2 }', 'foo']],
  [
    'expiration',
    ['30s', '30', '1m30s', '1h', '> 10s', '1d2h3m4s5ms', '{ 10s, 20s }', '10s-20s', 'foo', '250ms'],
  ],
  ['helper', ['"ftp"', 'ftp', '"sip"']],
  ['l3proto', ['ipv4', 'ipv6', 'ip', 'foo']],
  ['protocol', ['tcp', 'udp', '6', 'foo']],
  ['bytes', ['> 1000', '1000', '0-100']],
  ['packets', ['> 10', '1']],
  ['avgpkt', ['> 100', '1']],
  ['zone', ['1', '0', '65536', '> 1']],
  ['id', ['1', '0x123']],
  ['label', ['0', '1', '127', '128', 'foo']],
  ['event', ['new']],
  ['foo', ['1']],
];

function ctMatches(): string[] {
  const out: string[] = [];
  for (const [key, values] of CT_KEYS) for (const value of values) out.push(`ct ${key} ${value}`);
  for (const dir of ['original', 'reply']) {
    for (const a of ['10.0.0.1', '10.0.0.0/8', '{ 10.0.0.1, 10.0.0.2 }'])
      out.push(`ct ${dir} saddr ${a}`, `ct ${dir} daddr ${a}`, `ct ${dir} ip saddr ${a}`);
    for (const p of ['22', 'http', '1-1024'])
      out.push(`ct ${dir} proto-src ${p}`, `ct ${dir} proto-dst ${p}`);
    out.push(`ct protocol tcp ct ${dir} proto-dst 22`, `ct ${dir} protocol tcp`, `ct ${dir} bytes > 10`);
    out.push(`ct ${dir} packets 1`, `ct ${dir} avgpkt 1`, `ct ${dir} zone 1`, `ct ${dir} l3proto ipv4`);
  }
  for (const count of ['over 10', '10', 'over 0', 'foo']) out.push(`ct count ${count}`);
  out.push('ct state new ct count over 2 drop', 'ct count over 10 counter drop');
  for (const [key, values] of [
    [
      'mark',
      [
        '0x1',
        'mark',
        'mark and 0xff',
        'ct mark or 0x2',
        'meta mark and 0xffff0000 or 0x1',
        'foo',
        'numgen inc mod 2',
      ],
    ],
    ['zone', ['1', 'mark', '65536']],
    ['event', ['new', 'new,related', 'destroy', 'foo', '0']],
    ['label', ['1', '127', '128']],
    ['helper', ['"ftp"']],
    ['expiration', ['30s']],
    ['direction', ['reply']],
    ['original zone', ['1']],
    ['reply zone', ['1']],
  ] as const)
    for (const value of values) out.push(`ct ${key} set ${value}`);
  out.push('ct', 'ct state', 'ct original', 'ct original saddr');
  return out;
}

function statements(): string[] {
  const out: string[] = [];
  for (const counter of [
    'counter',
    'counter packets 5 bytes 7',
    'counter packets 0 bytes 0',
    'counter packets 5',
    'counter bytes 7',
    'counter bytes 7 packets 5',
    'counter packets foo bytes 1',
    'counter packets 18446744073709551615 bytes 1',
    'counter name foo',
    'counter counter',
  ])
    out.push(counter, `tcp dport 22 ${counter} accept`);
  for (const mode of ['inc', 'random'])
    for (const tail of ['mod 2', 'mod 2 offset 10', 'mod 0', 'mod 2 offset 4294967295', 'mod 4294967296', ''])
      for (const cmp of ['0', '== 1', '{ 0, 1 }', '10-11'])
        if (tail !== '' || cmp === '0') out.push(`numgen ${mode} ${tail} ${cmp}`.replace(/\s+/g, ' '));
  out.push('numgen foo mod 2 1', 'numgen inc mod 2 vmap { 0 : accept, 1 : drop }');
  for (const hash of [
    'jhash ip saddr mod 2',
    'jhash ip saddr . tcp dport mod 4',
    'jhash ip saddr mod 2 seed 0xdeadbeef',
    'jhash ip saddr mod 2 seed 0x1 offset 100',
    'jhash ip saddr mod 2 offset 100',
    'jhash ip saddr . ip daddr . ip protocol mod 16',
    'jhash mod 2',
    'jhash ip saddr mod 0',
    'symhash mod 2',
    'symhash mod 2 offset 100',
    'symhash mod 0',
    'symhash ip saddr mod 2',
    'jhash meta mark mod 2',
  ])
    for (const cmp of ['0', '!= 1', '{ 0, 1 }']) out.push(`${hash} ${cmp}`);
  for (const rate of [
    '10/second',
    '10/minute',
    '10/hour',
    '10/day',
    '10/week',
    '1/second',
    '0/second',
    'over 10/second',
    '10/second burst 5 packets',
    '10/second burst 20 packets',
    'over 10/minute burst 1 packets',
    '10 bytes/second',
    '10 kbytes/second',
    '10 mbytes/second',
    '1 mbytes/second burst 10 kbytes',
    'over 100 kbytes/second burst 5 mbytes',
    '10 bytes/second burst 0 bytes',
    '10/second burst 0 packets',
    '10/foo',
    '10 gbytes/second',
    '10',
    '10 second',
    '4294967296/second',
  ])
    out.push(`limit rate ${rate}`, `limit rate ${rate} accept`);
  out.push('limit name foo', 'limit', 'limit rate');
  for (const quota of [
    '100 bytes',
    '10 kbytes',
    '10 mbytes',
    '1 gbytes',
    'over 100 bytes',
    'until 100 bytes',
    '10 mbytes used 1 mbytes',
    'over 10 mbytes used 5 kbytes',
    '100 bytes used 0 bytes',
    '100',
    '100 foo',
    'over 0 bytes',
    'used 5 bytes',
  ])
    out.push(`quota ${quota}`, `quota ${quota} drop`);
  out.push('quota name foo');
  for (const log of [
    'log',
    'log prefix "x: "',
    'log prefix x',
    'log level emerg',
    'log level alert',
    'log level crit',
    'log level err',
    'log level warn',
    'log level notice',
    'log level info',
    'log level debug',
    'log level audit',
    'log level foo',
    'log flags all',
    'log flags tcp sequence',
    'log flags tcp sequence,options',
    'log flags tcp options',
    'log flags ip options',
    'log flags skuid',
    'log flags ether',
    'log flags foo',
    'log flags tcp sequence,options flags ip options',
    'log group 1',
    'log group 1 snaplen 100',
    'log group 1 queue-threshold 10',
    'log group 1 prefix "x"',
    'log snaplen 100',
    'log prefix "x" level info flags all',
    'log level info prefix "y"',
    'log prefix "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789"',
  ])
    out.push(log, `tcp dport 22 ${log} accept`);
  for (const reject of [
    'reject',
    'reject with tcp reset',
    'reject with icmp port-unreachable',
    'reject with icmp type port-unreachable',
    'reject with icmp host-unreachable',
    'reject with icmp type host-prohibited',
    'reject with icmp net-unreachable',
    'reject with icmp prot-unreachable',
    'reject with icmp net-prohibited',
    'reject with icmp admin-prohibited',
    'reject with icmp 3',
    'reject with icmp type 10',
    'reject with icmp type foo',
    'reject with icmpx port-unreachable',
    'reject with icmpx type port-unreachable',
    'reject with icmpx admin-prohibited',
    'reject with icmpx no-route',
    'reject with icmpx host-unreachable',
    'reject with icmpv6 port-unreachable',
    'reject with icmpv6 type admin-prohibited',
    'reject with foo',
  ])
    for (const before of ['', 'tcp dport 22', 'udp dport 53', 'meta nfproto ipv4', 'ip protocol tcp'])
      out.push(`${before} ${reject}`.trim());
  for (const verdict of [
    'accept',
    'drop',
    'continue',
    'return',
    'jump c2',
    'goto c2',
    'jump nosuch',
    'goto nosuch',
    'jump',
    'accept drop',
    'drop accept',
    'accept counter',
  ])
    out.push(verdict, `ip saddr 10.0.0.1 ${verdict}`);
  for (const comment of [
    'comment "x"',
    'comment x',
    'comment ""',
    'comment "with space"',
    `comment "${'a'.repeat(128)}"`,
    `comment "${'a'.repeat(129)}"`,
    'comment "x" accept',
    'comment',
  ])
    out.push(`accept ${comment}`, `tcp dport 22 counter ${comment}`, comment);
  out.push('notrack', 'tcp dport 22 notrack', 'ct state new notrack');
  return out;
}

function natRules(): { chain: 'pre' | 'post'; rule: string }[] {
  const out: { chain: 'pre' | 'post'; rule: string }[] = [];
  for (const snat of [
    'snat to 10.0.0.1',
    'snat ip to 10.0.0.1',
    'snat to 10.0.0.1-10.0.0.5',
    'snat to 10.0.0.1:1024',
    'snat to 10.0.0.1:1024-2048',
    'snat to 10.0.0.1 random',
    'snat to 10.0.0.1 fully-random',
    'snat to 10.0.0.1 persistent',
    'snat to 10.0.0.1 random,persistent',
    'snat to 10.0.0.0/24',
    'snat to :1024',
    'snat to 10.0.0.1:70000',
    'masquerade',
    'masquerade random',
    'masquerade fully-random',
    'masquerade persistent',
    'masquerade to :1024-2048',
    'masquerade to :1024',
    'masquerade random,fully-random',
    'masquerade to 10.0.0.1',
  ])
    for (const before of ['', 'tcp dport 22', 'ip saddr 10.0.0.0/8 oifname "eth0"'])
      out.push({ chain: 'post', rule: `${before} ${snat}`.trim() });
  for (const dnat of [
    'dnat to 10.0.0.1',
    'dnat ip to 10.0.0.1',
    'dnat to 10.0.0.1:80',
    'dnat to 10.0.0.1:80-90',
    'dnat to 10.0.0.1-10.0.0.3:80',
    'dnat to :80',
    'dnat to 10.0.0.1 random',
    'dnat to 10.0.0.1 persistent',
    'redirect',
    'redirect to :8080',
    'redirect to 8080',
    'redirect to :8080-8090',
    'redirect random',
    'redirect to :8080 random',
    'redirect to 10.0.0.1',
    'dnat to ip saddr map { 10.0.0.1 : 10.0.0.2 }',
    'dnat to numgen inc mod 2 map { 0 : 10.0.0.1, 1 : 10.0.0.2 }',
  ])
    for (const before of ['', 'tcp dport 22', 'udp dport 53', 'iifname "eth0" ip daddr 1.2.3.4'])
      out.push({ chain: 'pre', rule: `${before} ${dnat}`.trim() });
  return out;
}

function combinations(): string[] {
  return [
    ...product(
      [
        'tcp dport 22',
        'ip saddr 10.0.0.0/8',
        'ct state established,related',
        'meta l4proto udp',
        'iifname "eth0"',
      ],
      [
        'counter',
        'limit rate 10/second',
        'quota 10 mbytes',
        'log prefix "p "',
        'meta mark set 0x1',
        'ct mark set 0x2',
      ],
      ['accept', 'drop', ''],
    ),
    ...product(
      [
        'meta mark 0x4000/0x4000',
        'ct mark and 0xff == 0x1',
        'meta skuid 0',
        'meta cpu 1',
        'ct expiration > 10s',
      ],
      ['counter packets 1 bytes 2', 'numgen inc mod 2 0', 'jhash ip saddr mod 2 1'],
      ['return', 'jump c2'],
    ),
  ];
}

/** fib, rt, socket and tproxy forms (flag combinations nft refuses, results, `exists`/`missing`, realms, next hops). */
function fibAndRtMatches(): string[] {
  return [
    'fib saddr . iif oif missing drop',
    'fib saddr . iif oif 0 drop',
    'fib daddr type local accept',
    'fib daddr . iif type local',
    'fib daddr . mark oif "lo"',
    'fib saddr oif missing',
    'fib saddr oif exists',
    'fib daddr oifname "lo"',
    'fib daddr oifname "eth*"',
    'fib saddr . mark . iif oif missing',
    'fib daddr type { local, broadcast }',
    'fib saddr . daddr oif missing',
    'fib iif oif missing',
    'fib daddr . iif . oif type local',
    'fib daddr type != local',
    'fib saddr . iif oif ne 0',
    'rt mtu 1400',
    'rt mtu > 1400',
    'rt mtu 70000',
    'rt nexthop 10.0.0.1',
    'rt ip nexthop 10.0.0.0/8',
    'rt ip nexthop != 10.0.0.1',
    'rt nexthop { 10.0.0.1 }',
    'rt classid 5',
    'rt classid 0',
    'rt classid cosmos',
    'rt classid foo',
    'rt classid { 0, 1 }',
    'rt ip nexthop 1.2.3.4 rt mtu 1500',
    'meta rtclassid 0',
    'socket transparent 1',
    'socket transparent 0 accept',
    'socket transparent 2',
    'socket mark 0x1',
    'socket wildcard 0',
    'socket transparent 1 meta mark set 1',
    'tproxy to :8080',
    'meta l4proto tcp tproxy to :8080',
    'tcp dport 80 tproxy to 10.0.0.1:8080',
    'tcp dport 80 tproxy ip to 10.0.0.1',
    'tcp dport 80 tproxy to 10.0.0.1',
    'udp dport 53 tproxy to :53 accept',
    'tcp dport 80 meta mark set 1 tproxy to :8080 accept',
    'meta nfproto ipv4 tcp dport 80 tproxy to 10.0.0.1',
  ];
}

/**
 * References to the named objects the corpus's tables hold (`counter cnt`, `quota q`, `limit lim`, nft-corpus.test.ts:
 * SETUP): found, missing, of the wrong type, quoted, combined.
 */
function objectReferences(): string[] {
  return [
    ...product(
      ['counter name', 'quota name', 'limit name'],
      ['cnt', '"cnt"', 'q', '"q"', 'lim', 'nope', ''],
      ['', 'accept', 'drop', 'counter'],
    ),
    'ip saddr 10.0.0.1 counter name cnt quota name q drop',
    'tcp dport 22 limit name lim counter name cnt accept',
    'counter name cnt counter name cnt',
    'quota name q comment "named"',
    'limit name "lim" log prefix "x "',
    // ct count (nft_connlimit).
    'ct count 2',
    'ct count over 2',
    'ct count 0',
    'ct count over 4294967295',
    'ct count 4294967296',
    'ct count over 2 drop',
    'tcp dport 22 ct count over 2 counter reject',
    'ct count',
    'ct count over',
    'ct count foo',
    'ct count -1',
    // ct helper: no connection has a helper in packetlab.
    'ct helper != "ftp" drop',
    'ct helper { "ftp", "tftp" }',
    'ct original helper "ftp"',
    'ct helper "ftp" counter accept',
    'ct helper "averyveryverylonghelpername"',
    'meta mark set meta secmark',
    'meta secmark . ip saddr { 1 . 1.1.1.1 }',
  ];
}

/** The corpus: every line in both families, the filter lines in regular chain `c`, NAT in the nat chains. */
export function nftCorpus(): NftCorpusRule[] {
  const filter = [
    ...payloadMatches(),
    ...metaMatches(),
    ...ctMatches(),
    ...statements(),
    ...combinations(),
    ...fibAndRtMatches(),
    ...objectReferences(),
  ];
  const out: NftCorpusRule[] = [];
  for (const family of ['ip', 'inet'] as const) {
    for (const rule of filter) out.push({ family, chain: 'c', rule });
    for (const { chain, rule } of natRules()) out.push({ family, chain, rule });
  }
  return out;
}
