// The harness checks itself without the kernel: the comparator reports a changed field, a missing frame and a
// changed output line, and stays quiet about what it normalises; the builder refuses commands that could leave
// the sandbox. These run everywhere, root or not.

import { describe, expect, it } from 'vitest';
import { foldSum, pseudoHeaderSum } from '../../src/wire/checksum.ts';
import { ETHERTYPE_IPV4 } from '../../src/wire/ethernet.ts';
import { Icmpv4View } from '../../src/wire/icmpv4.ts';
import { Ipv4View } from '../../src/wire/ipv4.ts';
import { ethernet, ip, mac, tcp } from '../support/frames.ts';
import {
  compareRuns,
  formatComparison,
  normaliseNatPorts,
  normaliseTrace,
  sortSsRows,
  sumConntrackStats,
} from './compare.ts';
import { dissectFrame, TcpSequenceSpaces } from './dissect.ts';
import type { Observed } from './observed.ts';
import { runPacketlab } from './packetlab-driver.ts';
import { ScenarioBuilder } from './scenario.ts';
import { twoHosts } from './topologies.ts';

function baseline(): Observed {
  const scenario = twoHosts('self-test')
    .capture('a', 'veth-a')
    .ping('a', '10.0.0.2', { count: 2, interval: 0.2 })
    .observe('a', 'ip', 'neigh')
    .build();
  return runPacketlab(scenario);
}

/** A copy of `observed` with its first capture's frames replaced. */
function withFrames(observed: Observed, edit: (frames: Uint8Array[]) => Uint8Array[]): Observed {
  const [first, ...rest] = observed.captures;
  const frames = edit(first!.frames.map((frame) => frame.slice()));
  return { ...observed, side: 'linux', captures: [{ ...first!, frames }, ...rest] };
}

/** Two runs that differ only in one observed `conntrack -E` line, as the kernel and packetlab printed it. */
function withEventLines(linuxLine: string, packetlabLine: string): { linux: Observed; packetlab: Observed } {
  const run = baseline();
  const output = (line: string) => ({
    label: 'w1: conntrack -E',
    stdout: `${line}\n`,
    stderr: '',
    exitCode: 0,
  });
  return {
    linux: { ...run, side: 'linux', observe: [output(linuxLine)] },
    packetlab: { ...run, observe: [output(packetlabLine)] },
  };
}

describe('the comparator', () => {
  it("allows conntrack -E's timeout a few seconds of real time, not more", () => {
    const line = (timeout: number) =>
      ` [UPDATE] tcp      6 ${timeout} LAST_ACK src=10.244.1.5 dst=10.96.40.12 sport=41234 dport=80 [ASSURED]`;
    const close = withEventLines(line(29), line(30));
    expect(formatComparison(compareRuns(close.linux, close.packetlab))).toBe('');
    const far = withEventLines(line(20), line(30));
    expect(formatComparison(compareRuns(far.linux, far.packetlab))).toContain('conntrack -E');
  });

  it('sorts conntrack -L by everything but the timeout, so a second of real time does not reorder entries', () => {
    const run = baseline();
    const listing = (lines: string[]) => ({
      label: 'n: conntrack -L',
      stdout: `${lines.join('\n')}\n`,
      stderr: '',
      exitCode: 0,
    });
    const entry = (timeout: number, sport: number) =>
      `tcp      6 ${timeout} TIME_WAIT src=172.18.0.${sport === 30080 ? 3 : 1} dst=172.18.0.1 sport=${sport} dport=5044 [ASSURED] mark=0 use=1`;
    // The kernel read the second entry's timeout a second later: 117 before 118 put it first on the kernel only.
    const kernel = {
      ...run,
      side: 'linux' as const,
      observe: [listing([entry(117, 30080), entry(118, 40000)])],
    };
    const same = { ...run, observe: [listing([entry(120, 40000), entry(120, 30080)])] };
    expect(formatComparison(compareRuns(kernel, same))).toBe('');
    const other = { ...run, observe: [listing([entry(120, 40000), entry(120, 30081)])] };
    expect(formatComparison(compareRuns(kernel, other))).toContain('conntrack -L');
  });

  it('finds nothing between two identical runs', () => {
    const run = baseline();
    expect(formatComparison(compareRuns(run, baseline()))).toBe('');
  });

  it('reports a changed TTL field by field (and the header checksum it breaks)', () => {
    const run = baseline();
    const other = withFrames(run, (frames) => {
      frames[2]![14 + 8] = 1;
      return frames;
    });
    const { unexpected } = compareRuns(other, run);
    expect(unexpected.map((d) => `${d.where} ${d.what} ${d.linux}/${d.packetlab}`)).toEqual([
      'capture a/veth-a #3 ipv4.ttl 1/64',
      expect.stringMatching(/^capture a\/veth-a #3 ipv4\.checksum bad 0x[0-9a-f]+\/valid$/),
    ]);
  });

  it('ignores the IP ID and the echo identifier, and says where a frame is missing', () => {
    const run = baseline();
    const other = withFrames(run, (frames) => {
      const frame = frames[2]!;
      const ip = Ipv4View.unchecked(frame, 14);
      ip.ident ^= 0x5555;
      ip.fillChecksum();
      const icmp = Icmpv4View.unchecked(frame.subarray(0, 14 + ip.totalLen), 14 + ip.headerLen);
      icmp.ident ^= 0x1111;
      icmp.fillChecksum();
      return [...frames.slice(0, 4), ...frames.slice(5)];
    });
    const { unexpected } = compareRuns(other, run);
    expect(unexpected.map((d) => `${d.where} ${d.what}`)).toEqual(['capture a/veth-a #5 only on packetlab']);
  });

  it('compares output line by line after normalising round-trip times', () => {
    const run = baseline();
    const traffic = run.traffic.map((output) => ({
      ...output,
      stdout: output.stdout.replace('time=0.000 ms', 'time=0.123 ms').replace('ttl=64', 'ttl=63'),
    }));
    const { unexpected } = compareRuns({ ...run, traffic }, run);
    expect(unexpected).toEqual([
      {
        where: 'traffic a: ping -n -c 2 -i 0.2 10.0.0.2',
        what: 'stdout line 2',
        linux: '64 bytes from 10.0.0.2: icmp_seq=1 ttl=63 time=T ms',
        packetlab: '64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time=T ms',
      },
    ]);
  });

  it('sums the per-CPU lines of conntrack -S into one', () => {
    const kernel =
      'cpu=0   \tfound=0 invalid=0 insert=0 insert_failed=0 drop=0 early_drop=0 error=0 search_restart=0 clash_resolve=0 chaintoolong=0 \n' +
      'cpu=1   \tfound=0 invalid=1 insert=0 insert_failed=2 drop=2 early_drop=0 error=0 search_restart=0 clash_resolve=0 chaintoolong=0 \n';
    const one =
      'cpu=0   \tfound=0 invalid=1 insert=0 insert_failed=2 drop=2 early_drop=0 error=0 search_restart=0 clash_resolve=0 chaintoolong=0 \n';
    expect(sumConntrackStats('w1: conntrack -S', kernel)).toBe(sumConntrackStats('w1: conntrack -S', one));
    expect(sumConntrackStats('w1: conntrack -S', kernel)).toContain(' insert_failed=2 drop=2 ');
    expect(sumConntrackStats('w1: conntrack -L', kernel)).toBe(kernel);
  });

  it('accepts a known difference only with the pinned packetlab value, and reports stale ones', () => {
    const run = baseline();
    const traffic = run.traffic.map((output) => ({ ...output, exitCode: 7 }));
    const known = { where: /^traffic a: ping/, what: 'exit code', packetlab: '0', reason: 'test' };
    expect(compareRuns({ ...run, traffic }, run, { known: [known] }).unexpected).toEqual([]);
    const pinnedWrong = { ...known, packetlab: '1' };
    const mismatch = compareRuns({ ...run, traffic }, run, { known: [pinnedWrong] });
    expect(mismatch.unexpected).toHaveLength(1);
    expect(mismatch.unused).toEqual([pinnedWrong]);
  });
});

describe('the dissector', () => {
  it('counts a UDP checksum left to the device (the pseudo-header sum) as valid', () => {
    // 10.0.0.1:41234 -> 10.0.0.2:8000 with "test": the checksum field holds the folded pseudo-header sum.
    const frame = new Uint8Array([
      ...[2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00],
      ...[0x45, 0, 0, 32, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2],
      ...[0xa1, 0x12, 0x1f, 0x40, 0, 12, 0, 0, 0x74, 0x65, 0x73, 0x74],
    ]);
    Ipv4View.unchecked(frame, 14).fillChecksum();
    const partial = foldSum(pseudoHeaderSum(0x0a00_0001, 0x0a00_0002, 17, 12));
    frame[40] = partial >> 8;
    frame[41] = partial & 0xff;
    const fields = dissectFrame(frame);
    expect(fields.find((f) => f.name === 'ipv4.checksum')?.value).toBe('valid');
    expect(fields.find((f) => f.name === 'udp.checksum')?.value).toBe('valid');
    expect(fields.find((f) => f.name === 'udp.checksumOffloaded')?.ignored).toMatch(/CHECKSUM_PARTIAL/);
  });
});

describe('ports a NAT chose (natPorts)', () => {
  const normalise = normaliseNatPorts([41234, 9000]);

  it('reads every port outside the fixed list as NAT in UDP peers and conntrack -L, nowhere else', () => {
    expect(
      normalise('client: udp echo 0.0.0.0:9000', 'from 172.18.0.2:41234 "a 1"\nfrom 172.18.0.2:1234 "b 1"\n'),
    ).toBe('from 172.18.0.2:41234 "a 1"\nfrom 172.18.0.2:NAT "b 1"\n');
    expect(
      normalise(
        'w1: conntrack -L',
        'udp 17 30 src=10.244.1.9 dst=172.18.0.100 sport=41234 dport=9000 src=172.18.0.100 dst=172.18.0.2 sport=9000 dport=61000 mark=0 use=1\n',
      ),
    ).toContain('dport=9000 src=172.18.0.100 dst=172.18.0.2 sport=9000 dport=NAT ');
    expect(normalise('w1: ip route', 'default via 10.0.0.1 dev eth0 port 1234\n')).toContain('1234');
  });

  it('masks such ports in frames, so two runs that only differ there compare equal', () => {
    const scenario = twoHosts('nat-ports')
      .capture('a', 'veth-a')
      .udp({
        client: { ns: 'a', bind: '0.0.0.0', port: 41234 },
        server: { ns: 'b', bind: '0.0.0.0', port: 9000 },
        dst: '10.0.0.2',
      })
      .build();
    const run = runPacketlab(scenario);
    const other = withFrames(run, (frames) =>
      frames.map((frame) => {
        // The UDP source port of the request (Ethernet 14 + IPv4 20): 41234 becomes 1234.
        if (frame.length > 42 && frame[23] === 17 && ((frame[34]! << 8) | frame[35]!) === 41234) {
          frame[34] = 1234 >> 8;
          frame[35] = 1234 & 0xff;
        }
        return frame;
      }),
    );
    expect(formatComparison(compareRuns(other, run))).toMatch(/udp\.srcPort/);
    expect(formatComparison(compareRuns(other, run, { natPorts: [9000] }))).not.toMatch(/udp\.srcPort/);
  });
});

describe('nft monitor trace', () => {
  it('renames each run of one trace id in order (a later packet may reuse an id) and hides IP ids, in nft monitor output only', () => {
    const text =
      'trace id 5a62482e ip nat PREROUTING packet: ip id 4137 ip length 35\ntrace id 5a62482e z\ntrace id 0000beef x\ntrace id 5a62482e y\n';
    expect(normaliseTrace('w1: nft monitor trace', text)).toBe(
      'trace id T1 ip nat PREROUTING packet: ip id N ip length 35\ntrace id T1 z\ntrace id T2 x\ntrace id T3 y\n',
    );
    expect(normaliseTrace('w1: nft list ruleset', text)).toBe(text);
  });

  it('starts a new run when a base chain dumps a packet again under the same id (the next packet reused the skb)', () => {
    const text = [
      'trace id 1aca1949 ip debug trace packet: iif "eth0" tcp flags == syn ',
      'trace id 1aca1949 ip debug trace policy accept ',
      'trace id 1aca1949 ip kube-proxy filter-forward packet: iif "eth0" oif "flannel.1" tcp flags == syn ',
      'trace id 1aca1949 ip kube-proxy filter-forward policy accept ',
      'trace id 1aca1949 ip debug trace packet: iif "eth0" tcp flags == ack ',
      'trace id 1aca1949 ip debug trace policy accept ',
      '',
    ].join('\n');
    expect(normaliseTrace('w1: nft monitor trace', text).match(/T\d/g)).toEqual([
      'T1',
      'T1',
      'T1',
      'T1',
      'T2',
      'T2',
    ]);
  });
});

describe('ss rows (sortSsRows)', () => {
  it('compares the rows sorted below the header, for ss only', () => {
    const kernel =
      'State     Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n' +
      'TIME-WAIT 0      0           10.0.0.1:40002    10.0.0.2:22         \n' +
      'TIME-WAIT 0      0           10.0.0.1:40000    10.0.0.2:8080       \n';
    const sorted =
      'State     Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n' +
      'TIME-WAIT 0      0           10.0.0.1:40000    10.0.0.2:8080       \n' +
      'TIME-WAIT 0      0           10.0.0.1:40002    10.0.0.2:22         \n';
    expect(sortSsRows('a: ss -tan', kernel)).toBe(sorted);
    expect(sortSsRows('a: ss -tanH', kernel.split('\n').slice(1).join('\n'))).toBe(
      sorted.split('\n').slice(1).join('\n'),
    );
    expect(sortSsRows('a: ip route', kernel)).toBe(kernel);
    expect(sortSsRows('a: ss -tanH', '')).toBe('');
  });

  it('runs commands while a TCP server listens, before the client connects', () => {
    const scenario = twoHosts('while-listening')
      .tcp({
        client: { ns: 'a', bind: '10.0.0.1', port: 40000 },
        server: { ns: 'b', bind: '0.0.0.0', port: 8080 },
        dst: '10.0.0.2',
        whileListening: [{ ns: 'b', argv: ['ss', '-tln'] }],
      })
      .build();
    const run = runPacketlab(scenario);
    expect(run.traffic.map((o) => o.label)).toEqual([
      'b: ss -tln',
      'a: tcp send 10.0.0.1:40000 -> 10.0.0.2:8080 x1',
      'b: tcp echo 0.0.0.0:8080',
    ]);
    expect(run.traffic[0]!.stdout).toContain('LISTEN 0      511          0.0.0.0:8080');
  });
});

describe('the scenario builder keeps commands inside the sandbox', () => {
  const b = new ScenarioBuilder('safety').namespace('a').namespace('b');
  it.each([
    ['a plain namespace name after netns', () => b.run('a', 'ip', 'link', 'set', 'x', 'netns', 'b')],
    ['ip netns', () => b.run('a', 'ip', 'netns', 'exec', 'b', 'ip', 'link')],
    ['ip -n NAME', () => b.run('a', 'ip', '-n', 'b', 'link')],
    ['a program outside the list', () => b.run('a', 'sh', '-c', 'true')],
    ['ss -N NAME', () => b.run('a', 'ss', '-tN', 'b')],
    ['ss --net NAME', () => b.run('a', 'ss', '--net=b')],
    ['ss -K', () => b.observe('a', 'ss', '-K')],
    ['ss -D FILE', () => b.observe('a', 'ss', '-tD', '/tmp/x')],
    [
      'a namespace word for an unknown namespace',
      () => b.command('a', ['ip', 'link', 'set', 'x', 'netns', { ns: 'c' }]),
    ],
  ])('refuses %s', (_name, build) => {
    expect(build).toThrow();
  });

  it('gives every device an explicit, distinct MAC', () => {
    const scenario = new ScenarioBuilder('macs')
      .namespace('a')
      .namespace('b')
      .veth('a', 'x', 'b', 'y')
      .bridge('a', 'br0')
      .build();
    const macs = scenario.setup.filter((c) => c.argv.includes('address')).map((c) => c.argv.at(-1));
    expect(macs).toEqual(['02:70:6c:00:00:01', '02:70:6c:00:00:02', '02:70:6c:00:00:03']);
  });
});

describe('TCP sequence spaces', () => {
  const A = ip('10.0.0.1');
  const B = ip('10.0.0.2');
  const frame = (
    src: number,
    dst: number,
    seq: number,
    ack: number,
    flags: Parameters<typeof tcp>[0]['flags'],
  ) =>
    ethernet(
      { dst: mac('02:00:00:00:00:02'), src: mac('02:00:00:00:00:01'), ethertype: ETHERTYPE_IPV4 },
      tcp({
        src,
        dst,
        srcPort: src === A ? 40000 : 8080,
        dstPort: src === A ? 8080 : 40000,
        seq,
        ack,
        flags,
      }),
    );
  const handshake = (isnA: number, isnB: number, ackOfSynAck = isnB + 1) => [
    frame(A, B, isnA, 0, { syn: true }),
    frame(B, A, isnB, isnA + 1, { syn: true, ack: true }),
    frame(A, B, isnA + 1, ackOfSynAck, { ack: true }),
  ];
  const fieldsOf = (frames: Uint8Array[]) => {
    const spaces = new TcpSequenceSpaces();
    return frames.map((f) =>
      dissectFrame(f, spaces)
        .filter((field) => /tcp\.(seq|ack)$/.test(field.name))
        .map((field) => `${field.name}=${field.value}`)
        .join(' '),
    );
  };

  it('reads random initial sequence numbers as their place in a space, so two handshakes compare equal', () => {
    expect(fieldsOf(handshake(0x12345678, 0xfffffff0))).toEqual(fieldsOf(handshake(7, 0x80000000)));
    expect(fieldsOf(handshake(7, 0x80000000))).toEqual([
      'tcp.seq=I1+0 tcp.ack=0',
      'tcp.seq=I2+0 tcp.ack=I1+1',
      'tcp.seq=I1+1 tcp.ack=I2+1',
    ]);
  });

  it('still tells a wrong acknowledgement apart, and keeps numbers outside any space absolute', () => {
    expect(fieldsOf(handshake(7, 0x80000000, 0x80000002))[2]).toBe('tcp.seq=I1+1 tcp.ack=I2+2');
    expect(fieldsOf([frame(B, A, 0, 1001, { rst: true, ack: true })])).toEqual(['tcp.seq=0 tcp.ack=1001']);
  });
});

describe('HTTP conversations in the comparator', () => {
  const scenario = twoHosts('self-http')
    .capture('a', 'veth-a')
    .http({
      server: { ns: 'b', bind: '10.0.0.2', port: 8000 },
      client: 'a',
      curl: ['-s', 'http://10.0.0.2:8000/cinq'],
    })
    .build();

  it('blanks the Date value of a response head and keeps it, ignored, beside the payload', () => {
    const run = runPacketlab(scenario);
    const flows = new TcpSequenceSpaces();
    const heads = run.captures[0]!.frames.map((frame) => dissectFrame(frame, flows)).filter((fields) =>
      fields.some((f) => f.name === 'tcp.httpDate'),
    );
    expect(heads).toHaveLength(1);
    const fields = heads[0]!;
    expect(fields.find((f) => f.name === 'tcp.httpDate')).toMatchObject({
      value: 'Thu, 01 Jan 1970 00:00:00 GMT',
      ignored: expect.stringContaining('Date'),
    });
    const payload = fields.find((f) => f.name === 'tcp.payload')!.value;
    expect(payload).toContain(
      Buffer.from('\r\nDate: DDDDDDDDDDDDDDDDDDDDDDDDDDDDD\r\n', 'latin1').toString('hex'),
    );
  });

  it('compares TCP byte streams: equal runs agree, one changed body byte is reported by direction', () => {
    const run = runPacketlab(scenario);
    const streams = { tcpStreams: ['a/veth-a'] };
    expect(formatComparison(compareRuns(run, runPacketlab(scenario), streams))).toBe('');
    const other = withFrames(run, (frames) => {
      const data = frames.find((frame) => frame.length > 1000)!;
      data[data.length - 1] ^= 1;
      return frames;
    });
    expect(compareRuns(other, run, streams).unexpected.map((d) => `${d.where} ${d.what}`)).toEqual([
      'capture a/veth-a (streams) conn 1 server->client payload',
    ]);
  });
});

describe('the http step in the builder', () => {
  const server = { ns: 'b', bind: '10.0.0.2', port: 8000 } as const;
  it.for([['-o', 'x.html'], ['-O'], ['-sK', 'cfg'], ['--trace', 't'], ['-d', '@body']])(
    'refuses curl %s (a file on the kernel side)',
    (args) => {
      expect(() =>
        twoHosts('curl-files').http({ server, client: 'a', curl: [...args, 'http://10.0.0.2:8000/'] }),
      ).toThrow(/reads or writes a file/);
    },
  );
  it('allows -o /dev/null', () => {
    expect(() =>
      twoHosts('curl-null').http({ server, client: 'a', curl: ['-o', '/dev/null', 'http://10.0.0.2:8000/'] }),
    ).not.toThrow();
  });
});
