// The story's recorders (--pcap, --trace, --mermaid, --metrics): the capture holds what taps on every device see,
// with tcpdump -i any's ifindex and packet type; nft trace lines appear with nftrace; the diagram and the
// metrics are well-formed and deterministic; recording changes nothing the story prints.

import { describe, expect, it } from 'vitest';
import { lessonStory } from '../../scenarios/lesson-cases-1-2.ts';
import { runTwoNamespaces } from '../../scenarios/two-namespaces.ts';
import { LINKTYPE_LINUX_SLL2, readPcap } from '../../src/capture/pcap.ts';
import { lessonTopology } from '../../src/k8s/lesson.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import { frameLabel } from '../../src/story/mermaid.ts';
import { recordStories } from '../../src/story/recorder.ts';
import { Story, transcript } from '../../src/story/story.ts';
import { execOrThrow } from '../../src/tools/exec.ts';

function pair(seed: string) {
  const sim = new Simulation({ seed });
  const a = sim.addNamespace('a');
  const b = sim.addNamespace('b');
  execOrThrow(a, 'ip link add veth-a type veth peer name veth-b netns b');
  execOrThrow(a, 'ip addr add 10.0.0.1/24 dev veth-a');
  execOrThrow(b, 'ip addr add 10.0.0.2/24 dev veth-b');
  execOrThrow(a, 'ip link set veth-a up');
  execOrThrow(b, 'ip link set veth-b up');
  return { sim, a, b };
}

describe('story recorders', () => {
  it('record nothing and change nothing outside recordStories', () => {
    const plain = runTwoNamespaces('r').story;
    const recorded = recordStories({ pcap: true, mermaid: true, metrics: true }, () => runTwoNamespaces('r'));
    expect(recorded.value.story).toEqual(plain);
    expect(recorded.recordings).toHaveLength(1);
    const lesson = lessonStory('bridge', 'vxlan', 'r');
    expect(
      recordStories({ pcap: true, metrics: true }, () => lessonStory('bridge', 'vxlan', 'r')).value,
    ).toEqual(lesson);
  });

  it('captures every frame the taps of every device see, with its ifindex and packet type', () => {
    const { value, recordings } = recordStories({ pcap: true }, () => {
      const lesson = lessonTopology({ pods: 'bridge', nodes: 'vxlan', seed: 'taps' });
      const story = new Story('taps', 'taps');
      story.attach(lesson.sim);
      const seen: { ifindex: number; type: number }[] = [];
      for (const ns of lesson.sim.allNamespaces())
        for (const dev of ns.all())
          dev.taps.push((d, pkt, direction) => {
            if (direction === 'tx' && d.kind === 'loopback') return;
            seen.push({ ifindex: d.ifindex, type: direction === 'tx' ? 4 : pkt.pktType });
          });
      story.run('$', lesson.diag, 'ping -c 1 10.244.1.9');
      story.run('$', lesson.diag, 'ping -c 1 10.244.2.7');
      story.result();
      return seen;
    });
    const read = readPcap(recordings[0]!.pcap!);
    if (!read.ok) throw new Error(read.message);
    expect(read.file.linkType).toBe(LINKTYPE_LINUX_SLL2);
    expect(read.file.resolution).toBe('micro');
    const records = read.file.records.map((record) => ({
      ifindex: new DataView(record.data.buffer, record.data.byteOffset).getUint32(4),
      type: record.data[10]!,
    }));
    expect(value.length).toBeGreaterThan(30);
    expect(records).toEqual(value);
    // Host, broadcast (ARP), other-host (bridged frames on cni0's ports are not for the bridge) and outgoing.
    expect(new Set(records.map((record) => record.type))).toEqual(new Set([0, 1, 3, 4]));
  });

  it('adds path-trace lines, and nft monitor trace lines of a namespace made after attach', () => {
    const { value, recordings } = recordStories({ trace: true, pcap: true }, () => {
      const sim = new Simulation({ seed: 't' });
      const story = new Story('trace', 't');
      story.attach(sim);
      const a = sim.addNamespace('a');
      const b = sim.addNamespace('b');
      execOrThrow(a, 'ip link add veth-a type veth peer name veth-b netns b');
      execOrThrow(a, 'ip addr add 10.0.0.1/24 dev veth-a');
      execOrThrow(b, 'ip addr add 10.0.0.2/24 dev veth-b');
      execOrThrow(a, 'ip link set veth-a up');
      execOrThrow(b, 'ip link set veth-b up');
      execOrThrow(b, 'nft add table ip debug');
      execOrThrow(b, "nft 'add chain ip debug pre { type filter hook prerouting priority -301; }'");
      execOrThrow(b, 'nft add rule ip debug pre icmp type echo-request meta nftrace set 1');
      story.run('$', a, 'ping -c 1 10.0.0.2');
      return transcript(story.result());
    });
    expect(value.slice(0, 2)).toEqual([
      '$ ping -c 1 10.0.0.2',
      'PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data.',
    ]);
    expect(value).toContain(
      '0.000000000 a            veth-a      ip_local_out           10.0.0.1->10.0.0.2(icmp)',
    );
    const nft = value.filter((line) => line.includes(' trace id '));
    expect(nft.length).toBeGreaterThanOrEqual(2);
    expect(nft.every((line) => /^0\.000000000 b {12}trace id [0-9a-f]{8} ip debug pre /.test(line))).toBe(
      true,
    );
    expect(nft.some((line) => line.includes('rule icmp type echo-request meta nftrace set 1'))).toBe(true);
    // The devices made after attach are in the capture too: ARP and the echo, out of a and into b, both ways.
    const read = readPcap(recordings[0]!.pcap!);
    expect(read.ok && read.file.records.length).toBe(8);
  });

  it('draws one arrow per frame received over a veth, participants in order of appearance', () => {
    const { recordings } = recordStories({ mermaid: true }, () => runTwoNamespaces('m'));
    const lines = recordings[0]!.mermaid!.trimEnd().split('\n');
    expect(lines.slice(0, 5)).toEqual([
      'sequenceDiagram',
      '    participant n1 as a',
      '    participant n2 as b',
      '    n1->>n2: ARP who-has 10.0.0.2 tell 10.0.0.1',
      '    n2->>n1: ARP 10.0.0.2 is-at',
    ]);
    expect(lines.slice(5)).toEqual([
      '    n1->>n2: ICMP 10.0.0.1 → 10.0.0.2 echo request',
      '    n2->>n1: ICMP 10.0.0.2 → 10.0.0.1 echo reply',
      '    n1->>n2: ICMP 10.0.0.1 → 10.0.0.2 echo request',
      '    n2->>n1: ICMP 10.0.0.2 → 10.0.0.1 echo reply',
    ]);
    expect(recordStories({ mermaid: true }, () => runTwoNamespaces('m')).recordings[0]!.mermaid).toBe(
      recordings[0]!.mermaid,
    );
  });

  it('labels TCP with its ports and flags, UDP to 8472 as VXLAN', () => {
    const frame = new Uint8Array(14 + 20 + 20);
    frame.set([0x08, 0x00], 12);
    frame.set([0x45, 0, 0, 40, 0, 0, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2], 14);
    frame.set([0xa0, 0x12, 0x00, 0x50], 34);
    frame[34 + 13] = 0x12;
    expect(frameLabel(frame)).toBe('TCP 10.0.0.1:40978 → 10.0.0.2:80 [SYN,ACK]');
    frame[23] = 17;
    frame.set([0x21, 0x18], 36);
    expect(frameLabel(frame)).toBe('UDP 10.0.0.1:40978 → 10.0.0.2:8472 VXLAN');
  });

  it('writes node_exporter families once each, samples in time order, the last at the end', () => {
    const { recordings } = recordStories({ metrics: true }, () => {
      const { sim, a } = pair('p');
      const story = new Story('metrics', 'p');
      story.attach(sim);
      story.run('$', a, 'ping -c 3 10.0.0.2');
      return story.result();
    });
    const text = recordings[0]!.metrics!;
    const lines = text.trimEnd().split('\n');
    const types = lines.filter((line) => line.startsWith('# TYPE '));
    expect(new Set(types).size).toBe(types.length);
    expect(types).toContain('# TYPE node_network_receive_packets_total counter');
    expect(types).toContain('# TYPE node_nf_conntrack_entries gauge');
    expect(lines).toContain('# HELP node_network_receive_drop_total Network device statistic receive_drop.');
    expect(lines).toContain(
      '# HELP node_nf_conntrack_entries_limit Maximum size of connection tracking table.',
    );
    const sample = /^([a-z_]+)\{([a-z]+="[^"]*"(?:,[a-z]+="[^"]*")*)\} (\d+) (\d+)$/;
    const series = new Map<string, { value: number; time: number }[]>();
    for (const line of lines.filter((l) => !l.startsWith('#'))) {
      const match = sample.exec(line);
      expect(match, line).not.toBeNull();
      const key = `${match![1]}{${match![2]}}`;
      series.set(key, [...(series.get(key) ?? []), { value: Number(match![3]), time: Number(match![4]) }]);
    }
    const tx = series.get('node_network_transmit_packets_total{device="veth-a",node="a"}')!;
    // At attach, within each second of the ping (0 s, 1 s, 2 s), and at the end: ARP + 3 requests sent.
    expect(tx.map((s) => s.time)).toEqual([0, 1000, 2000]);
    expect(tx.at(-1)!.value).toBe(4);
    for (const samples of series.values())
      for (let i = 1; i < samples.length; i++) expect(samples[i]!.time).toBeGreaterThan(samples[i - 1]!.time);
    expect(series.get('node_nf_conntrack_entries_limit{node="b"}')!.at(-1)!.value).toBeGreaterThan(0);
  });
});
