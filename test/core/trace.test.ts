import { describe, expect, expectTypeOf, it } from 'vitest';
import type { DropReason } from '../../src/core/drop-reason.ts';
import { type DropEvent, type StepEvent, TraceBus } from '../../src/core/trace.ts';

const frame = new Uint8Array([1, 2, 3]);

describe('trace bus', () => {
  it('wants nothing until someone listens', () => {
    const bus = new TraceBus();
    expect(bus.enabled).toBe(false);
    expect(bus.wants).toEqual({ drop: false, rx: false, tx: false, step: false });
    expect(bus.active('drop')).toBe(false);
  });

  it('does no emit work without a listener: the guarded event is never built', () => {
    const bus = new TraceBus();
    let built = 0;
    const buildDrop = (): DropEvent => {
      built++;
      return {
        time: 1,
        netns: 'node-a',
        dev: 'eth0',
        reason: 'NETFILTER_DROP',
        frame,
        networkOffset: -1,
        mark: 0,
      };
    };
    for (let i = 0; i < 1000; i++) if (bus.wants.drop) bus.emit('drop', buildDrop());
    expect(built).toBe(0);

    bus.on('rx', () => {});
    if (bus.wants.drop) bus.emit('drop', buildDrop());
    expect(built).toBe(0);
  });

  it('does not read an event emitted without a listener', () => {
    const bus = new TraceBus();
    let reads = 0;
    const event = {
      time: 0,
      netns: 'ns',
      dev: 'eth0',
      get frame(): Uint8Array {
        reads++;
        return frame;
      },
    };
    bus.emit('rx', event);
    expect(reads).toBe(0);
  });

  it('delivers typed events to listeners of their kind only', () => {
    const bus = new TraceBus();
    const drops: DropEvent[] = [];
    const steps: string[] = [];
    bus.on('drop', (event) => {
      expectTypeOf(event.reason).toEqualTypeOf<DropReason>();
      expectTypeOf(event.frame).toEqualTypeOf<Uint8Array>();
      drops.push(event);
    });
    bus.on('step', (event) => {
      expectTypeOf(event).toEqualTypeOf<StepEvent>();
      steps.push(`${event.netns} ${event.dev} ${event.step}: ${event.detail}`);
    });
    expect(bus.wants).toEqual({ drop: true, rx: false, tx: false, step: true });
    expect(bus.enabled).toBe(true);

    if (bus.wants.drop)
      bus.emit('drop', {
        time: 5,
        netns: 'node-a',
        dev: 'eth0',
        reason: 'NETFILTER_DROP',
        frame,
        networkOffset: -1,
        mark: 0,
      });
    if (bus.wants.step) {
      bus.emit('step', {
        time: 6,
        netns: 'node-a',
        dev: 'eth0',
        step: 'ip_forward',
        detail: 'via 10.0.0.2',
        frame,
        networkOffset: -1,
        mark: 0,
      });
    }
    if (bus.wants.tx) throw new Error('no tx listener');

    expect(drops).toEqual([
      { time: 5, netns: 'node-a', dev: 'eth0', reason: 'NETFILTER_DROP', frame, networkOffset: -1, mark: 0 },
    ]);
    expect(steps).toEqual(['node-a eth0 ip_forward: via 10.0.0.2']);
  });

  it('rejects events of the wrong shape at compile time', () => {
    const bus = new TraceBus();
    // Checked by tsc only; never run.
    const compileOnly = (): void => {
      // @ts-expect-error: 'BOGUS' is not a drop reason
      bus.emit('drop', { time: 0, netns: '', dev: '', reason: 'BOGUS', frame });
      // @ts-expect-error: a step event needs step and detail
      bus.emit('step', { time: 0, netns: '', dev: '', frame });
      // @ts-expect-error: no such kind
      bus.on('nope', () => {});
      // @ts-expect-error: wants is read-only outside the bus
      bus.wants.drop = true;
    };
    expect(compileOnly).toBeTypeOf('function');
  });

  it('keeps wants true until the last listener of a kind is removed', () => {
    const bus = new TraceBus();
    const first = (): void => {};
    const second = (): void => {};
    bus.on('tx', first).on('tx', second);
    bus.off('tx', first);
    expect(bus.wants.tx).toBe(true);
    bus.off('tx', first); // not registered any more: ignored
    expect(bus.wants.tx).toBe(true);
    bus.off('tx', second);
    expect(bus.wants.tx).toBe(false);
    expect(bus.enabled).toBe(false);
  });

  it('removes every registration of a listener with one off', () => {
    const bus = new TraceBus();
    let calls = 0;
    const listener = (): void => {
      calls++;
    };
    bus.on('rx', listener).on('rx', listener);
    bus.emit('rx', { time: 0, netns: 'ns', dev: 'lo', frame });
    expect(calls).toBe(2);
    bus.off('rx', listener);
    expect(bus.wants.rx).toBe(false);
    expect(bus.enabled).toBe(false);
  });
});
