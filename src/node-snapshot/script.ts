// The POSIX shell script `packetlab snapshot` prints: run as root on a real node, it writes one snapshot file
// (format.ts reads it; docs/snapshot.md describes it) with the output of ip, iptables-save, nft, ipset and the
// sysctls that matter, each in its own section, a missing tool recorded as status 127. It needs only sh, awk and
// tr besides the tools it asks; it changes nothing on the node. Not collected: IPv6 state, tc, conntrack entries.

/** The sections the script writes, in order: their names and the command each runs. */
export const SNAPSHOT_COMMANDS: readonly (readonly [name: string, command: string])[] = [
  ['uname', 'uname -nr'],
  ['ip-addr', 'ip -d -j addr'],
  ['ip-link', 'ip -d -j link'],
  ['ip-route', 'ip -j route show table all'],
  ['ip-rule', 'ip -j rule'],
  ['ip-neigh', 'ip -j neigh'],
  ['iptables-save', 'iptables-save -c'],
  ['nft-json', 'nft -j list ruleset'],
  ['nft', 'nft list ruleset'],
  ['ipset', 'ipset save'],
];

/** Namespace-wide sysctls the rebuild applies (those a packet's path depends on). */
export const SNAPSHOT_SYSCTLS: readonly string[] = [
  'net.ipv4.ip_forward',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.ip_default_ttl',
  'net.ipv4.ip_no_pmtu_disc',
  'net.ipv4.icmp_echo_ignore_all',
  'net.ipv4.tcp_timestamps',
  'net.ipv4.tcp_tw_reuse',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.tcp_window_scaling',
  'net.ipv4.tcp_sack',
  'net.bridge.bridge-nf-call-iptables',
  'net.bridge.bridge-nf-call-arptables',
  'net.netfilter.nf_conntrack_max',
  'net.netfilter.nf_conntrack_tcp_loose',
  'net.netfilter.nf_conntrack_tcp_be_liberal',
];

/** Per-interface sysctls (net.ipv4.conf.DEV.KEY), read for all, default and every interface. */
export const SNAPSHOT_DEVICE_SYSCTLS: readonly string[] = [
  'forwarding',
  'rp_filter',
  'route_localnet',
  'accept_local',
  'arp_ignore',
  'arp_announce',
  'proxy_arp',
];

/** The script's text, as `packetlab snapshot` prints it. */
export function snapshotScript(): string {
  const runs = SNAPSHOT_COMMANDS.map(([name, command]) => `section ${name} ${command}`).join('\n');
  return `#!/bin/sh
# packetlab snapshot: collects this node's network state into one file for \`packetlab node FILE\` and
# \`packetlab trace FILE '...'\`. Run it as root on the node:   sh snapshot.sh > node.snapshot
# (or: sh snapshot.sh node.snapshot). It only reads: ip, iptables-save, nft, ipset and /proc/sys.
# A missing tool is recorded (status 127) and the next section follows.
set -u
umask 077
if [ "$#" -gt 0 ]; then exec >"$1"; fi
tmp="\${TMPDIR:-/tmp}/packetlab-snapshot.$$"
trap 'rm -f "$tmp.out" "$tmp.err"' EXIT INT TERM

# section NAME COMMAND...: one header line, the command's output lines after '|', its errors after '!', its status.
section() {
  name=$1
  shift
  printf 'section %s %s\\n' "$name" "$*"
  if ! command -v "$1" >/dev/null 2>&1; then
    printf '!%s: not found\\nstatus 127\\n' "$1"
    return
  fi
  "$@" >"$tmp.out" 2>"$tmp.err"
  status=$?
  awk '{ print "|" $0 }' "$tmp.out"
  awk '{ print "!" $0 }' "$tmp.err"
  printf 'status %s\\n' "$status"
}

# sysctl_line KEY: 'KEY = VALUE' from /proc/sys (tabs as spaces, as sysctl prints them), or KEY missing.
sysctl_line() {
  file=/proc/sys/$(printf '%s' "$1" | tr . /)
  if [ -r "$file" ]; then
    printf '|%s = %s\\n' "$1" "$(tr '\\t' ' ' <"$file")"
  else
    printf '!%s: missing\\n' "$1"
  fi
}

printf 'packetlab-snapshot 1\\n'
${runs}
printf 'section sysctl /proc/sys\\n'
for key in ${SNAPSHOT_SYSCTLS.join(' ')}; do
  sysctl_line "$key"
done
for dir in /proc/sys/net/ipv4/conf/*; do
  dev=\${dir##*/}
  for key in ${SNAPSHOT_DEVICE_SYSCTLS.join(' ')}; do
    sysctl_line "net.ipv4.conf.$dev.$key"
  done
done
printf 'status 0\\n'
printf 'end\\n'
`;
}
