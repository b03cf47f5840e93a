// Output of the real tools, recorded on Linux 6.18 with conntrack-tools 1.4.7 in a throw-away namespace
// (plabct-a 10.0.0.1 <-veth-> plabct-b 10.0.0.2, an nft rule with `ct state new` to enable tracking):
// ping -c 1, a UDP echo (node dgram) once and again 2.5 s later, a TCP echo (node net) kept open and
// one closed by the client, a UDP datagram to a closed port, a SYN to a closed port, raw IP protocol 253.

/** `conntrack -L` lines (the timeout column is whatever had elapsed since the last packet). */
export const LIST = {
  icmpEcho:
    'icmp     1 29 src=10.0.0.1 dst=10.0.0.2 type=8 code=0 id=23009 src=10.0.0.2 dst=10.0.0.1 type=0 code=0 id=23009 mark=0 use=1',
  icmpUnreplied:
    'icmp     1 25 src=10.0.0.1 dst=10.0.0.9 type=8 code=0 id=25482 [UNREPLIED] src=10.0.0.9 dst=10.0.0.1 type=0 code=0 id=25482 mark=0 use=1',
  udpReplied:
    'udp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000 mark=0 use=1',
  udpAssured:
    'udp      17 119 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000 [ASSURED] mark=0 use=1',
  udpUnreplied:
    'udp      17 29 src=10.0.0.1 dst=10.0.0.2 sport=42000 dport=9999 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=9999 dport=42000 mark=0 use=1',
  tcpEstablished:
    'tcp      6 431999 ESTABLISHED src=10.0.0.1 dst=10.0.0.2 sport=41234 dport=8000 src=10.0.0.2 dst=10.0.0.1 sport=8000 dport=41234 [ASSURED] mark=0 use=1',
  tcpTimeWait:
    'tcp      6 119 TIME_WAIT src=10.0.0.1 dst=10.0.0.2 sport=41240 dport=8000 src=10.0.0.2 dst=10.0.0.1 sport=8000 dport=41240 [ASSURED] mark=0 use=1',
  unknown253: 'unknown  253 599 src=10.0.0.1 dst=10.0.0.2 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 mark=0 use=1',
  udpAssuredWithId:
    'udp      17 119 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000 [ASSURED] mark=0 use=1 id=3028628784',
  udpExtended:
    'ipv4     2 udp      17 25 src=10.0.0.1 dst=10.0.0.2 sport=42000 dport=9999 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=9999 dport=42000 mark=0 use=1',
} as const;

/** `conntrack -E` while a client connected, exchanged 5 bytes and closed (client FIN first). */
export const EVENTS_TCP_CLOSE = [
  '    [NEW] tcp      6 120 SYN_SENT src=10.0.0.1 dst=10.0.0.2 sport=41240 dport=8000 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=8000 dport=41240',
  ' [UPDATE] tcp      6 60 SYN_RECV src=10.0.0.1 dst=10.0.0.2 sport=41240 dport=8000 src=10.0.0.2 dst=10.0.0.1 sport=8000 dport=41240',
  ' [UPDATE] tcp      6 432000 ESTABLISHED src=10.0.0.1 dst=10.0.0.2 sport=41240 dport=8000 src=10.0.0.2 dst=10.0.0.1 sport=8000 dport=41240 [ASSURED]',
  ' [UPDATE] tcp      6 120 FIN_WAIT src=10.0.0.1 dst=10.0.0.2 sport=41240 dport=8000 src=10.0.0.2 dst=10.0.0.1 sport=8000 dport=41240 [ASSURED]',
  ' [UPDATE] tcp      6 30 LAST_ACK src=10.0.0.1 dst=10.0.0.2 sport=41240 dport=8000 src=10.0.0.2 dst=10.0.0.1 sport=8000 dport=41240 [ASSURED]',
  ' [UPDATE] tcp      6 120 TIME_WAIT src=10.0.0.1 dst=10.0.0.2 sport=41240 dport=8000 src=10.0.0.2 dst=10.0.0.1 sport=8000 dport=41240 [ASSURED]',
] as const;

/** `conntrack -E` for a UDP request, its reply, and another request 2.5 s later; then a SYN answered by RST. */
export const EVENTS_UDP_AND_RST = [
  '    [NEW] udp      17 30 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000',
  ' [UPDATE] udp      17 30 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000',
  ' [UPDATE] udp      17 120 src=10.0.0.1 dst=10.0.0.2 sport=41000 dport=5353 src=10.0.0.2 dst=10.0.0.1 sport=5353 dport=41000 [ASSURED]',
  '    [NEW] tcp      6 120 SYN_SENT src=10.0.0.1 dst=10.0.0.2 sport=43000 dport=8001 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=8001 dport=43000',
  '[DESTROY] tcp      6 120 CLOSE src=10.0.0.1 dst=10.0.0.2 sport=43000 dport=8001 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=8001 dport=43000',
] as const;

/** One `conntrack -S` line (two cpus on that machine; note the tab and the trailing space). */
export const STATS_LINE =
  'cpu=0   \tfound=0 invalid=1 insert=0 insert_failed=0 drop=0 early_drop=0 error=0 search_restart=0 clash_resolve=0 chaintoolong=0 ';

export const LIST_SUMMARY_2 = 'conntrack v1.4.7 (conntrack-tools): 2 flow entries have been shown.';
export const EVENT_SUMMARY_6 = 'conntrack v1.4.7 (conntrack-tools): 6 flow events have been shown.';

/** `conntrack -E` with net.netfilter.nf_conntrack_udp_timeout=3: an expired entry's DESTROY has no timeout. */
export const EVENTS_UDP_EXPIRY = [
  '    [NEW] udp      17 3 src=10.0.0.1 dst=10.0.0.2 sport=42000 dport=9999 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=9999 dport=42000',
  '[DESTROY] udp      17 src=10.0.0.1 dst=10.0.0.2 sport=42000 dport=9999 [UNREPLIED] src=10.0.0.2 dst=10.0.0.1 sport=9999 dport=42000',
] as const;
