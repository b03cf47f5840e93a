// The packet path end to end on the lesson's cluster (bench/support/path-fixtures.ts): pod->pod on one node (bridge), pod->pod across nodes (VXLAN), pod->ClusterIP (DNAT, cross node) and NodePort from outside (DNAT+SNAT), each for one hot flow and for 100k flows in random order, against the allocation-free bound of the same frames (bench/support/frame-bound.ts) measured in the same run; plus the JS heap allocated per packet.
//
// One operation sends a 64-byte UDP datagram and runs the simulation until it was delivered, so it covers every hop
// (ARP and conntrack set-up excepted: every flow is sent once before timing). Goals (issue 13): >= 25% of the bound
// for a hot flow, >= 10% over 100k flows, < 64 bytes allocated per packet averaged over 1M packets (allocatedBytes,
// src/cli/bench/measure.ts). `--packets N` changes the allocation count (default 1M; quick: 2k), `--flows N` the
// many-flow count (default 100k; quick: 500).
//
// History (from bench/packet-path.ts, which this suite replaces; us per op under tsx, 2 loaded cores):
//   path                    before (2c61559)   after (slab buffers, cached sysctls, no per-packet closures)
//   veth pair               5.4-8.4            2.4-2.8
//   pod to pod (VXLAN)      16-17.5            10.5-20 (noisy)
//   pod to ClusterIP        20-23              10-17
//   TCP echo round          12.5               6.5
// Under tsx every imported binding is read through a getter and named functions are wrapped (__name): the suites
// run bundled by esbuild instead (bench/run.ts). The old file's heap figure read peak heap over 20k ops, capped by
// the young generation; allocatedBytes sums every GC instead. Before this suite's work the path allocated 1.7-2.2 KB
// per packet and ran at about 3% of the bound (performance-notes.md); docs/performance/packet-path.md has the rest.

import { allocatedBytes } from '../../src/cli/bench/measure.ts';
import type { BenchCase, BenchGoal, BenchMetric } from '../../src/cli/bench/suite.ts';
import { defineSuite } from '../../src/cli/bench/suite.ts';
import { Vxlan } from '../../src/link/vxlan.ts';
import { parseIpv4 } from '../../src/wire/address.ts';
import { type BoundEnds, FrameBound } from '../support/frame-bound.ts';
import {
  flows,
  PATH_TITLES,
  PATHS,
  PAYLOAD_BYTES,
  type PathName,
  pathFixture,
  servicesLesson,
} from '../support/path-fixtures.ts';

const ip = (text: string): number => parseIpv4(text)!;

function boundEnds(path: PathName, outerUdpChecksum: boolean): BoundEnds {
  const fromClient = path === 'nodeport';
  return {
    srcAddr: ip(fromClient ? '172.18.0.100' : '10.244.1.5'),
    dstAddr: ip(
      path === 'bridge'
        ? '10.244.1.9'
        : path === 'vxlan'
          ? '10.244.2.7'
          : path === 'clusterip'
            ? '10.96.40.12'
            : '172.18.0.2',
    ),
    dnatAddr: ip('10.244.2.7'),
    snatAddr: ip('10.244.1.0'),
    dnatPort: 9000,
    outerSrc: ip('172.18.0.2'),
    outerDst: ip('172.18.0.3'),
    outerUdpChecksum,
  };
}

export default defineSuite({
  name: 'packet-path',
  title: 'the packet path on four routes, one hot flow and many, against an allocation-free bound',
  build(options) {
    const quick = options.quick;
    const manyFlows = Number(options.args.flows ?? (quick ? 500 : 100_000));
    const packets = Number(options.args.packets ?? (quick ? 2_000 : 1_000_000));
    const manyLabel = manyFlows >= 1000 ? `${manyFlows / 1000}k flows` : `${manyFlows} flows`;
    const cases: BenchCase[] = [];
    const metrics: BenchMetric[] = [];
    const goals: BenchGoal[] = [];
    for (const path of PATHS) {
      for (const [label, count, seed] of [
        ['1 flow', 1, 1],
        [manyLabel, manyFlows, 2],
      ] as const) {
        options.progress?.(`packet-path: ${path} ${label}`);
        const flowSet = flows(count, seed);
        const lesson = servicesLesson();
        const flannel = lesson.w1.byName('flannel.1');
        const outerChecksum = flannel instanceof Vxlan ? flannel.config.udpChecksum : true;
        const bound = new FrameBound(path, boundEnds(path, outerChecksum), PAYLOAD_BYTES);
        const fixture = pathFixture(path, flowSet, lesson);
        let at = 0;
        const boundName = `${path} bound, ${label}`;
        const pathName = `${path}, ${label}`;
        cases.push({
          name: boundName,
          fn: () => {
            const flow = at;
            at = at + 1 === count ? 0 : at + 1;
            bound.run(flowSet.srcPorts[flow]!, flowSet.dstPorts[flow]!);
          },
        });
        cases.push({ name: pathName, baseline: boundName, fn: fixture.send });
        const target = count === 1 ? 0.25 : 0.1;
        goals.push({
          name: `${PATH_TITLES[path]}, ${label}: >= ${target * 100}% of the bound`,
          value: (results) => results.result(pathName).ratio ?? 0,
          op: '>=',
          target,
        });
        const bytesName = `${path}, ${label}: bytes allocated per packet`;
        metrics.push({ name: bytesName, value: allocatedBytes(fixture.send, packets), unit: 'bytes/packet' });
        goals.push({
          name: `${PATH_TITLES[path]}, ${label}: < 64 bytes allocated per packet`,
          value: (results) => results.metric(bytesName),
          op: '<=',
          target: 64,
        });
      }
    }
    return { cases, metrics, goals };
  },
});
