import { it } from 'vitest';
import { runPacketlab } from '../../test/linux/packetlab-driver.ts';
import { segmentLadder } from '../../test/linux/tcp-segments.ts';
import { twoHosts } from '../../test/linux/topologies.ts';
it('dbg', () => {
  const scenario = twoHosts('tcp-bulk-64k').capture('a', 'veth-a')
    .tcp({ client: { ns: 'a', bind: '10.0.0.1', port: 40000 }, server: { ns: 'b', bind: '0.0.0.0', port: 8080 }, dst: '10.0.0.2', bytes: Number(process.env.SIZE ?? 65536), readAfterMs: Number(process.env.RA ?? 300), timeoutMs: 2000 })
    .build();
  const r = runPacketlab(scenario);
  const l = segmentLadder(r.captures[0]!.frames);
  console.log(l.segments.slice(0, Number(process.env.N ?? 200)).join('\n'));
  console.log(r.traffic.map((o) => o.stdout).join(''));
});
