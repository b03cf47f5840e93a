import { writeFileSync } from 'node:fs';
import { it } from 'vitest';
import { requireKernel } from './harness.ts';
import { runLinux } from './linux-driver.ts';
import type { Observed } from './observed.ts';
import { runPacketlab } from './packetlab-driver.ts';
import { segmentLadder } from './tcp-segments.ts';
import { twoHosts } from './topologies.ts';

const CLIENT = { ns: 'a', bind: '10.0.0.1', port: 40000 } as const;
const SERVER = { ns: 'b', bind: '0.0.0.0', port: 8080 } as const;
function dump(side: Observed, file: string) {
  const c = side.captures[0]!;
  const l = segmentLadder(c.frames);
  const t0 = c.timesNs?.[0] ?? 0;
  writeFileSync(file, `${l.segments.join('\n')}\n--rtx\n${l.retransmissions.join('\n')}\n`);
}
it('probe', async (ctx) => {
  const runs = Number(process.env.RUNS ?? 1);
  const scenario = twoHosts('tcp-bulk-1m')
    .capture('a', 'veth-a')
    .tcp({ client: CLIENT, server: SERVER, dst: '10.0.0.2', bytes: 1 << 20, timeoutMs: 5000 })
    .observe('b', 'ss', '-tinm')
    .build();
  if (!requireKernel(ctx, scenario)) return;
  dump(runPacketlab(scenario), '/tmp/drs/ours.txt');
  for (let i = 0; i < runs; i++) dump(await runLinux(scenario), `/tmp/drs/linux${i}.txt`);
}, 120_000);
