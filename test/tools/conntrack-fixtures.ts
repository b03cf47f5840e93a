// Output of the real conntrack-tools 1.4.7 and procps-ng 4.0.2 sysctl, recorded on Linux 6.18 (HZ 250, 2 cpus) in
// throw-away namespaces: plabctl-a (10.0.0.1, veth ctva) and plabctl-b (10.0.0.2, veth ctvb, a UDP echo server on
// 5353), with ENTRY_RULES loaded in plabctl-a; the sysctl cases in a fresh namespace, applied in order.

/** One command as the real tool answered it. */
export interface RealRun {
  readonly cmd: string;
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
}

/** `conntrack` with no command: the usage text on stdout, exit 0. */
export const USAGE =
  "Command line interface for the connection tracking system. Version 1.4.7\nUsage: conntrack [commands] [options]\n\nCommands:\n  -L [table] [options]\t\tList conntrack or expectation table\n  -G [table] parameters\t\tGet conntrack or expectation\n  -D [table] parameters\t\tDelete conntrack or expectation\n  -I [table] parameters\t\tCreate a conntrack or expectation\n  -U [table] parameters\t\tUpdate a conntrack\n  -E [table] [options]\t\tShow events\n  -F [table]\t\t\tFlush table\n  -C [table]\t\t\tShow counter\n  -S\t\t\t\tShow statistics\n\nTables: conntrack, expect, dying, unconfirmed\n\nConntrack parameters and options:\n  -n, --src-nat ip\t\t\tsource NAT ip\n  -g, --dst-nat ip\t\t\tdestination NAT ip\n  -j, --any-nat ip\t\t\tsource or destination NAT ip\n  -m, --mark mark\t\t\tSet mark\n  -c, --secmark secmark\t\t\tSet selinux secmark\n  -e, --event-mask eventmask\t\tEvent mask, eg. NEW,DESTROY\n  -z, --zero \t\t\t\tZero counters while listing\n  -o, --output type[,...]\t\tOutput format, eg. xml\n  -l, --label label[,...]\t\tconntrack labels\n\nExpectation parameters and options:\n  --tuple-src ip\tSource address in expect tuple\n  --tuple-dst ip\tDestination address in expect tuple\n\nUpdating parameters and options:\n  --label-add label\tAdd label\n  --label-del label\tDelete label\n\nCommon parameters and options:\n  -s, --src, --orig-src ip\t\tSource address from original direction\n  -d, --dst, --orig-dst ip\t\tDestination address from original direction\n  -r, --reply-src ip\t\tSource addres from reply direction\n  -q, --reply-dst ip\t\tDestination address from reply direction\n  -p, --protonum proto\t\tLayer 4 Protocol, eg. 'tcp'\n  -f, --family proto\t\tLayer 3 Protocol, eg. 'ipv6'\n  -t, --timeout timeout\t\tSet timeout\n  -u, --status status\t\tSet status, eg. ASSURED\n  -w, --zone value\t\tSet conntrack zone\n  --orig-zone value\t\tSet zone for original direction\n  --reply-zone value\t\tSet zone for reply direction\n  -b, --buffer-size\t\tNetlink socket buffer size\n  --mask-src ip\t\t\tSource mask address\n  --mask-dst ip\t\t\tDestination mask address\n\n";

/**
 * Command lines against an empty table, in order (-S left out: the machine had two cpus and printed a
 * line each; packetlab prints one). `--id` without `=N` makes 1.4.7 crash (SIGSEGV), also left out.
 */
export const COMMAND_LINES: readonly RealRun[] = [
  {
    cmd: 'conntrack -L',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -p foo',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): `foo' unsupported protocol\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -X',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): unknown option `-X'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  { cmd: 'conntrack', stdout: USAGE, stderr: '', exitCode: 0 },
  { cmd: 'conntrack -C', stdout: '0\n', stderr: '', exitCode: 0 },
  {
    cmd: 'conntrack -L -p tcp',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -o bogus',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Bad parameter `bogus'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -p 300',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): `300' unsupported protocol\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -p ospf',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -s 10.0.0.0/33',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Invalid netmask\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -r 10.0.0.0/24',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): CIDR notation unavailable for `--reply-src'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -s foo',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Invalid IP address `foo'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L --sport 41000',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): unknown option `--sport'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -p udp --sport abc',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -p tcp --state established',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): unknown TCP state `established'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L --state ESTABLISHED',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): unknown option `--state'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -p udp --state ESTABLISHED',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): unknown option `--state'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -p tcp --dport',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): option `--dport' requires an argument\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -s',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): option `-s' requires an argument\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -p',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): option `-p' requires an argument\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack --s 1.2.3.4 -L',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): unknown option `--s'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack --or 1.2.3.4 -L',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): unknown option `--or'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -Lpudp',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L --protonum=udp',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack --dump -p icmp',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L conntrack -p icmp',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L conn -p icmp',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L expect',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 expectations have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L foo',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): unknown type `foo'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L dying',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L unconfirmed',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -D',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Invalid commands combination\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -C -L',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Invalid commands combination\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -S -p tcp',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Illegal option `--protonum' with this command\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -C -p tcp',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Illegal option `--protonum' with this command\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -C foo',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): unknown type `foo'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -C 1',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): unknown type `1'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -z',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -z -p tcp',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Can't use -z with filtering parameters\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  { cmd: 'conntrack -V', stdout: 'conntrack v1.4.7 (conntrack-tools)\n', stderr: '', exitCode: 0 },
  { cmd: 'conntrack --version', stdout: 'conntrack v1.4.7 (conntrack-tools)\n', stderr: '', exitCode: 0 },
  {
    cmd: 'conntrack -L extra',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): unknown type `extra'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -p icmp extra',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -D -p tcp --dport 1',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been deleted.\n',
    exitCode: 1,
  },
  {
    cmd: 'conntrack -D -s 9.9.9.9',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been deleted.\n',
    exitCode: 1,
  },
  {
    cmd: 'conntrack -F foo',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): unknown type `foo'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -F -p tcp',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Illegal option `--protonum' with this command\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -E -p tcp --state FOO',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): unknown TCP state `FOO'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -E -e FOO',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Bad parameter `FOO'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -E -e',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): option `-e' requires an argument\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -e NEW',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Illegal option `--event-mask' with this command\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -U -m 5 -p tcp --dport 1',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been updated.\n',
    exitCode: 1,
  },
  {
    cmd: 'conntrack -U',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been updated.\n',
    exitCode: 1,
  },
  {
    cmd: 'conntrack -G',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): You need to supply the `--protonum' option for this command\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -G -p tcp',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): you have to specify `--src' and `--dst'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -I',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): You need to supply the `--protonum' option for this command\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -u FOO',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Bad parameter `FOO'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -u UNSET',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): Operation failed: invalid parameters\n',
    exitCode: 1,
  },
  {
    cmd: 'conntrack -L -o xml',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -o save,id',
    stdout: '',
    stderr:
      'conntrack v1.4.7 (conntrack-tools): cannot combine save output with any other output type, use -o save only\n',
    exitCode: 1,
  },
  {
    cmd: 'conntrack -L -u S -p udp',
    stdout: '',
    stderr:
      'WARNING: ignoring SRC_NAT, use --src-nat instead\nconntrack v1.4.7 (conntrack-tools): Operation failed: invalid parameters\n',
    exitCode: 1,
  },
  {
    cmd: 'conntrack -L -o d -p udp',
    stdout: '',
    stderr:
      'WARNING: ignoring DST_NAT, use --dst-nat instead\nconntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -u ASSURED,',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Bad parameter `'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -u ,',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Bad parameter `,'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -m 7/',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  { cmd: 'conntrack -C expect', stdout: '0\n', stderr: '', exitCode: 0 },
  {
    cmd: 'conntrack -D expect',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): You need to supply the `--src' option for this command\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -G expect',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): You need to supply the `--src' option for this command\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L exp',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 expectations have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L e',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 expectations have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L ""',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 expectations have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -U expect',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Can't do --update on expectations\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -S foo',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): unknown type `foo'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -V -L',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Invalid commands combination\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -h -L',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Invalid commands combination\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -h',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Invalid commands combination\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -L',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Invalid commands combination\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L --',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  { cmd: 'conntrack -- -L', stdout: USAGE, stderr: '', exitCode: 0 },
  {
    cmd: 'conntrack -L - ',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L !',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -XL',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): unknown option `conntrack'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -LX',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -Lp',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -XL',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): unknown option `-L'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -A',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): You need to supply the `--protonum' option for this command\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -n',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -w 1',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -l foo',
    stdout: '',
    stderr:
      "nfct_labelmap_new: No such file or directory\nconntrack v1.4.7 (conntrack-tools): unknown label 'foo'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -b 1',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Illegal option `--buffer-size' with this command\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -c 1',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -i 1',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Illegal option `--id' with this command\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -t 1',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Illegal option `--timeout' with this command\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -a 1',
    stdout: '',
    stderr:
      'WARNING: ignoring -a, deprecated option.\nconntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L --zone 1',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  { cmd: 'conntrack --count', stdout: '0\n', stderr: '', exitCode: 0 },
  { cmd: 'conntrack --count expect', stdout: '0\n', stderr: '', exitCode: 0 },
  {
    cmd: 'conntrack --flush=expect',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): connection tracking table has been emptied.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack --dump=expect',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  { cmd: 'conntrack -C=expect', stdout: '0\n', stderr: '', exitCode: 0 },
  { cmd: 'conntrack -Cexpect', stdout: '0\n', stderr: '', exitCode: 0 },
  {
    cmd: 'conntrack -L --mask-src 255.255.255.0',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Can't use --mask-src without --src\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -s 10.0.0.0 --mask-src 255.255.255.0',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -Fx',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): connection tracking table has been emptied.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -Dx',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been deleted.\n',
    exitCode: 1,
  },
  {
    cmd: 'conntrack -Sx',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): unknown option `-Sx'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -Vx',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): unknown option `-Vx'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -Ux',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been updated.\n',
    exitCode: 1,
  },
  {
    cmd: 'conntrack -Gx',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): You need to supply the `--protonum' option for this command\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -Ix',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): You need to supply the `--protonum' option for this command\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -Ax',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): You need to supply the `--protonum' option for this command\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -zL',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -zp tcp',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Can't use -z with filtering parameters\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -ptcp --dp 5',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -p tcp --sta ESTABLISHED',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): unknown option `--sta'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -p tcp --s 1',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): unknown option `--s'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -p tcp --orig-port-s 1',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -p icmp --icmp-type 8',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -p icmp --sport 1',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): unknown option `--sport'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -n 10.0.0.1:abc',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Invalid port `abc'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -n 10.0.0.1:',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): No port specified after `:'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -g foo',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Invalid IP address `foo'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -j 1.2.3.4 -n',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): cannot specify `--src-nat' or `--dst-nat' with `--any-nat'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -n 10.0.0.0/8',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): CIDR notation unavailable for `--src-nat'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -s 10.0.0.1 -s 10.0.0.2',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -p tcp -p udp',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -p tcp --state ESTABLISHED -p udp',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Illegal option `--tuple-port-src' with this command\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -p tcp',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Illegal option `--protonum' with this command\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -s 1.2.3.4',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Illegal option `--src' with this command\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -z',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Illegal option `--zero' with this command\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -m 1',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Illegal option `--mark' with this command\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -o id',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Illegal option `--output' with this command\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -e NEW',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Illegal option `--event-mask' with this command\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -D -p tcp --state FOO',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): unknown TCP state `FOO'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -D -p tcp --mask-port-src 1',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Illegal option `--mask-port-src' with this command\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -p tcp --tuple-port-src 1',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Illegal option `--tuple-port-src' with this command\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -G -p tcp -s 1.1.1.1 -d 2.2.2.2',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): you have to specify `--sport' and `--dport'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -G -p tcp -s 1.1.1.1 -d 2.2.2.2 --sport 1 --dport 2',
    stdout: '',
    stderr: "conntrack v1.4.7 (conntrack-tools): Operation failed: such conntrack doesn't exist\n",
    exitCode: 1,
  },
  {
    cmd: 'conntrack -G -p tcp -s 1.1.1.1 -d 2.2.2.2 --sport 1',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): you have to specify `--sport' and `--dport'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -G -p icmp -s 1.1.1.1 -d 2.2.2.2',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): You need to supply the `--icmp-type' option for this command\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -G -p tcp -r 1.1.1.1 -q 2.2.2.2 --reply-port-src 1 --reply-port-dst 2',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): Operation failed: invalid parameters\n',
    exitCode: 1,
  },
  {
    cmd: 'conntrack -G -p tcp -s 1.1.1.1',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): you have to specify `--src' and `--dst'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -G -p tcp -r 1.1.1.1',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): you have to specify `--reply-src' and `--reply-dst'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -G -p tcp -s 1.1.1.1 -d 2.2.2.2 --sport 1 --reply-port-dst 2',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): you have to specify `--sport' and `--dport'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -h -p tcp',
    stdout:
      USAGE +
      "Proto `tcp' help:\n  --orig-port-src\t\toriginal source port\n  --orig-port-dst\t\toriginal destination port\n  --reply-port-src\t\treply source port\n  --reply-port-dst\t\treply destination port\n  --mask-port-src\t\tmask source port\n  --mask-port-dst\t\tmask destination port\n  --tuple-port-src\t\texpectation tuple src port\n  --tuple-port-src\t\texpectation tuple dst port\n  --state\t\t\tTCP state, fe. ESTABLISHED\n",
    stderr: '',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -h -p udp',
    stdout:
      USAGE +
      "Proto `udp' help:\n  --orig-port-src\t\toriginal source port\n  --orig-port-dst\t\toriginal destination port\n  --reply-port-src\t\treply source port\n  --reply-port-dst\t\treply destination port\n  --mask-port-src\t\tmask source port\n  --mask-port-dst\t\tmask destination port\n  --tuple-port-src\t\texpectation tuple src port\n  --tuple-port-src\t\texpectation tuple dst port\n",
    stderr: '',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -h -p icmp',
    stdout:
      USAGE +
      "Proto `icmp' help:\n  --icmp-type\t\t\ticmp type\n  --icmp-code\t\t\ticmp code\n  --icmp-id\t\t\ticmp id\n",
    stderr: '',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -h -p ospf',
    stdout: `${USAGE}Proto \`ospf' help:\n  no options (unsupported)\n`,
    stderr: '',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -h -p 253',
    stdout: `${USAGE}Proto \`unknown' help:\n  no options (unsupported)\n`,
    stderr: '',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -h -p sctp',
    stdout:
      USAGE +
      "Proto `sctp' help:\n  --orig-port-src\t\toriginal source port\n  --orig-port-dst\t\toriginal destination port\n  --reply-port-src\t\treply source port\n  --reply-port-dst\t\treply destination port\n  --mask-port-src\t\tmask source port\n  --mask-port-dst\t\tmask destination port\n  --tuple-port-src\t\texpectation tuple src port\n  --tuple-port-src\t\texpectation tuple dst port\n  --state\t\t\tSCTP state, fe. ESTABLISHED\n  --orig-vtag\t\toriginal verification tag\n  --reply-vtag\t\treply verification tag\n",
    stderr: '',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -h -p dccp',
    stdout:
      USAGE +
      "Proto `dccp' help:\n  --orig-port-src\t\toriginal source port\n  --orig-port-dst\t\toriginal destination port\n  --reply-port-src\t\treply source port\n  --reply-port-dst\t\treply destination port\n  --mask-port-src\t\tmask source port\n  --mask-port-dst\t\tmask destination port\n  --tuple-port-src\t\texpectation tuple src port\n  --tuple-port-src\t\texpectation tuple dst port\n  --state\t\t\tDCCP state, fe. RESPOND\n",
    stderr: '',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -h -p gre',
    stdout:
      USAGE +
      "Proto `gre' help:\n  --orig-key-src\t\toriginal source key\n  --orig-key-dst\t\toriginal destination key\n  --reply-key-src\t\treply source key\n  --reply-key-dst\t\treply destination key\n  --mask-key-src\t\tmask source key\n  --mask-key-dst\t\tmask destination key\n  --tuple-key-src\t\texpectation tuple src key\n  --tuple-key-src\t\texpectation tuple dst key\n",
    stderr: '',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -h -p icmpv6',
    stdout:
      USAGE +
      "Proto `icmpv6' help:\n  --icmpv6-type\t\t\ticmpv6 type\n  --icmpv6-code\t\t\ticmpv6 code\n  --icmpv6-id\t\t\ticmpv6 id\n",
    stderr: '',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -h -p udplite',
    stdout:
      USAGE +
      "Proto `udplite' help:\n  --orig-port-src\t\toriginal source port\n  --orig-port-dst\t\toriginal destination port\n  --reply-port-src\t\treply source port\n  --reply-port-dst\t\treply destination port\n  --mask-port-src\t\tmask source port\n  --mask-port-dst\t\tmask destination port\n  --tuple-port-src\t\texpectation tuple src port\n  --tuple-port-src\t\texpectation tuple dst port\n",
    stderr: '',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -f foo',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): `foo' unsupported protocol\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -s ::1',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -s 10.0.0.1 -d ::1',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): mismatched address family\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -f ipv6 -s 10.0.0.1',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): mismatched address family\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -p unknown',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): `unknown' unsupported protocol\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -p 256',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): `256' unsupported protocol\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -p 6foo',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): `6foo' unsupported protocol\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -p mptcp',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -s 10.0.0.1/8 -r 1.2.3.4/8',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): CIDR notation unavailable for `--reply-src'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L --mask-src 1.2.3.4/8',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): CIDR notation unavailable for `--mask-src'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -o xml,save',
    stdout: '',
    stderr:
      'conntrack v1.4.7 (conntrack-tools): cannot combine save output with any other output type, use -o save only\n',
    exitCode: 1,
  },
  {
    cmd: 'conntrack -L -o save,xml',
    stdout: '',
    stderr:
      'conntrack v1.4.7 (conntrack-tools): cannot combine save output with any other output type, use -o save only\n',
    exitCode: 1,
  },
  {
    cmd: 'conntrack -L -o ,',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Bad parameter `,'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -o id,',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Bad parameter `'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -u !',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Bad parameter `'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -u !,ASSURED',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Bad parameter `,ASSURED'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -u UNREPLIED,FOO',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Bad parameter `FOO'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -u !FOO',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Bad parameter `FOO'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -E -o bogus',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Bad parameter `bogus'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L --label-add x',
    stdout: '',
    stderr:
      "nfct_labelmap_new: No such file or directory\nconntrack v1.4.7 (conntrack-tools): unknown label 'x'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -U --label-add x --label-del y',
    stdout: '',
    stderr:
      "nfct_labelmap_new: No such file or directory\nconntrack v1.4.7 (conntrack-tools): unknown label 'x'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -U --label-del',
    stdout: '',
    stderr:
      'nfct_labelmap_new: No such file or directory\nconntrack v1.4.7 (conntrack-tools): 0 flow entries have been updated.\n',
    exitCode: 1,
  },
  {
    cmd: 'conntrack -L -o labels',
    stdout: '',
    stderr:
      'nfct_labelmap_new: No such file or directory\nconntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  { cmd: 'conntrack --help', stdout: USAGE, stderr: '', exitCode: 0 },
  { cmd: 'conntrack -h expect', stdout: USAGE, stderr: '', exitCode: 0 },
  {
    cmd: 'conntrack -L -f ipv4 -f ipv6',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): mismatched address family\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -q 1.2.3.4/32',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): CIDR notation unavailable for `--reply-dst'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -s 1.2.3.4/32',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -s 1.2.3.4/-1',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Invalid netmask\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L --src-nat=1.2.3.4',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -n1.2.3.4',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -n [::1]:80',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -n [::1]',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Invalid IP address `[::1]'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -n []:1',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): No IPv6 address specified\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -n [::1',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): No closing ']' around IPv6 address\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -n 1.2.3.4:99999',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Invalid port `99999'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -E expect -p tcp',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Illegal option `--protonum' with this command\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -D -t 5',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been deleted.\n',
    exitCode: 1,
  },
  {
    cmd: 'conntrack -D -i 5',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been deleted.\n',
    exitCode: 1,
  },
  {
    cmd: 'conntrack -L --id=5',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): Illegal option `--id' with this command\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -G -p udp -s 1.1.1.1 -d 2.2.2.2 --reply-port-src 1 --reply-port-dst 2',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): Operation failed: Success\n',
    exitCode: 1,
  },
  {
    cmd: 'conntrack -L --reply-zone 0',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L --orig-zone 3',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack --stats=foo',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): unknown option `--stats=foo'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack --version=1',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): unknown option `--version=1'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L --zero=1',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): unknown option `--zero=1'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L --=x',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): unknown option `--=x'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack ---L',
    stdout: '',
    stderr:
      "conntrack v1.4.7 (conntrack-tools): unknown option `---L'\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
    exitCode: 2,
  },
  {
    cmd: 'conntrack -L -p tcp --state LISTEN',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -p tcp --state SYN_SENT2',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -p tcp --state NONE',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -p icmpv6 --icmpv6-type 1',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
];

/** The rules loaded in plabctl-a (iptables 1.8.9, nf_tables) for ENTRY_CASES and EVENT_CASES. */
export const ENTRY_RULES = `*mangle
-A OUTPUT -p udp -m udp --dport 5353 -j CONNMARK --set-xmark 0x7/0xffffffff
COMMIT
*nat
-A OUTPUT -d 10.0.0.99/32 -p udp -j DNAT --to-destination 10.0.0.2:5353
-A POSTROUTING -p udp -m udp --sport 45000 -j SNAT --to-source 10.0.0.1:46000
-A POSTROUTING -j MASQUERADE
COMMIT
`;

/**
 * After `conntrack -F`, UDP from 10.0.0.1 ports 41000 -> 10.0.0.2:5353 (echoed), 42000 -> 10.0.0.2:9999 (port
 * unreachable), 43000 -> 10.0.0.99:53 (DNATed, echoed), 45000 -> 10.0.0.2:5353 (SNATed to port 46000, echoed),
 * then `ping -c1 10.0.0.2`; then these commands in order (the last ones delete). Lines come in the kernel's hash
 * order, timeouts and ids are the machine's.
 */
export const ENTRY_CASES: readonly RealRun[] = [
  {
    cmd: 'conntrack -L',
    stdout:
      'udp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=42000 dport=9999 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=9999 dport=42000 mark=0 use=1\nudp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=45000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=46000 mark=7 use=1\nicmp     1 29 src=10.0.0.1 dst=10.0.0.2 type=8 code=0 id=17637 src=10.0.0.2 dst=10.0.0.1 type=0 code=0 id=17637 mark=0 use=1\nudp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000 mark=7 use=1\nudp      17 29 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 5 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -p udp',
    stdout:
      'udp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=42000 dport=9999 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=9999 dport=42000 mark=0 use=1\nudp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=45000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=46000 mark=7 use=1\nudp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000 mark=7 use=1\nudp      17 29 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 4 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -p icmp',
    stdout:
      'icmp     1 29 src=10.0.0.1 dst=10.0.0.2 type=8 code=0 id=17637 src=10.0.0.2 dst=10.0.0.1 type=0 code=0 id=17637 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 1 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -p tcp',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -s 10.0.0.1',
    stdout:
      'udp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=42000 dport=9999 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=9999 dport=42000 mark=0 use=1\nudp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=45000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=46000 mark=7 use=1\nicmp     1 29 src=10.0.0.1 dst=10.0.0.2 type=8 code=0 id=17637 src=10.0.0.2 dst=10.0.0.1 type=0 code=0 id=17637 mark=0 use=1\nudp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000 mark=7 use=1\nudp      17 29 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 5 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -d 10.0.0.99',
    stdout:
      'udp      17 29 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 1 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -d 10.0.0.2',
    stdout:
      'udp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=42000 dport=9999 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=9999 dport=42000 mark=0 use=1\nudp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=45000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=46000 mark=7 use=1\nicmp     1 29 src=10.0.0.1 dst=10.0.0.2 type=8 code=0 id=17637 src=10.0.0.2 dst=10.0.0.1 type=0 code=0 id=17637 mark=0 use=1\nudp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000 mark=7 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 4 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -r 10.0.0.2',
    stdout:
      'udp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=42000 dport=9999 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=9999 dport=42000 mark=0 use=1\nudp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=45000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=46000 mark=7 use=1\nicmp     1 29 src=10.0.0.1 dst=10.0.0.2 type=8 code=0 id=17637 src=10.0.0.2 dst=10.0.0.1 type=0 code=0 id=17637 mark=0 use=1\nudp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000 mark=7 use=1\nudp      17 29 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 5 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -q 10.0.0.1',
    stdout:
      'udp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=42000 dport=9999 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=9999 dport=42000 mark=0 use=1\nudp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=45000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=46000 mark=7 use=1\nicmp     1 29 src=10.0.0.1 dst=10.0.0.2 type=8 code=0 id=17637 src=10.0.0.2 dst=10.0.0.1 type=0 code=0 id=17637 mark=0 use=1\nudp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000 mark=7 use=1\nudp      17 29 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 5 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -r 10.0.0.99',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -m 7',
    stdout:
      'udp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=45000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=46000 mark=7 use=1\nudp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000 mark=7 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 2 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -m 0',
    stdout:
      'udp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=42000 dport=9999 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=9999 dport=42000 mark=0 use=1\nicmp     1 29 src=10.0.0.1 dst=10.0.0.2 type=8 code=0 id=17637 src=10.0.0.2 dst=10.0.0.1 type=0 code=0 id=17637 mark=0 use=1\nudp      17 29 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 3 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -m 7/0xf',
    stdout:
      'udp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=45000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=46000 mark=7 use=1\nudp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000 mark=7 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 2 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -m 0x10/0x10',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L --mark 3/1',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -u UNREPLIED',
    stdout:
      'udp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=42000 dport=9999 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=9999 dport=42000 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 1 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -u SEEN_REPLY',
    stdout:
      'udp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=45000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=46000 mark=7 use=1\nicmp     1 29 src=10.0.0.1 dst=10.0.0.2 type=8 code=0 id=17637 src=10.0.0.2 dst=10.0.0.1 type=0 code=0 id=17637 mark=0 use=1\nudp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000 mark=7 use=1\nudp      17 29 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 4 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -u !SEEN_REPLY',
    stdout:
      'udp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=42000 dport=9999 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=9999 dport=42000 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 1 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -u ASSURED',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -p udp --sport 41000',
    stdout:
      'udp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000 mark=7 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 1 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -p udp --dport 9999',
    stdout:
      'udp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=42000 dport=9999 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=9999 dport=42000 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 1 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -p udp --reply-port-src 5353',
    stdout:
      'udp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=45000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=46000 mark=7 use=1\nudp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000 mark=7 use=1\nudp      17 29 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 3 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -p udp --reply-port-dst 46000',
    stdout:
      'udp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=45000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=46000 mark=7 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 1 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -p udp --sport 41000 --dport 1',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -p udp --orig-port-dst 53',
    stdout:
      'udp      17 29 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 1 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -n',
    stdout:
      'udp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=45000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=46000 mark=7 use=1\nicmp     1 29 src=10.0.0.1 dst=10.0.0.2 type=8 code=0 id=17637 src=10.0.0.2 dst=10.0.0.1 type=0 code=0 id=17637 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 2 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -g',
    stdout:
      'icmp     1 29 src=10.0.0.1 dst=10.0.0.2 type=8 code=0 id=17637 src=10.0.0.2 dst=10.0.0.1 type=0 code=0 id=17637 mark=0 use=1\nudp      17 29 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 2 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -j',
    stdout:
      'udp      17 28 src=10.0.0.1 dst=10.0.0.2 sport=45000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=46000 mark=7 use=1\nicmp     1 29 src=10.0.0.1 dst=10.0.0.2 type=8 code=0 id=17637 src=10.0.0.2 dst=10.0.0.1 type=0 code=0 id=17637 mark=0 use=1\nudp      17 28 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 3 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L --src-nat 10.0.0.1',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L --src-nat 10.0.0.1:46000',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L --src-nat 10.0.0.1:1',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L --dst-nat 10.0.0.2',
    stdout:
      'udp      17 28 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 1 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L --dst-nat 10.0.0.2:5353',
    stdout:
      'udp      17 28 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 1 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L --dst-nat 10.0.0.2:1',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -j 10.0.0.2',
    stdout:
      'udp      17 28 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 1 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -n -g',
    stdout:
      'icmp     1 28 src=10.0.0.1 dst=10.0.0.2 type=8 code=0 id=17637 src=10.0.0.2 dst=10.0.0.1 type=0 code=0 id=17637 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 1 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -o save',
    stdout:
      '-A -t 28 -u UNSET -s 10.0.0.1 -d 10.0.0.2 -r 10.0.0.2 -q 10.0.0.1 -p udp --sport 42000 --dport 9999 --reply-port-src 9999 --reply-port-dst 42000\n-A -t 28 -u SEEN_REPLY -s 10.0.0.1 -d 10.0.0.2 -r 10.0.0.2 -q 10.0.0.1 -p udp --sport 45000 --dport 5353 --reply-port-src 5353 --reply-port-dst 46000\n-A -t 28 -u SEEN_REPLY -s 10.0.0.1 -d 10.0.0.2 -r 10.0.0.2 -q 10.0.0.1 -p icmp --icmp-type 8 --icmp-code 0 --icmp-id 17637\n-A -t 28 -u SEEN_REPLY -s 10.0.0.1 -d 10.0.0.2 -r 10.0.0.2 -q 10.0.0.1 -p udp --sport 41000 --dport 5353 --reply-port-src 5353 --reply-port-dst 41000\n-A -t 28 -u SEEN_REPLY -s 10.0.0.1 -d 10.0.0.99 -g 10.0.0.2 -q 10.0.0.1 -p udp --sport 43000 --dport 53 --reply-port-src 5353 --reply-port-dst 43000\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 5 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -o xml',
    stdout:
      '<?xml version="1.0" encoding="utf-8"?>\n<conntrack>\n<flow><meta direction="original"><layer3 protonum="2" protoname="ipv4"><src>10.0.0.1</src><dst>10.0.0.2</dst></layer3><layer4 protonum="17" protoname="udp"><sport>42000</sport><dport>9999</dport></layer4></meta><meta direction="reply"><layer3 protonum="2" protoname="ipv4"><src>10.0.0.2</src><dst>10.0.0.1</dst></layer3><layer4 protonum="17" protoname="udp"><sport>9999</sport><dport>42000</dport></layer4></meta><meta direction="independent"><timeout>28</timeout><mark>0</mark><use>1</use><id>2109303840</id><unreplied/></meta></flow>\n<flow><meta direction="original"><layer3 protonum="2" protoname="ipv4"><src>10.0.0.1</src><dst>10.0.0.2</dst></layer3><layer4 protonum="17" protoname="udp"><sport>45000</sport><dport>5353</dport></layer4></meta><meta direction="reply"><layer3 protonum="2" protoname="ipv4"><src>10.0.0.2</src><dst>10.0.0.1</dst></layer3><layer4 protonum="17" protoname="udp"><sport>5353</sport><dport>46000</dport></layer4></meta><meta direction="independent"><timeout>28</timeout><mark>7</mark><use>1</use><id>2660979677</id></meta></flow>\n<flow><meta direction="original"><layer3 protonum="2" protoname="ipv4"><src>10.0.0.1</src><dst>10.0.0.2</dst></layer3><layer4 protonum="1" protoname="icmp"></layer4></meta><meta direction="reply"><layer3 protonum="2" protoname="ipv4"><src>10.0.0.2</src><dst>10.0.0.1</dst></layer3><layer4 protonum="1" protoname="icmp"></layer4></meta><meta direction="independent"><timeout>28</timeout><mark>0</mark><use>1</use><id>4116329679</id></meta></flow>\n<flow><meta direction="original"><layer3 protonum="2" protoname="ipv4"><src>10.0.0.1</src><dst>10.0.0.2</dst></layer3><layer4 protonum="17" protoname="udp"><sport>41000</sport><dport>5353</dport></layer4></meta><meta direction="reply"><layer3 protonum="2" protoname="ipv4"><src>10.0.0.2</src><dst>10.0.0.1</dst></layer3><layer4 protonum="17" protoname="udp"><sport>5353</sport><dport>41000</dport></layer4></meta><meta direction="independent"><timeout>28</timeout><mark>7</mark><use>1</use><id>1809974785</id></meta></flow>\n<flow><meta direction="original"><layer3 protonum="2" protoname="ipv4"><src>10.0.0.1</src><dst>10.0.0.99</dst></layer3><layer4 protonum="17" protoname="udp"><sport>43000</sport><dport>53</dport></layer4></meta><meta direction="reply"><layer3 protonum="2" protoname="ipv4"><src>10.0.0.2</src><dst>10.0.0.1</dst></layer3><layer4 protonum="17" protoname="udp"><sport>5353</sport><dport>43000</dport></layer4></meta><meta direction="independent"><timeout>28</timeout><mark>0</mark><use>1</use><id>3630022970</id></meta></flow>\n</conntrack>\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 5 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -o extended',
    stdout:
      'ipv4     2 udp      17 28 src=10.0.0.1 dst=10.0.0.2 sport=42000 dport=9999 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=9999 dport=42000 mark=0 use=1\nipv4     2 udp      17 28 src=10.0.0.1 dst=10.0.0.2 sport=45000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=46000 mark=7 use=1\nipv4     2 icmp     1 28 src=10.0.0.1 dst=10.0.0.2 type=8 code=0 id=17637 src=10.0.0.2 dst=10.0.0.1 type=0 code=0 id=17637 mark=0 use=1\nipv4     2 udp      17 28 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000 mark=7 use=1\nipv4     2 udp      17 28 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 5 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -o extended,id -p udp --dport 53',
    stdout:
      'ipv4     2 udp      17 28 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000 mark=0 use=1 id=3630022970\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 1 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -s 10.0.0.0/24',
    stdout:
      'udp      17 28 src=10.0.0.1 dst=10.0.0.2 sport=42000 dport=9999 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=9999 dport=42000 mark=0 use=1\nudp      17 28 src=10.0.0.1 dst=10.0.0.2 sport=45000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=46000 mark=7 use=1\nicmp     1 28 src=10.0.0.1 dst=10.0.0.2 type=8 code=0 id=17637 src=10.0.0.2 dst=10.0.0.1 type=0 code=0 id=17637 mark=0 use=1\nudp      17 28 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000 mark=7 use=1\nudp      17 28 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 5 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -d 10.0.0.0/30',
    stdout:
      'udp      17 28 src=10.0.0.1 dst=10.0.0.2 sport=42000 dport=9999 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=9999 dport=42000 mark=0 use=1\nudp      17 28 src=10.0.0.1 dst=10.0.0.2 sport=45000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=46000 mark=7 use=1\nicmp     1 28 src=10.0.0.1 dst=10.0.0.2 type=8 code=0 id=17637 src=10.0.0.2 dst=10.0.0.1 type=0 code=0 id=17637 mark=0 use=1\nudp      17 28 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000 mark=7 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 4 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -d 10.0.0.96/30',
    stdout:
      'udp      17 28 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 1 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -s 10.0.0.0 --mask-src 255.255.255.0',
    stdout:
      'udp      17 28 src=10.0.0.1 dst=10.0.0.2 sport=42000 dport=9999 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=9999 dport=42000 mark=0 use=1\nudp      17 28 src=10.0.0.1 dst=10.0.0.2 sport=45000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=46000 mark=7 use=1\nicmp     1 28 src=10.0.0.1 dst=10.0.0.2 type=8 code=0 id=17637 src=10.0.0.2 dst=10.0.0.1 type=0 code=0 id=17637 mark=0 use=1\nudp      17 28 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000 mark=7 use=1\nudp      17 28 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 5 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -d 10.0.0.99/32',
    stdout:
      'udp      17 28 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 1 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -p icmp --icmp-type 8',
    stdout:
      'icmp     1 28 src=10.0.0.1 dst=10.0.0.2 type=8 code=0 id=17637 src=10.0.0.2 dst=10.0.0.1 type=0 code=0 id=17637 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 1 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -p icmp --icmp-type 0',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -p icmp --icmp-code 0',
    stdout:
      'icmp     1 28 src=10.0.0.1 dst=10.0.0.2 type=8 code=0 id=17637 src=10.0.0.2 dst=10.0.0.1 type=0 code=0 id=17637 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 1 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -f ipv4',
    stdout:
      'udp      17 28 src=10.0.0.1 dst=10.0.0.2 sport=42000 dport=9999 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=9999 dport=42000 mark=0 use=1\nudp      17 28 src=10.0.0.1 dst=10.0.0.2 sport=45000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=46000 mark=7 use=1\nicmp     1 28 src=10.0.0.1 dst=10.0.0.2 type=8 code=0 id=17637 src=10.0.0.2 dst=10.0.0.1 type=0 code=0 id=17637 mark=0 use=1\nudp      17 28 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000 mark=7 use=1\nudp      17 28 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 5 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -f ipv6',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -z',
    stdout:
      'udp      17 28 src=10.0.0.1 dst=10.0.0.2 sport=42000 dport=9999 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=9999 dport=42000 mark=0 use=1\nudp      17 28 src=10.0.0.1 dst=10.0.0.2 sport=45000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=46000 mark=7 use=1\nicmp     1 28 src=10.0.0.1 dst=10.0.0.2 type=8 code=0 id=17637 src=10.0.0.2 dst=10.0.0.1 type=0 code=0 id=17637 mark=0 use=1\nudp      17 28 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000 mark=7 use=1\nudp      17 28 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 5 flow entries have been shown.\n',
    exitCode: 0,
  },
  { cmd: 'conntrack -C', stdout: '5\n', stderr: '', exitCode: 0 },
  {
    cmd: 'conntrack -G -p udp -s 10.0.0.1 -d 10.0.0.99 --sport 43000 --dport 53',
    stdout:
      'udp      17 28 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000 mark=0 use=2\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 1 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -G -p udp -s 10.0.0.2 -d 10.0.0.1 --sport 5353 --dport 46000',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 1,
  },
  {
    cmd: 'conntrack -D -p udp --dport 9999',
    stdout:
      'udp      17 28 src=10.0.0.1 dst=10.0.0.2 sport=42000 dport=9999 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=9999 dport=42000 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 1 flow entries have been deleted.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L -p udp',
    stdout:
      'udp      17 28 src=10.0.0.1 dst=10.0.0.2 sport=45000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=46000 mark=7 use=1\nudp      17 28 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000 mark=7 use=1\nudp      17 28 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000 mark=0 use=1\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 3 flow entries have been shown.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -D -o save --dst-nat',
    stdout:
      '-D -t 28 -u SEEN_REPLY -s 10.0.0.1 -d 10.0.0.2 -r 10.0.0.2 -q 10.0.0.1 -p icmp --icmp-type 8 --icmp-code 0 --icmp-id 17637\n-D -t 27 -u SEEN_REPLY -s 10.0.0.1 -d 10.0.0.99 -g 10.0.0.2 -q 10.0.0.1 -p udp --sport 43000 --dport 53 --reply-port-src 5353 --reply-port-dst 43000\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 2 flow entries have been deleted.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -D -p icmp -o xml',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been deleted.\n',
    exitCode: 1,
  },
  { cmd: 'conntrack -C', stdout: '2\n', stderr: '', exitCode: 0 },
  {
    cmd: 'conntrack -F',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): connection tracking table has been emptied.\n',
    exitCode: 0,
  },
  {
    cmd: 'conntrack -L',
    stdout: '',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been shown.\n',
    exitCode: 0,
  },
  { cmd: 'conntrack -C', stdout: '0\n', stderr: '', exitCode: 0 },
];

/**
 * `conntrack -E ...` running (then SIGINT) while, after `conntrack -F`, the traffic of ENTRY_CASES passed, then
 * `conntrack -D -p udp --dport 9999` and `conntrack -F` ran. The DESTROY lines of -F come in hash order; the
 * portid of a userspace deletion is the deleting process's netlink port (its pid, or a random number when taken),
 * and progname appears when conntrack could still find the process.
 */
export const EVENT_CASES: readonly {
  readonly cmd: string;
  readonly stdout: string;
  readonly stderr: string;
}[] = [
  {
    cmd: 'conntrack -E',
    stdout:
      '    [NEW] udp      17 30 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000 mark=7\n [UPDATE] udp      17 30 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000 mark=7\n    [NEW] udp      17 30 src=10.0.0.1 dst=10.0.0.2 sport=42000 dport=9999 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=9999 dport=42000\n    [NEW] udp      17 30 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000\n [UPDATE] udp      17 30 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000\n    [NEW] udp      17 30 src=10.0.0.1 dst=10.0.0.2 sport=45000 dport=5353 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=46000 mark=7\n [UPDATE] udp      17 30 src=10.0.0.1 dst=10.0.0.2 sport=45000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=46000 mark=7\n    [NEW] icmp     1 30 src=10.0.0.1 dst=10.0.0.2 type=8 code=0 id=19443 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 type=0 code=0 id=19443\n [UPDATE] icmp     1 30 src=10.0.0.1 dst=10.0.0.2 type=8 code=0 id=19443 src=10.0.0.2 dst=10.0.0.1 type=0 code=0 id=19443\n[DESTROY] udp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=42000 dport=9999 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=9999 dport=42000 [USERSPACE] portid=2792795071 progname=conntrack\n[DESTROY] udp      17 29 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000 [USERSPACE] portid=19446 progname=conntrack\n[DESTROY] udp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=45000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=46000 mark=7 [USERSPACE] portid=19446 progname=conntrack\n[DESTROY] udp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000 mark=7 [USERSPACE] portid=19446 progname=conntrack\n[DESTROY] icmp     1 29 src=10.0.0.1 dst=10.0.0.2 type=8 code=0 id=19443 src=10.0.0.2 dst=10.0.0.1 type=0 code=0 id=19443 [USERSPACE] portid=19446 progname=conntrack\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 14 flow events have been shown.\n',
  },
  {
    cmd: 'conntrack -E -e NEW,DESTROY -p udp',
    stdout:
      '    [NEW] udp      17 30 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000 mark=7\n    [NEW] udp      17 30 src=10.0.0.1 dst=10.0.0.2 sport=42000 dport=9999 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=9999 dport=42000\n    [NEW] udp      17 30 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000\n    [NEW] udp      17 30 src=10.0.0.1 dst=10.0.0.2 sport=45000 dport=5353 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=46000 mark=7\n[DESTROY] udp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=42000 dport=9999 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=9999 dport=42000 [USERSPACE] portid=3339308001\n[DESTROY] udp      17 29 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000 [USERSPACE] portid=19539 progname=conntrack\n[DESTROY] udp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=45000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=46000 mark=7 [USERSPACE] portid=19539 progname=conntrack\n[DESTROY] udp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000 mark=7 [USERSPACE] portid=19539 progname=conntrack\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 8 flow events have been shown.\n',
  },
  {
    cmd: 'conntrack -E -o save',
    stdout:
      '-A -t 30 -u UNSET -s 10.0.0.1 -d 10.0.0.2 -r 10.0.0.2 -q 10.0.0.1 -p udp --sport 41000 --dport 5353 --reply-port-src 5353 --reply-port-dst 41000\n-U -t 30 -u SEEN_REPLY -s 10.0.0.1 -d 10.0.0.2 -r 10.0.0.2 -q 10.0.0.1 -p udp --sport 41000 --dport 5353 --reply-port-src 5353 --reply-port-dst 41000\n-A -t 30 -u UNSET -s 10.0.0.1 -d 10.0.0.2 -r 10.0.0.2 -q 10.0.0.1 -p udp --sport 42000 --dport 9999 --reply-port-src 9999 --reply-port-dst 42000\n-A -t 30 -u UNSET -s 10.0.0.1 -d 10.0.0.99 -g 10.0.0.2 -q 10.0.0.1 -p udp --sport 43000 --dport 53 --reply-port-src 5353 --reply-port-dst 43000\n-U -t 30 -u SEEN_REPLY -s 10.0.0.1 -d 10.0.0.99 -g 10.0.0.2 -q 10.0.0.1 -p udp --sport 43000 --dport 53 --reply-port-src 5353 --reply-port-dst 43000\n-A -t 30 -u UNSET -s 10.0.0.1 -d 10.0.0.2 -r 10.0.0.2 -q 10.0.0.1 -p udp --sport 45000 --dport 5353 --reply-port-src 5353 --reply-port-dst 46000\n-U -t 30 -u SEEN_REPLY -s 10.0.0.1 -d 10.0.0.2 -r 10.0.0.2 -q 10.0.0.1 -p udp --sport 45000 --dport 5353 --reply-port-src 5353 --reply-port-dst 46000\n-A -t 30 -u UNSET -s 10.0.0.1 -d 10.0.0.2 -r 10.0.0.2 -q 10.0.0.1 -p icmp --icmp-type 8 --icmp-code 0 --icmp-id 19614\n-U -t 30 -u SEEN_REPLY -s 10.0.0.1 -d 10.0.0.2 -r 10.0.0.2 -q 10.0.0.1 -p icmp --icmp-type 8 --icmp-code 0 --icmp-id 19614\n-D -t 29 -u UNSET -s 10.0.0.1 -d 10.0.0.2 -r 10.0.0.2 -q 10.0.0.1 -p udp --sport 42000 --dport 9999 --reply-port-src 9999 --reply-port-dst 42000 [USERSPACE] portid=4182072946\n-D -t 29 -u SEEN_REPLY -s 10.0.0.1 -d 10.0.0.2 -r 10.0.0.2 -q 10.0.0.1 -p icmp --icmp-type 8 --icmp-code 0 --icmp-id 19614 [USERSPACE] portid=19619 progname=conntrack\n-D -t 29 -u SEEN_REPLY -s 10.0.0.1 -d 10.0.0.99 -g 10.0.0.2 -q 10.0.0.1 -p udp --sport 43000 --dport 53 --reply-port-src 5353 --reply-port-dst 43000 [USERSPACE] portid=19619 progname=conntrack\n-D -t 29 -u SEEN_REPLY -s 10.0.0.1 -d 10.0.0.2 -r 10.0.0.2 -q 10.0.0.1 -p udp --sport 45000 --dport 5353 --reply-port-src 5353 --reply-port-dst 46000 [USERSPACE] portid=19619 progname=conntrack\n-D -t 29 -u SEEN_REPLY -s 10.0.0.1 -d 10.0.0.2 -r 10.0.0.2 -q 10.0.0.1 -p udp --sport 41000 --dport 5353 --reply-port-src 5353 --reply-port-dst 41000 [USERSPACE] portid=19619 progname=conntrack\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 14 flow events have been shown.\n',
  },
  {
    cmd: 'conntrack -E -o xml -p icmp',
    stdout:
      '<?xml version="1.0" encoding="utf-8"?>\n<conntrack>\n<flow type="new"><meta direction="original"><layer3 protonum="2" protoname="ipv4"><src>10.0.0.1</src><dst>10.0.0.2</dst></layer3><layer4 protonum="1" protoname="icmp"></layer4></meta><meta direction="reply"><layer3 protonum="2" protoname="ipv4"><src>10.0.0.2</src><dst>10.0.0.1</dst></layer3><layer4 protonum="1" protoname="icmp"></layer4></meta><meta direction="independent"><timeout>30</timeout><id>3895562097</id><unreplied/></meta></flow>\n<flow type="update"><meta direction="original"><layer3 protonum="2" protoname="ipv4"><src>10.0.0.1</src><dst>10.0.0.2</dst></layer3><layer4 protonum="1" protoname="icmp"></layer4></meta><meta direction="reply"><layer3 protonum="2" protoname="ipv4"><src>10.0.0.2</src><dst>10.0.0.1</dst></layer3><layer4 protonum="1" protoname="icmp"></layer4></meta><meta direction="independent"><timeout>30</timeout><id>3895562097</id></meta></flow>\n<flow type="destroy"><meta direction="original"><layer3 protonum="2" protoname="ipv4"><src>10.0.0.1</src><dst>10.0.0.2</dst></layer3><layer4 protonum="1" protoname="icmp"></layer4></meta><meta direction="reply"><layer3 protonum="2" protoname="ipv4"><src>10.0.0.2</src><dst>10.0.0.1</dst></layer3><layer4 protonum="1" protoname="icmp"></layer4></meta><meta direction="independent"><timeout>29</timeout><id>3895562097</id></meta></flow> [USERSPACE] portid=19724 progname=conntrack\n</conntrack>\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 3 flow events have been shown.\n',
  },
  {
    cmd: 'conntrack -E -m 7',
    stdout:
      '    [NEW] udp      17 30 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000 mark=7\n [UPDATE] udp      17 30 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000 mark=7\n    [NEW] udp      17 30 src=10.0.0.1 dst=10.0.0.2 sport=45000 dport=5353 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=46000 mark=7\n [UPDATE] udp      17 30 src=10.0.0.1 dst=10.0.0.2 sport=45000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=46000 mark=7\n[DESTROY] udp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=45000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=46000 mark=7 [USERSPACE] portid=19829 progname=conntrack\n[DESTROY] udp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000 mark=7 [USERSPACE] portid=19829 progname=conntrack\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 6 flow events have been shown.\n',
  },
  {
    cmd: 'conntrack -E -o id,extended --dst-nat',
    stdout:
      '    [NEW] ipv4     2 udp      17 30 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000 id=1471082760\n [UPDATE] ipv4     2 udp      17 30 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000 id=1471082760\n    [NEW] ipv4     2 icmp     1 30 src=10.0.0.1 dst=10.0.0.2 type=8 code=0 id=19930 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 type=0 code=0 id=19930 id=1144498363\n [UPDATE] ipv4     2 icmp     1 30 src=10.0.0.1 dst=10.0.0.2 type=8 code=0 id=19930 src=10.0.0.2 dst=10.0.0.1 type=0 code=0 id=19930 id=1144498363\n[DESTROY] ipv4     2 icmp     1 29 src=10.0.0.1 dst=10.0.0.2 type=8 code=0 id=19930 src=10.0.0.2 dst=10.0.0.1 type=0 code=0 id=19930 id=1144498363 [USERSPACE] portid=19934 progname=conntrack\n[DESTROY] ipv4     2 udp      17 29 src=10.0.0.1 dst=10.0.0.99 sport=43000 dport=53 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=43000 id=1471082760 [USERSPACE] portid=19934\n',
    stderr: 'conntrack v1.4.7 (conntrack-tools): 6 flow events have been shown.\n',
  },
];

/** sysctl (procps-ng 4.0.2) in a fresh namespace, in order: read-only keys fail without changing the exit status. */
export const SYSCTL_CASES: readonly RealRun[] = [
  {
    cmd: 'sysctl net.netfilter.nf_conntrack_buckets',
    stdout: 'net.netfilter.nf_conntrack_buckets = 262144\n',
    stderr: '',
    exitCode: 0,
  },
  { cmd: 'sysctl -n net.netfilter.nf_conntrack_udp_timeout', stdout: '30\n', stderr: '', exitCode: 0 },
  {
    cmd: 'sysctl net.netfilter.nf_conntrack_count',
    stdout: 'net.netfilter.nf_conntrack_count = 0\n',
    stderr: '',
    exitCode: 0,
  },
  {
    cmd: 'sysctl -w net.netfilter.nf_conntrack_count=5',
    stdout: '',
    stderr: 'sysctl: setting key "net.netfilter.nf_conntrack_count": Invalid argument\n',
    exitCode: 0,
  },
  {
    cmd: 'sysctl -w net.netfilter.nf_conntrack_buckets=1024',
    stdout: '',
    stderr: 'sysctl: setting key "net.netfilter.nf_conntrack_buckets": Invalid argument\n',
    exitCode: 0,
  },
  {
    cmd: 'sysctl -w net.netfilter.nf_conntrack_expect_max=1',
    stdout: '',
    stderr: 'sysctl: setting key "net.netfilter.nf_conntrack_expect_max": Invalid argument\n',
    exitCode: 0,
  },
  {
    cmd: 'sysctl -w net.netfilter.nf_conntrack_udp_timeout=abc',
    stdout: '',
    stderr: 'sysctl: setting key "net.netfilter.nf_conntrack_udp_timeout": Invalid argument\n',
    exitCode: 1,
  },
  {
    cmd: 'sysctl -w net.netfilter.nf_conntrack_udp_timeout=-5',
    stdout: 'net.netfilter.nf_conntrack_udp_timeout = -5\n',
    stderr: '',
    exitCode: 0,
  },
  {
    cmd: 'sysctl net.netfilter.nf_conntrack_udp_timeout',
    stdout: 'net.netfilter.nf_conntrack_udp_timeout = -5\n',
    stderr: '',
    exitCode: 0,
  },
  {
    cmd: 'sysctl -w net.netfilter.nf_conntrack_udp_timeout=8589935',
    stdout: '',
    stderr: 'sysctl: setting key "net.netfilter.nf_conntrack_udp_timeout": Invalid argument\n',
    exitCode: 1,
  },
  {
    cmd: 'sysctl -w net.netfilter.nf_conntrack_udp_timeout=8589934',
    stdout: 'net.netfilter.nf_conntrack_udp_timeout = 8589934\n',
    stderr: '',
    exitCode: 0,
  },
  {
    cmd: 'sysctl -w net.netfilter.nf_conntrack_udp_timeout=30',
    stdout: 'net.netfilter.nf_conntrack_udp_timeout = 30\n',
    stderr: '',
    exitCode: 0,
  },
  {
    cmd: 'sysctl -w net.netfilter.nf_conntrack_tcp_be_liberal=2',
    stdout: '',
    stderr: 'sysctl: setting key "net.netfilter.nf_conntrack_tcp_be_liberal": Invalid argument\n',
    exitCode: 1,
  },
  {
    cmd: 'sysctl -w net.netfilter.nf_conntrack_tcp_be_liberal=1',
    stdout: 'net.netfilter.nf_conntrack_tcp_be_liberal = 1\n',
    stderr: '',
    exitCode: 0,
  },
  {
    cmd: 'sysctl net.netfilter.nf_conntrack_tcp_be_liberal',
    stdout: 'net.netfilter.nf_conntrack_tcp_be_liberal = 1\n',
    stderr: '',
    exitCode: 0,
  },
  {
    cmd: 'sysctl -w net.netfilter.nf_conntrack_tcp_max_retrans=256',
    stdout: '',
    stderr: 'sysctl: setting key "net.netfilter.nf_conntrack_tcp_max_retrans": Invalid argument\n',
    exitCode: 1,
  },
  {
    cmd: 'sysctl -w net.netfilter.nf_conntrack_tcp_loose=0',
    stdout: 'net.netfilter.nf_conntrack_tcp_loose = 0\n',
    stderr: '',
    exitCode: 0,
  },
  {
    cmd: 'sysctl -w net.netfilter.nf_conntrack_tcp_timeout_established=86400',
    stdout: 'net.netfilter.nf_conntrack_tcp_timeout_established = 86400\n',
    stderr: '',
    exitCode: 0,
  },
  {
    cmd: 'sysctl net.netfilter.nf_conntrack_tcp_timeout_established',
    stdout: 'net.netfilter.nf_conntrack_tcp_timeout_established = 86400\n',
    stderr: '',
    exitCode: 0,
  },
  {
    cmd: 'sysctl net.netfilter.nf_conntrack_expect_max',
    stdout: 'net.netfilter.nf_conntrack_expect_max = 4096\n',
    stderr: '',
    exitCode: 0,
  },
  {
    cmd: 'sysctl net.netfilter.nf_conntrack_generic_timeout',
    stdout: 'net.netfilter.nf_conntrack_generic_timeout = 600\n',
    stderr: '',
    exitCode: 0,
  },
  {
    cmd: 'sysctl net.netfilter.nf_conntrack_icmp_timeout',
    stdout: 'net.netfilter.nf_conntrack_icmp_timeout = 30\n',
    stderr: '',
    exitCode: 0,
  },
  {
    cmd: 'sysctl -w net.netfilter.nf_conntrack_count=5 net.netfilter.nf_conntrack_udp_timeout=abc',
    stdout: '',
    stderr:
      'sysctl: setting key "net.netfilter.nf_conntrack_count": Invalid argument\nsysctl: setting key "net.netfilter.nf_conntrack_udp_timeout": Invalid argument\n',
    exitCode: 1,
  },
  {
    cmd: 'sysctl -w net.netfilter.nf_conntrack_count=5 net.netfilter.nf_conntrack_udp_timeout=40',
    stdout: 'net.netfilter.nf_conntrack_udp_timeout = 40\n',
    stderr: 'sysctl: setting key "net.netfilter.nf_conntrack_count": Invalid argument\n',
    exitCode: 0,
  },
  { cmd: 'sysctl -q -w net.netfilter.nf_conntrack_icmp_timeout=20', stdout: '', stderr: '', exitCode: 0 },
  {
    cmd: 'sysctl net.netfilter.nf_conntrack_icmp_timeout net.netfilter.nf_conntrack_udp_timeout_stream',
    stdout:
      'net.netfilter.nf_conntrack_icmp_timeout = 20\nnet.netfilter.nf_conntrack_udp_timeout_stream = 120\n',
    stderr: '',
    exitCode: 0,
  },
  {
    cmd: 'sysctl net/netfilter/nf_conntrack_tcp_timeout_syn_sent',
    stdout: 'net.netfilter.nf_conntrack_tcp_timeout_syn_sent = 120\n',
    stderr: '',
    exitCode: 0,
  },
  {
    cmd: 'sysctl net.netfilter.nf_conntrack_tcp_timeout_close net.netfilter.nf_conntrack_tcp_timeout_close_wait net.netfilter.nf_conntrack_tcp_timeout_fin_wait net.netfilter.nf_conntrack_tcp_timeout_last_ack net.netfilter.nf_conntrack_tcp_timeout_max_retrans net.netfilter.nf_conntrack_tcp_timeout_syn_recv net.netfilter.nf_conntrack_tcp_timeout_time_wait net.netfilter.nf_conntrack_tcp_timeout_unacknowledged net.netfilter.nf_conntrack_tcp_ignore_invalid_rst net.netfilter.nf_conntrack_tcp_loose net.netfilter.nf_conntrack_tcp_max_retrans',
    stdout:
      'net.netfilter.nf_conntrack_tcp_timeout_close = 10\nnet.netfilter.nf_conntrack_tcp_timeout_close_wait = 60\nnet.netfilter.nf_conntrack_tcp_timeout_fin_wait = 120\nnet.netfilter.nf_conntrack_tcp_timeout_last_ack = 30\nnet.netfilter.nf_conntrack_tcp_timeout_max_retrans = 300\nnet.netfilter.nf_conntrack_tcp_timeout_syn_recv = 60\nnet.netfilter.nf_conntrack_tcp_timeout_time_wait = 120\nnet.netfilter.nf_conntrack_tcp_timeout_unacknowledged = 300\nnet.netfilter.nf_conntrack_tcp_ignore_invalid_rst = 0\nnet.netfilter.nf_conntrack_tcp_loose = 0\nnet.netfilter.nf_conntrack_tcp_max_retrans = 3\n',
    stderr: '',
    exitCode: 0,
  },
];
