import { it } from 'vitest';
import { runLinux } from '../../test/linux/linux-driver.ts';
import { segmentLadder } from '../../test/linux/tcp-segments.ts';
import { twoHosts } from '../../test/linux/topologies.ts';
it('dbgk', async () => {
  const scenario = twoHosts('tcp-bulk-64k').capture('a', 'veth-a')
    .tcp({ client: { ns: 'a', bind: '10.0.0.1', port: 40000 }, server: { ns: 'b', bind: '0.0.0.0', port: 8080 }, dst: '10.0.0.2', bytes: Number(process.env.SIZE ?? 65536), readAfterMs: Number(process.env.RA ?? 300), timeoutMs: 2000 })
    .build();
  for (let i = 0; i < Number(process.env.RUNS ?? 1); i++) {
    const r = await runLinux(scenario);
    const l = segmentLadder(r.captures[0]!.frames);
    console.log(l.segments.filter((s) => s.startsWith('8080')).length, l.retransmissions.join(' | '));
    if (process.env.N) console.log(l.segments.slice(0, Number(process.env.N)).join('\n'));
  }
}, 120000);
