// The issue-12 iptables extensions evaluated on real packets: -m owner on the credentials of the sending socket,
// -m socket and -j TPROXY handing a forwarded connection to a transparent local listener, -m physdev on the ports
// br_netfilter records, -j TCPMSS rewriting the SYN's MSS (and its checksum), CONNMARK's masks.

import { describe, expect, it } from 'vitest';
import type { TcpSocket } from '../../../src/socket/tcp/socket.ts';
import { exec, execOrThrow as must } from '../../../src/tools/exec.ts';
import { formatIpv4, parseIpv4 } from '../../../src/wire/address.ts';
import { Ipv4View } from '../../../src/wire/ipv4.ts';
import { TcpView } from '../../../src/wire/tcp.ts';
import {
  flags,
  iptables,
  lab,
  rawTcp,
  rulePackets,
  rx,
  SEC,
  select,
  sendRaw,
  sendUdp,
  tap,
  tcp,
} from './support.ts';

const B = parseIpv4('10.0.2.1')!;

/** The MSS option of a TCP segment in an Ethernet frame (undefined: none), and whether its checksums hold. */
function synOf(frame: Uint8Array): {
  mss: number | undefined;
  tcpOk: boolean;
  ipOk: boolean;
  totalLen: number;
} {
  const ip = Ipv4View.checked(frame, 14);
  if (!(ip instanceof Ipv4View)) throw new Error('not IPv4');
  const at = 14 + ip.headerLen;
  const segment = TcpView.checked(frame.subarray(0, 14 + ip.totalLen), at);
  if (!(segment instanceof TcpView)) throw new Error('not TCP');
  let mss: number | undefined;
  for (let i = at + 20; i < at + segment.headerLen; ) {
    const kind = frame[i]!;
    if (kind === 0) break;
    if (kind === 1) {
      i++;
      continue;
    }
    if (kind === 2) mss = (frame[i + 2]! << 8) | frame[i + 3]!;
    i += frame[i + 1]!;
  }
  return {
    mss,
    tcpOk: segment.verifyChecksum({ srcAddr: ip.srcAddr, dstAddr: ip.dstAddr }),
    ipOk: ip.verifyChecksum(),
    totalLen: ip.totalLen,
  };
}

describe('-m owner: the credentials of the socket that sent the packet', () => {
  it("counts uid, gid and socket-exists on OUTPUT; ping's socket is root's", () => {
    const l = lab('owner');
    iptables(
      l.a,
      'iptables -A OUTPUT -p tcp --dport 80 -m owner --uid-owner 1337 -j ACCEPT',
      'iptables -A OUTPUT -p tcp --dport 80 -m owner ! --uid-owner 1337',
      'iptables -A OUTPUT -p udp -m owner --uid-owner 1000-2000 --gid-owner 5',
      'iptables -A OUTPUT -p icmp -m owner --uid-owner 0 --socket-exists',
      'iptables -A OUTPUT -p udp -m owner --socket-exists',
    );
    l.a.tcp.connect({ dst: B, dstPort: 80, uid: 1337 });
    l.a.tcp.connect({ dst: B, dstPort: 80, srcPort: 40001 });
    sendUdp(l.a, '10.0.2.1');
    l.a.udp.send({ dst: B, dstPort: 53, srcPort: 40002, payload: new Uint8Array(4), uid: 1500, gid: 5 });
    l.sim.run(SEC);
    exec(l.a, 'ping -c 1 10.0.2.1');
    // Both SYNs reach b, which has no listener: a gets two RSTs and sends nothing back (a RST is not answered).
    // The two SYNs, then the UDP datagram of uid 1500/gid 5, then the ping's echo request, then both datagrams.
    expect(rulePackets(l.a, 'filter', 'OUTPUT')).toEqual([1, 1, 1, 1, 2]);
  });

  it('is refused outside OUTPUT and POSTROUTING, as the kernel refuses xt_owner there', () => {
    const l = lab('owner-hooks');
    const result = exec(l.a, 'iptables -A INPUT -m owner --uid-owner 1 -j ACCEPT');
    expect(result.exitCode).toBe(4);
    expect(result.stderr).toBe(
      'iptables v1.8.9 (nf_tables):  RULE_APPEND failed (Invalid argument): rule in chain INPUT\n',
    );
  });
});

/** r intercepts a's connections to b:80 for its own transparent listener on 15001 (the TPROXY recipe). */
function tproxyLab(transparent: boolean) {
  const l = lab(`tproxy-${transparent}`);
  iptables(
    l.r,
    'iptables -t mangle -N DIVERT',
    'iptables -t mangle -A PREROUTING -p tcp -m socket --transparent -j DIVERT',
    'iptables -t mangle -A PREROUTING -p tcp --dport 80 -j TPROXY --on-port 15001 --tproxy-mark 0x200/0xf00',
    'iptables -t mangle -A DIVERT -j MARK --set-xmark 0x200/0xf00',
    'iptables -t mangle -A DIVERT -j ACCEPT',
  );
  must(l.r, 'ip rule add fwmark 0x200/0xf00 lookup 100');
  must(l.r, 'ip route add local 0.0.0.0/0 dev lo table 100');
  const accepted: TcpSocket[] = [];
  l.r.tcp.listen(0, 15001, (socket) => accepted.push(socket), { transparent });
  const atB = tap(l.b, 'eth0');
  const client = l.a.tcp.connect({ dst: B, dstPort: 80 });
  if (!client.ok) throw new Error('connect failed');
  l.sim.run(SEC);
  return { l, accepted, atB, client: client.socket };
}

describe('-j TPROXY and -m socket: a forwarded connection taken by a transparent local listener', () => {
  it('the SYN goes to the listener with its mark bits set; the connection keeps b:80 as its local end', () => {
    const { l, accepted, atB, client } = tproxyLab(true);
    expect(accepted.map((s) => `${formatIpv4(s.localAddr)}:${s.localPort}`)).toEqual(['10.0.2.1:80']);
    expect(client.state).toBe('ESTABLISHED');
    expect(select(atB, rx, tcp())).toEqual([]);
    // The SYN met TPROXY; the handshake's ACK found the connection with -m socket --transparent.
    expect(rulePackets(l.r, 'mangle', 'PREROUTING')).toEqual([1, 1]);
    expect(rulePackets(l.r, 'mangle', 'DIVERT')).toEqual([1, 1]);
  });

  it('a listener without IP_TRANSPARENT does not take it: TPROXY drops the SYN', () => {
    const { l, accepted, atB } = tproxyLab(false);
    expect(accepted).toEqual([]);
    expect(select(atB, rx, tcp())).toEqual([]);
    expect(l.r.ipv4.drops.get('NETFILTER_DROP')).toBeGreaterThanOrEqual(1);
    expect(rulePackets(l.r, 'mangle', 'PREROUTING')[0]).toBe(0);
  });
});

describe('-j TPROXY for UDP: a DNS query for b taken by a transparent socket on r', () => {
  it('reaches the socket bound to 15419 with its original destination; b never sees it', () => {
    const l = lab('tproxy-udp');
    iptables(
      l.r,
      'iptables -t mangle -A PREROUTING -p udp --dport 53 -j TPROXY --on-port 15419 --tproxy-mark 0x200/0xf00',
    );
    must(l.r, 'ip rule add fwmark 0x200/0xf00 lookup 100');
    must(l.r, 'ip route add local 0.0.0.0/0 dev lo table 100');
    const got: string[] = [];
    l.r.udp.bind(
      0,
      15419,
      (d) => got.push(`${formatIpv4(d.srcAddr)} > ${formatIpv4(d.dstAddr)}:${d.dstPort}`),
      undefined,
      undefined,
      {
        transparent: true,
      },
    );
    const atB = tap(l.b, 'eth0');
    sendUdp(l.a, '10.0.2.1');
    l.sim.run(SEC);
    expect(got).toEqual(['10.0.1.1 > 10.0.2.1:53']);
    expect(select(atB, rx)).toEqual([]);
    expect(rulePackets(l.r, 'mangle', 'PREROUTING')).toEqual([1]);
  });
});

describe('-m physdev: the bridge ports of a bridged frame (br_netfilter)', () => {
  it('matches in and out ports and is-bridged on FORWARD; frames routed to the host match only is-in', () => {
    const l = lab('physdev');
    const host = l.sim.addNamespace('h');
    const p1 = l.sim.addNamespace('p1');
    const p2 = l.sim.addNamespace('p2');
    must(host, 'ip link add br0 type bridge');
    for (const [ns, port, addr] of [
      [p1, 'veth1', '10.9.0.1'],
      [p2, 'veth2', '10.9.0.2'],
    ] as const) {
      must(ns, `ip link add eth0 type veth peer name ${port} netns h`);
      must(ns, `ip addr add ${addr}/24 dev eth0`);
      must(ns, 'ip link set eth0 up');
      must(host, `ip link set ${port} master br0`);
      must(host, `ip link set ${port} up`);
    }
    must(host, 'ip addr add 10.9.0.254/24 dev br0');
    must(host, 'ip link set br0 up');
    must(host, 'sysctl -w net.bridge.bridge-nf-call-iptables=1');
    iptables(
      host,
      'iptables -A FORWARD -m physdev --physdev-in veth1 --physdev-out veth2 -j ACCEPT',
      'iptables -A FORWARD -m physdev --physdev-is-bridged ! --physdev-out veth+',
      'iptables -A FORWARD -m physdev --physdev-in veth2 --physdev-is-bridged',
      'iptables -A INPUT -m physdev --physdev-in veth1',
      'iptables -A INPUT -m physdev --physdev-is-out',
      'iptables -A INPUT -m physdev ! --physdev-is-bridged',
    );
    sendUdp(p1, '10.9.0.2');
    sendUdp(p1, '10.9.0.254', { dport: 9 });
    l.sim.run(SEC);
    // p1 → p2 is bridged (veth1 in, veth2 out), and so is the port unreachable p2 answers with (veth2 in).
    expect(rulePackets(host, 'filter', 'FORWARD')).toEqual([1, 0, 1]);
    expect(rulePackets(host, 'filter', 'INPUT')).toEqual([1, 0, 1]);
  });
});

describe("-j TCPMSS: the SYN's MSS lowered, the checksum kept right", () => {
  it('--set-mss lowers the option of a forwarded SYN and never raises it', () => {
    const l = lab('tcpmss-set');
    iptables(l.r, 'iptables -t mangle -A FORWARD -p tcp --tcp-flags SYN,RST SYN -j TCPMSS --set-mss 1000');
    l.b.tcp.listen(0, 80, () => {});
    l.a.tcp.connect({ dst: B, dstPort: 80 });
    l.sim.run(SEC);
    const syns = select(l.atB, rx, tcp(flags('S')));
    const synAcks = select(l.atA, rx, tcp(flags('S.')));
    expect(syns.map((seen) => synOf(seen.frame))).toEqual([
      { mss: 1000, tcpOk: true, ipOk: true, totalLen: 60 },
    ]);
    expect(synAcks.map((seen) => synOf(seen.frame).mss)).toEqual([1000]);
  });

  it('--clamp-mss-to-pmtu takes the smaller MTU of the routes both ways', () => {
    const l = lab('tcpmss-clamp');
    must(l.r, 'ip route replace 10.0.2.0/24 dev to-b mtu 1400');
    iptables(
      l.r,
      'iptables -t mangle -A FORWARD -p tcp --tcp-flags SYN,RST SYN -j TCPMSS --clamp-mss-to-pmtu',
    );
    l.b.tcp.listen(0, 80, () => {});
    l.a.tcp.connect({ dst: B, dstPort: 80 });
    l.sim.run(SEC);
    expect(select(l.atB, rx, tcp(flags('S'))).map((seen) => synOf(seen.frame).mss)).toEqual([1360]);
  });

  it('adds the option, at most 536, to a SYN without one; the IP length and both checksums follow', () => {
    const l = lab('tcpmss-add');
    iptables(l.r, 'iptables -A FORWARD -p tcp --syn -j TCPMSS --set-mss 1200');
    sendRaw(l.a, rawTcp({ flags: 'S', dport: 81 }));
    l.sim.run(SEC);
    expect(select(l.atB, rx, tcp(flags('S'))).map((seen) => synOf(seen.frame))).toEqual([
      { mss: 536, tcpOk: true, ipOk: true, totalLen: 44 },
    ]);
  });
});
