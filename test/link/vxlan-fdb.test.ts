// The VXLAN FDB's typed-array table behaves as the Map it replaced: same answers, same insertion order through sets, replacements, deletes and compactions.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VxlanFdb } from '../../src/link/vxlan-fdb.ts';

const arbOp = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), mac: fc.integer({ min: 0, max: 40 }), ip: fc.nat() }),
  fc.record({
    kind: fc.constant('delete' as const),
    mac: fc.integer({ min: 0, max: 40 }),
    ip: fc.constant(0),
  }),
);

describe('VxlanFdb', () => {
  it('matches a Map<MacAddr, Ipv4Addr> through any sequence of sets and deletes', () => {
    fc.assert(
      fc.property(fc.array(arbOp, { maxLength: 400 }), (ops) => {
        const fdb = new VxlanFdb();
        const model = new Map<number, number>();
        for (const op of ops) {
          // 48-bit MACs, as flannel's VTEP addresses are.
          const mac = 0x9e1c_6f00_0000 + op.mac * 0x1_0001;
          const ip = (0xac12_0000 + op.ip) >>> 0;
          if (op.kind === 'set') {
            fdb.set(mac, ip);
            model.set(mac, ip);
          } else expect(fdb.delete(mac)).toBe(model.delete(mac));
          expect(fdb.size).toBe(model.size);
        }
        expect([...fdb]).toEqual([...model]);
        for (let m = 0; m <= 40; m++) {
          const mac = 0x9e1c_6f00_0000 + m * 0x1_0001;
          expect(fdb.get(mac)).toBe(model.get(mac));
          expect(fdb.has(mac)).toBe(model.has(mac));
        }
      }),
    );
  });

  it('keeps an updated entry in its place and appends a re-added one', () => {
    const fdb = new VxlanFdb();
    fdb.set(1, 10).set(2, 20).set(3, 30).set(1, 11);
    fdb.delete(2);
    fdb.set(2, 22);
    expect([...fdb]).toEqual([
      [1, 11],
      [3, 30],
      [2, 22],
    ]);
  });
});
