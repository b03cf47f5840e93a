// Output of the real ss (iproute2 6.1.0) recorded on Linux 6.18 for the sockets of ss-sockets.ts, in namespaces a and b,
// as the kernel printed it (its row order is a hash's: compare with canonical()); then command lines whose answer does
// not depend on the sockets (errors, help, version, empty selections), run in a: SOCKET_COMMANDS and OTHER_COMMANDS
// run through `ip netns exec NS bash -c` once the sockets were up as ss-real.test.ts starts them. Record them again
// when ss-sockets.ts changes.

/** One command as the real ss answered it. */
export interface RealSs {
  readonly ns: 'a' | 'b';
  readonly cmd: string;
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
}

/** ss's usage text (6.1.0): stdout for -h, stderr after a bad option. */
export const USAGE =
  "Usage: ss [ OPTIONS ]\n       ss [ OPTIONS ] [ FILTER ]\n   -h, --help          this message\n   -V, --version       output version information\n   -n, --numeric       don't resolve service names\n   -r, --resolve       resolve host names\n   -a, --all           display all sockets\n   -l, --listening     display listening sockets\n   -o, --options       show timer information\n   -e, --extended      show detailed socket information\n   -m, --memory        show socket memory usage\n   -p, --processes     show process using socket\n   -T, --threads       show thread using socket\n   -i, --info          show internal TCP information\n       --tipcinfo      show internal tipc socket information\n   -s, --summary       show socket usage summary\n       --tos           show tos and priority information\n       --cgroup        show cgroup information\n   -b, --bpf           show bpf filter socket information\n   -E, --events        continually display sockets as they are destroyed\n   -Z, --context       display task SELinux security contexts\n   -z, --contexts      display task and socket SELinux security contexts\n   -N, --net           switch to the specified network namespace name\n\n   -4, --ipv4          display only IP version 4 sockets\n   -6, --ipv6          display only IP version 6 sockets\n   -0, --packet        display PACKET sockets\n   -t, --tcp           display only TCP sockets\n   -M, --mptcp         display only MPTCP sockets\n   -S, --sctp          display only SCTP sockets\n   -u, --udp           display only UDP sockets\n   -d, --dccp          display only DCCP sockets\n   -w, --raw           display only RAW sockets\n   -x, --unix          display only Unix domain sockets\n       --tipc          display only TIPC sockets\n       --vsock         display only vsock sockets\n       --xdp           display only XDP sockets\n   -f, --family=FAMILY display sockets of type FAMILY\n       FAMILY := {inet|inet6|link|unix|netlink|vsock|tipc|xdp|help}\n\n   -K, --kill          forcibly close sockets, display what was closed\n   -H, --no-header     Suppress header line\n   -O, --oneline       socket's data printed on a single line\n       --inet-sockopt  show various inet socket options\n\n   -A, --query=QUERY, --socket=QUERY\n       QUERY := {all|inet|tcp|mptcp|udp|raw|unix|unix_dgram|unix_stream|unix_seqpacket|packet|packet_raw|packet_dgram|netlink|dccp|sctp|vsock_stream|vsock_dgram|tipc|xdp}[,QUERY]\n\n   -D, --diag=FILE     Dump raw information about TCP sockets to FILE\n   -F, --filter=FILE   read filter information from FILE\n       FILTER := [ state STATE-FILTER ] [ EXPRESSION ]\n       STATE-FILTER := {all|connected|synchronized|bucket|big|TCP-STATES}\n         TCP-STATES := {established|syn-sent|syn-recv|fin-wait-{1,2}|time-wait|closed|close-wait|last-ack|listening|closing}\n          connected := {established|syn-sent|syn-recv|fin-wait-{1,2}|time-wait|close-wait|last-ack|closing}\n       synchronized := {established|syn-recv|fin-wait-{1,2}|time-wait|close-wait|last-ack|closing}\n             bucket := {syn-recv|time-wait}\n                big := {established|syn-sent|fin-wait-{1,2}|closed|close-wait|last-ack|listening|closing}\n";

export const RECORDED: readonly RealSs[] = [
  {
    ns: 'a',
    cmd: 'ss',
    stdout:
      'Netid State      Recv-Q Send-Q Local Address:Port  Peer Address:Port    Process\nudp   ESTAB      0      0           10.0.0.1:40012     10.0.0.2:mdns           \ntcp   SYN-SENT   0      1           10.0.0.1:40006     10.0.0.3:http           \ntcp   ESTAB      0      0           10.0.0.1:40000     10.0.0.2:http-alt       \ntcp   FIN-WAIT-2 0      0           10.0.0.1:40002     10.0.0.2:http-alt       \ntcp   SYN-SENT   0      1           10.0.0.1:40008     10.0.0.2:http-alt       \n',
    stderr: 'RTNETLINK answers: Invalid argument\n',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -n',
    stdout:
      'Netid State      Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\nudp   ESTAB      0      0           10.0.0.1:40012     10.0.0.2:5353       \ntcp   SYN-SENT   0      1           10.0.0.1:40006     10.0.0.3:80         \ntcp   ESTAB      0      0           10.0.0.1:40000     10.0.0.2:8080       \ntcp   FIN-WAIT-2 0      0           10.0.0.1:40002     10.0.0.2:8080       \ntcp   SYN-SENT   0      1           10.0.0.1:40008     10.0.0.2:8080       \n',
    stderr: 'RTNETLINK answers: Invalid argument\n',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -t',
    stdout:
      'State      Recv-Q Send-Q Local Address:Port  Peer Address:Port    Process\nSYN-SENT   0      1           10.0.0.1:40006     10.0.0.3:http           \nESTAB      0      0           10.0.0.1:40000     10.0.0.2:http-alt       \nFIN-WAIT-2 0      0           10.0.0.1:40002     10.0.0.2:http-alt       \nSYN-SENT   0      1           10.0.0.1:40008     10.0.0.2:http-alt       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -tn',
    stdout:
      'State      Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\nSYN-SENT   0      1           10.0.0.1:40006     10.0.0.3:80         \nESTAB      0      0           10.0.0.1:40000     10.0.0.2:8080       \nFIN-WAIT-2 0      0           10.0.0.1:40002     10.0.0.2:8080       \nSYN-SENT   0      1           10.0.0.1:40008     10.0.0.2:8080       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -ta',
    stdout:
      'State      Recv-Q Send-Q Local Address:Port  Peer Address:Port    Process\nSYN-SENT   0      1           10.0.0.1:40006     10.0.0.3:http           \nESTAB      0      0           10.0.0.1:40000     10.0.0.2:http-alt       \nFIN-WAIT-2 0      0           10.0.0.1:40002     10.0.0.2:http-alt       \nTIME-WAIT  0      0           10.0.0.1:40004     10.0.0.2:http-alt       \nSYN-SENT   0      1           10.0.0.1:40008     10.0.0.2:http-alt       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -tan',
    stdout:
      'State      Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\nSYN-SENT   0      1           10.0.0.1:40006     10.0.0.3:80         \nESTAB      0      0           10.0.0.1:40000     10.0.0.2:8080       \nFIN-WAIT-2 0      0           10.0.0.1:40002     10.0.0.2:8080       \nTIME-WAIT  0      0           10.0.0.1:40004     10.0.0.2:8080       \nSYN-SENT   0      1           10.0.0.1:40008     10.0.0.2:8080       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -tl',
    stdout: 'State Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -tln',
    stdout: 'State Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -tlnH',
    stdout: '',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -u',
    stdout:
      'Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\n0      0           10.0.0.1:40012     10.0.0.2:mdns       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -un',
    stdout:
      'Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\n0      0           10.0.0.1:40012     10.0.0.2:5353       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -ua',
    stdout:
      'State  Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\nUNCONN 0      0            0.0.0.0:40010      0.0.0.0:*          \nESTAB  0      0           10.0.0.1:40012     10.0.0.2:mdns       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -uan',
    stdout:
      'State  Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\nUNCONN 0      0            0.0.0.0:40010      0.0.0.0:*          \nESTAB  0      0           10.0.0.1:40012     10.0.0.2:5353       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -ul',
    stdout:
      'State  Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\nUNCONN 0      0            0.0.0.0:40010      0.0.0.0:*          \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -tua',
    stdout:
      'Netid State      Recv-Q Send-Q Local Address:Port  Peer Address:Port    Process\nudp   UNCONN     0      0            0.0.0.0:40010      0.0.0.0:*              \nudp   ESTAB      0      0           10.0.0.1:40012     10.0.0.2:mdns           \ntcp   SYN-SENT   0      1           10.0.0.1:40006     10.0.0.3:http           \ntcp   ESTAB      0      0           10.0.0.1:40000     10.0.0.2:http-alt       \ntcp   FIN-WAIT-2 0      0           10.0.0.1:40002     10.0.0.2:http-alt       \ntcp   TIME-WAIT  0      0           10.0.0.1:40004     10.0.0.2:http-alt       \ntcp   SYN-SENT   0      1           10.0.0.1:40008     10.0.0.2:http-alt       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -tuan',
    stdout:
      'Netid State      Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\nudp   UNCONN     0      0            0.0.0.0:40010      0.0.0.0:*          \nudp   ESTAB      0      0           10.0.0.1:40012     10.0.0.2:5353       \ntcp   SYN-SENT   0      1           10.0.0.1:40006     10.0.0.3:80         \ntcp   ESTAB      0      0           10.0.0.1:40000     10.0.0.2:8080       \ntcp   FIN-WAIT-2 0      0           10.0.0.1:40002     10.0.0.2:8080       \ntcp   TIME-WAIT  0      0           10.0.0.1:40004     10.0.0.2:8080       \ntcp   SYN-SENT   0      1           10.0.0.1:40008     10.0.0.2:8080       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -tunaH',
    stdout:
      'udp UNCONN     0      0       0.0.0.0:40010  0.0.0.0:*   \nudp ESTAB      0      0      10.0.0.1:40012 10.0.0.2:5353\ntcp SYN-SENT   0      1      10.0.0.1:40006 10.0.0.3:80  \ntcp ESTAB      0      0      10.0.0.1:40000 10.0.0.2:8080\ntcp FIN-WAIT-2 0      0      10.0.0.1:40002 10.0.0.2:8080\ntcp TIME-WAIT  0      0      10.0.0.1:40004 10.0.0.2:8080\ntcp SYN-SENT   0      1      10.0.0.1:40008 10.0.0.2:8080\n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -tuln',
    stdout:
      'Netid State  Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\nudp   UNCONN 0      0            0.0.0.0:40010      0.0.0.0:*          \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -4 -tn',
    stdout:
      'State      Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\nSYN-SENT   0      1           10.0.0.1:40006     10.0.0.3:80         \nESTAB      0      0           10.0.0.1:40000     10.0.0.2:8080       \nFIN-WAIT-2 0      0           10.0.0.1:40002     10.0.0.2:8080       \nSYN-SENT   0      1           10.0.0.1:40008     10.0.0.2:8080       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -6 -tn',
    stdout: 'State Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -tn state established',
    stdout:
      'Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\n0      0           10.0.0.1:40000     10.0.0.2:8080       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -tn state time-wait',
    stdout:
      'Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\n0      0           10.0.0.1:40004     10.0.0.2:8080       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -tan state listening',
    stdout: 'Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -tn state syn-sent',
    stdout:
      'Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\n0      1           10.0.0.1:40006     10.0.0.3:80         \n0      1           10.0.0.1:40008     10.0.0.2:8080       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -tn state syn-recv',
    stdout: 'Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -tn state fin-wait-2',
    stdout:
      'Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\n0      0           10.0.0.1:40002     10.0.0.2:8080       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -tn state close-wait',
    stdout: 'Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -tn state connected',
    stdout:
      'State      Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\nSYN-SENT   0      1           10.0.0.1:40006     10.0.0.3:80         \nESTAB      0      0           10.0.0.1:40000     10.0.0.2:8080       \nFIN-WAIT-2 0      0           10.0.0.1:40002     10.0.0.2:8080       \nTIME-WAIT  0      0           10.0.0.1:40004     10.0.0.2:8080       \nSYN-SENT   0      1           10.0.0.1:40008     10.0.0.2:8080       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -tn state synchronized',
    stdout:
      'State      Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\nESTAB      0      0           10.0.0.1:40000     10.0.0.2:8080       \nFIN-WAIT-2 0      0           10.0.0.1:40002     10.0.0.2:8080       \nTIME-WAIT  0      0           10.0.0.1:40004     10.0.0.2:8080       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -tn state bucket',
    stdout:
      'State     Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\nTIME-WAIT 0      0           10.0.0.1:40004     10.0.0.2:8080       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -tn state big',
    stdout:
      'State      Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\nSYN-SENT   0      1           10.0.0.1:40006     10.0.0.3:80         \nESTAB      0      0           10.0.0.1:40000     10.0.0.2:8080       \nFIN-WAIT-2 0      0           10.0.0.1:40002     10.0.0.2:8080       \nSYN-SENT   0      1           10.0.0.1:40008     10.0.0.2:8080       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -tan exclude listening exclude time-wait',
    stdout:
      'State      Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\nSYN-SENT   0      1           10.0.0.1:40006     10.0.0.3:80         \nESTAB      0      0           10.0.0.1:40000     10.0.0.2:8080       \nFIN-WAIT-2 0      0           10.0.0.1:40002     10.0.0.2:8080       \nSYN-SENT   0      1           10.0.0.1:40008     10.0.0.2:8080       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -t exclude all',
    stdout:
      'State      Recv-Q Send-Q Local Address:Port  Peer Address:Port    Process\nSYN-SENT   0      1           10.0.0.1:40006     10.0.0.3:http           \nESTAB      0      0           10.0.0.1:40000     10.0.0.2:http-alt       \nFIN-WAIT-2 0      0           10.0.0.1:40002     10.0.0.2:http-alt       \nSYN-SENT   0      1           10.0.0.1:40008     10.0.0.2:http-alt       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -tun state established',
    stdout:
      'Netid Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\nudp   0      0           10.0.0.1:40012     10.0.0.2:5353       \ntcp   0      0           10.0.0.1:40000     10.0.0.2:8080       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -tu state listening',
    stdout: 'Netid Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -ua state unconnected',
    stdout:
      'Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\n0      0            0.0.0.0:40010      0.0.0.0:*          \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss state listening -tn',
    stdout: 'Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -t -A udp -n',
    stdout:
      'State Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\nESTAB 0      0           10.0.0.1:40012     10.0.0.2:5353       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -A tcp,udp -an',
    stdout:
      'Netid State      Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\nudp   UNCONN     0      0            0.0.0.0:40010      0.0.0.0:*          \nudp   ESTAB      0      0           10.0.0.1:40012     10.0.0.2:5353       \ntcp   SYN-SENT   0      1           10.0.0.1:40006     10.0.0.3:80         \ntcp   ESTAB      0      0           10.0.0.1:40000     10.0.0.2:8080       \ntcp   FIN-WAIT-2 0      0           10.0.0.1:40002     10.0.0.2:8080       \ntcp   TIME-WAIT  0      0           10.0.0.1:40004     10.0.0.2:8080       \ntcp   SYN-SENT   0      1           10.0.0.1:40008     10.0.0.2:8080       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -A inet -n',
    stdout:
      'Netid State      Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\nudp   ESTAB      0      0           10.0.0.1:40012     10.0.0.2:5353       \ntcp   SYN-SENT   0      1           10.0.0.1:40006     10.0.0.3:80         \ntcp   ESTAB      0      0           10.0.0.1:40000     10.0.0.2:8080       \ntcp   FIN-WAIT-2 0      0           10.0.0.1:40002     10.0.0.2:8080       \ntcp   SYN-SENT   0      1           10.0.0.1:40008     10.0.0.2:8080       \n',
    stderr: 'RTNETLINK answers: Invalid argument\n',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -f inet -tn',
    stdout:
      'State      Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\nSYN-SENT   0      1           10.0.0.1:40006     10.0.0.3:80         \nESTAB      0      0           10.0.0.1:40000     10.0.0.2:8080       \nFIN-WAIT-2 0      0           10.0.0.1:40002     10.0.0.2:8080       \nSYN-SENT   0      1           10.0.0.1:40008     10.0.0.2:8080       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss --tcp --all --numeric',
    stdout:
      'State      Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\nSYN-SENT   0      1           10.0.0.1:40006     10.0.0.3:80         \nESTAB      0      0           10.0.0.1:40000     10.0.0.2:8080       \nFIN-WAIT-2 0      0           10.0.0.1:40002     10.0.0.2:8080       \nTIME-WAIT  0      0           10.0.0.1:40004     10.0.0.2:8080       \nSYN-SENT   0      1           10.0.0.1:40008     10.0.0.2:8080       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -x',
    stdout: 'Netid State Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -w',
    stdout: 'Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss',
    stdout:
      'Netid State      Recv-Q Send-Q Local Address:Port     Peer Address:Port  Process\nudp   ESTAB      0      0           10.0.0.2:41234        10.0.0.1:domain       \ntcp   ESTAB      0      0           10.0.0.2:http-alt     10.0.0.1:40000        \ntcp   CLOSE-WAIT 0      0           10.0.0.2:http-alt     10.0.0.1:40002        \n',
    stderr: 'RTNETLINK answers: Invalid argument\n',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -n',
    stdout:
      'Netid State      Recv-Q Send-Q Local Address:Port  Peer Address:Port Process\nudp   ESTAB      0      0           10.0.0.2:41234     10.0.0.1:53          \ntcp   ESTAB      0      0           10.0.0.2:8080      10.0.0.1:40000       \ntcp   CLOSE-WAIT 0      0           10.0.0.2:8080      10.0.0.1:40002       \n',
    stderr: 'RTNETLINK answers: Invalid argument\n',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -t',
    stdout:
      'State      Recv-Q Send-Q Local Address:Port     Peer Address:Port Process\nESTAB      0      0           10.0.0.2:http-alt     10.0.0.1:40000       \nCLOSE-WAIT 0      0           10.0.0.2:http-alt     10.0.0.1:40002       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -tn',
    stdout:
      'State      Recv-Q Send-Q Local Address:Port Peer Address:Port Process\nESTAB      0      0           10.0.0.2:8080     10.0.0.1:40000       \nCLOSE-WAIT 0      0           10.0.0.2:8080     10.0.0.1:40002       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -ta',
    stdout:
      'State      Recv-Q Send-Q Local Address:Port     Peer Address:Port Process\nLISTEN     0      511          0.0.0.0:http-alt      0.0.0.0:*           \nLISTEN     0      511         10.0.0.2:ssh           0.0.0.0:*           \nESTAB      0      0           10.0.0.2:http-alt     10.0.0.1:40000       \nCLOSE-WAIT 0      0           10.0.0.2:http-alt     10.0.0.1:40002       \nSYN-RECV   0      0           10.0.0.2:http-alt     10.0.0.1:40008       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -tan',
    stdout:
      'State      Recv-Q Send-Q Local Address:Port Peer Address:Port Process\nLISTEN     0      511          0.0.0.0:8080      0.0.0.0:*           \nLISTEN     0      511         10.0.0.2:22        0.0.0.0:*           \nESTAB      0      0           10.0.0.2:8080     10.0.0.1:40000       \nCLOSE-WAIT 0      0           10.0.0.2:8080     10.0.0.1:40002       \nSYN-RECV   0      0           10.0.0.2:8080     10.0.0.1:40008       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -tl',
    stdout:
      'State  Recv-Q Send-Q Local Address:Port     Peer Address:PortProcess\nLISTEN 0      511          0.0.0.0:http-alt      0.0.0.0:*          \nLISTEN 0      511         10.0.0.2:ssh           0.0.0.0:*          \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -tln',
    stdout:
      'State  Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\nLISTEN 0      511          0.0.0.0:8080      0.0.0.0:*          \nLISTEN 0      511         10.0.0.2:22        0.0.0.0:*          \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -tlnH',
    stdout: 'LISTEN 0      511     0.0.0.0:8080 0.0.0.0:*\nLISTEN 0      511    10.0.0.2:22   0.0.0.0:*\n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -u',
    stdout:
      'Recv-Q Send-Q Local Address:Port  Peer Address:Port  Process\n0      0           10.0.0.2:41234     10.0.0.1:domain       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -un',
    stdout:
      'Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\n0      0           10.0.0.2:41234     10.0.0.1:53         \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -ua',
    stdout:
      'State  Recv-Q Send-Q Local Address:Port  Peer Address:Port  Process\nUNCONN 0      0            0.0.0.0:mdns       0.0.0.0:*            \nESTAB  0      0           10.0.0.2:41234     10.0.0.1:domain       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -uan',
    stdout:
      'State  Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\nUNCONN 0      0            0.0.0.0:5353       0.0.0.0:*          \nESTAB  0      0           10.0.0.2:41234     10.0.0.1:53         \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -ul',
    stdout:
      'State  Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\nUNCONN 0      0            0.0.0.0:mdns      0.0.0.0:*          \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -tua',
    stdout:
      'Netid State      Recv-Q Send-Q Local Address:Port     Peer Address:Port  Process\nudp   UNCONN     0      0            0.0.0.0:mdns          0.0.0.0:*            \nudp   ESTAB      0      0           10.0.0.2:41234        10.0.0.1:domain       \ntcp   LISTEN     0      511          0.0.0.0:http-alt      0.0.0.0:*            \ntcp   LISTEN     0      511         10.0.0.2:ssh           0.0.0.0:*            \ntcp   ESTAB      0      0           10.0.0.2:http-alt     10.0.0.1:40000        \ntcp   CLOSE-WAIT 0      0           10.0.0.2:http-alt     10.0.0.1:40002        \ntcp   SYN-RECV   0      0           10.0.0.2:http-alt     10.0.0.1:40008        \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -tuan',
    stdout:
      'Netid State      Recv-Q Send-Q Local Address:Port  Peer Address:Port Process\nudp   UNCONN     0      0            0.0.0.0:5353       0.0.0.0:*           \nudp   ESTAB      0      0           10.0.0.2:41234     10.0.0.1:53          \ntcp   LISTEN     0      511          0.0.0.0:8080       0.0.0.0:*           \ntcp   LISTEN     0      511         10.0.0.2:22         0.0.0.0:*           \ntcp   ESTAB      0      0           10.0.0.2:8080      10.0.0.1:40000       \ntcp   CLOSE-WAIT 0      0           10.0.0.2:8080      10.0.0.1:40002       \ntcp   SYN-RECV   0      0           10.0.0.2:8080      10.0.0.1:40008       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -tunaH',
    stdout:
      'udp UNCONN     0      0       0.0.0.0:5353   0.0.0.0:*    \nudp ESTAB      0      0      10.0.0.2:41234 10.0.0.1:53   \ntcp LISTEN     0      511     0.0.0.0:8080   0.0.0.0:*    \ntcp LISTEN     0      511    10.0.0.2:22     0.0.0.0:*    \ntcp ESTAB      0      0      10.0.0.2:8080  10.0.0.1:40000\ntcp CLOSE-WAIT 0      0      10.0.0.2:8080  10.0.0.1:40002\ntcp SYN-RECV   0      0      10.0.0.2:8080  10.0.0.1:40008\n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -tuln',
    stdout:
      'Netid State  Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\nudp   UNCONN 0      0            0.0.0.0:5353      0.0.0.0:*          \ntcp   LISTEN 0      511          0.0.0.0:8080      0.0.0.0:*          \ntcp   LISTEN 0      511         10.0.0.2:22        0.0.0.0:*          \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -4 -tn',
    stdout:
      'State      Recv-Q Send-Q Local Address:Port Peer Address:Port Process\nESTAB      0      0           10.0.0.2:8080     10.0.0.1:40000       \nCLOSE-WAIT 0      0           10.0.0.2:8080     10.0.0.1:40002       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -6 -tn',
    stdout: 'State Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -tn state established',
    stdout:
      'Recv-Q Send-Q Local Address:Port Peer Address:Port Process\n0      0           10.0.0.2:8080     10.0.0.1:40000       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -tn state time-wait',
    stdout: 'Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -tan state listening',
    stdout:
      'Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n0      511          0.0.0.0:8080      0.0.0.0:*          \n0      511         10.0.0.2:22        0.0.0.0:*          \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -tn state syn-sent',
    stdout: 'Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -tn state syn-recv',
    stdout:
      'Recv-Q Send-Q Local Address:Port Peer Address:Port Process\n0      0           10.0.0.2:8080     10.0.0.1:40008       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -tn state fin-wait-2',
    stdout: 'Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -tn state close-wait',
    stdout:
      'Recv-Q Send-Q Local Address:Port Peer Address:Port Process\n0      0           10.0.0.2:8080     10.0.0.1:40002       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -tn state connected',
    stdout:
      'State      Recv-Q Send-Q Local Address:Port Peer Address:Port Process\nESTAB      0      0           10.0.0.2:8080     10.0.0.1:40000       \nCLOSE-WAIT 0      0           10.0.0.2:8080     10.0.0.1:40002       \nSYN-RECV   0      0           10.0.0.2:8080     10.0.0.1:40008       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -tn state synchronized',
    stdout:
      'State      Recv-Q Send-Q Local Address:Port Peer Address:Port Process\nESTAB      0      0           10.0.0.2:8080     10.0.0.1:40000       \nCLOSE-WAIT 0      0           10.0.0.2:8080     10.0.0.1:40002       \nSYN-RECV   0      0           10.0.0.2:8080     10.0.0.1:40008       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -tn state bucket',
    stdout:
      'State    Recv-Q Send-Q Local Address:Port Peer Address:Port Process\nSYN-RECV 0      0           10.0.0.2:8080     10.0.0.1:40008       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -tn state big',
    stdout:
      'State      Recv-Q Send-Q Local Address:Port Peer Address:Port Process\nLISTEN     0      511          0.0.0.0:8080      0.0.0.0:*           \nLISTEN     0      511         10.0.0.2:22        0.0.0.0:*           \nESTAB      0      0           10.0.0.2:8080     10.0.0.1:40000       \nCLOSE-WAIT 0      0           10.0.0.2:8080     10.0.0.1:40002       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -tan exclude listening exclude time-wait',
    stdout:
      'State      Recv-Q Send-Q Local Address:Port Peer Address:Port Process\nESTAB      0      0           10.0.0.2:8080     10.0.0.1:40000       \nCLOSE-WAIT 0      0           10.0.0.2:8080     10.0.0.1:40002       \nSYN-RECV   0      0           10.0.0.2:8080     10.0.0.1:40008       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -t exclude all',
    stdout:
      'State      Recv-Q Send-Q Local Address:Port     Peer Address:Port Process\nESTAB      0      0           10.0.0.2:http-alt     10.0.0.1:40000       \nCLOSE-WAIT 0      0           10.0.0.2:http-alt     10.0.0.1:40002       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -tun state established',
    stdout:
      'Netid Recv-Q Send-Q Local Address:Port  Peer Address:Port Process\nudp   0      0           10.0.0.2:41234     10.0.0.1:53          \ntcp   0      0           10.0.0.2:8080      10.0.0.1:40000       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -tu state listening',
    stdout:
      'Netid Recv-Q Send-Q Local Address:Port     Peer Address:PortProcess\ntcp   0      511          0.0.0.0:http-alt      0.0.0.0:*          \ntcp   0      511         10.0.0.2:ssh           0.0.0.0:*          \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -ua state unconnected',
    stdout:
      'Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n0      0            0.0.0.0:mdns      0.0.0.0:*          \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss state listening -tn',
    stdout:
      'Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n0      511          0.0.0.0:8080      0.0.0.0:*          \n0      511         10.0.0.2:22        0.0.0.0:*          \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -t -A udp -n',
    stdout:
      'State Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess\nESTAB 0      0           10.0.0.2:41234     10.0.0.1:53         \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -A tcp,udp -an',
    stdout:
      'Netid State      Recv-Q Send-Q Local Address:Port  Peer Address:Port Process\nudp   UNCONN     0      0            0.0.0.0:5353       0.0.0.0:*           \nudp   ESTAB      0      0           10.0.0.2:41234     10.0.0.1:53          \ntcp   LISTEN     0      511          0.0.0.0:8080       0.0.0.0:*           \ntcp   LISTEN     0      511         10.0.0.2:22         0.0.0.0:*           \ntcp   ESTAB      0      0           10.0.0.2:8080      10.0.0.1:40000       \ntcp   CLOSE-WAIT 0      0           10.0.0.2:8080      10.0.0.1:40002       \ntcp   SYN-RECV   0      0           10.0.0.2:8080      10.0.0.1:40008       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -A inet -n',
    stdout:
      'Netid State      Recv-Q Send-Q Local Address:Port  Peer Address:Port Process\nudp   ESTAB      0      0           10.0.0.2:41234     10.0.0.1:53          \ntcp   ESTAB      0      0           10.0.0.2:8080      10.0.0.1:40000       \ntcp   CLOSE-WAIT 0      0           10.0.0.2:8080      10.0.0.1:40002       \n',
    stderr: 'RTNETLINK answers: Invalid argument\n',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -f inet -tn',
    stdout:
      'State      Recv-Q Send-Q Local Address:Port Peer Address:Port Process\nESTAB      0      0           10.0.0.2:8080     10.0.0.1:40000       \nCLOSE-WAIT 0      0           10.0.0.2:8080     10.0.0.1:40002       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss --tcp --all --numeric',
    stdout:
      'State      Recv-Q Send-Q Local Address:Port Peer Address:Port Process\nLISTEN     0      511          0.0.0.0:8080      0.0.0.0:*           \nLISTEN     0      511         10.0.0.2:22        0.0.0.0:*           \nESTAB      0      0           10.0.0.2:8080     10.0.0.1:40000       \nCLOSE-WAIT 0      0           10.0.0.2:8080     10.0.0.1:40002       \nSYN-RECV   0      0           10.0.0.2:8080     10.0.0.1:40008       \n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -x',
    stdout: 'Netid State Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'b',
    cmd: 'ss -w',
    stdout: 'Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -V',
    stdout: 'ss utility, iproute2-6.1.0\n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss --version',
    stdout: 'ss utility, iproute2-6.1.0\n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -h',
    stdout: USAGE,
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -f help',
    stdout: USAGE,
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -Q',
    stdout: '',
    stderr: `ss: invalid option -- 'Q'\n${USAGE}`,
    exitCode: 255,
  },
  {
    ns: 'a',
    cmd: 'ss -VQ',
    stdout: 'ss utility, iproute2-6.1.0\n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -Z -Q',
    stdout: '',
    stderr: 'ss: SELinux is not enabled.\n',
    exitCode: 1,
  },
  {
    ns: 'a',
    cmd: 'ss -h --foo',
    stdout: USAGE,
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -tQ',
    stdout: '',
    stderr: `ss: invalid option -- 'Q'\n${USAGE}`,
    exitCode: 255,
  },
  {
    ns: 'a',
    cmd: 'ss --foo',
    stdout: '',
    stderr: `ss: unrecognized option '--foo'\n${USAGE}`,
    exitCode: 255,
  },
  {
    ns: 'a',
    cmd: 'ss --s',
    stdout: '',
    stderr: `ss: option '--s' is ambiguous; possibilities: '--sctp' '--socket' '--summary'\n${USAGE}`,
    exitCode: 255,
  },
  {
    ns: 'a',
    cmd: 'ss --t',
    stdout: '',
    stderr: `ss: option '--t' is ambiguous; possibilities: '--threads' '--tcp' '--tipc' '--tipcinfo' '--tos'\n${USAGE}`,
    exitCode: 255,
  },
  {
    ns: 'a',
    cmd: 'ss --tcp=1',
    stdout: '',
    stderr: `ss: option '--tcp' doesn't allow an argument\n${USAGE}`,
    exitCode: 255,
  },
  {
    ns: 'a',
    cmd: 'ss -f',
    stdout: '',
    stderr: `ss: option requires an argument -- 'f'\n${USAGE}`,
    exitCode: 255,
  },
  {
    ns: 'a',
    cmd: 'ss -tf',
    stdout: '',
    stderr: `ss: option requires an argument -- 'f'\n${USAGE}`,
    exitCode: 255,
  },
  {
    ns: 'a',
    cmd: 'ss --family',
    stdout: '',
    stderr: `ss: option '--family' requires an argument\n${USAGE}`,
    exitCode: 255,
  },
  {
    ns: 'a',
    cmd: 'ss -f bar',
    stdout: '',
    stderr: `ss: "bar" is invalid family\n${USAGE}`,
    exitCode: 255,
  },
  {
    ns: 'a',
    cmd: 'ss -A foo',
    stdout: '',
    stderr: `ss: "foo" is illegal socket table id\n${USAGE}`,
    exitCode: 255,
  },
  {
    ns: 'a',
    cmd: 'ss -A tcp,foo',
    stdout: '',
    stderr: `ss: "foo" is illegal socket table id\n${USAGE}`,
    exitCode: 255,
  },
  {
    ns: 'a',
    cmd: 'ss -A !tcp',
    stdout: '',
    stderr: 'ss: no socket tables to show with such filter.\n',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -t -A !tcp',
    stdout: '',
    stderr: 'ss: no socket tables to show with such filter.\n',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -t state',
    stdout: '',
    stderr: 'Command line is not complete. Try option "help"\n',
    exitCode: 255,
  },
  {
    ns: 'a',
    cmd: 'ss -t state foo',
    stdout: '',
    stderr: 'ss: wrong state name: foo\n',
    exitCode: 255,
  },
  {
    ns: 'a',
    cmd: 'ss -t exclude',
    stdout: '',
    stderr: 'Command line is not complete. Try option "help"\n',
    exitCode: 255,
  },
  {
    ns: 'a',
    cmd: 'ss -t state closed',
    stdout: 'Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n',
    stderr: '',
    exitCode: 0,
  },
  {
    ns: 'a',
    cmd: 'ss -Z',
    stdout: '',
    stderr: 'ss: SELinux is not enabled.\n',
    exitCode: 1,
  },
  {
    ns: 'a',
    cmd: 'ss -z',
    stdout: '',
    stderr: 'ss: SELinux is not enabled.\n',
    exitCode: 1,
  },
  {
    ns: 'a',
    cmd: 'ss -d',
    stdout: 'State Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n',
    stderr: 'RTNETLINK answers: Invalid argument\n',
    exitCode: 0,
  },
];
