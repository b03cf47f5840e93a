// The receive-window arithmetic against what Linux 6.18 showed for a veth (ss -tmi on a receiver that does not
// read: skmem r, rcv_ssthresh after one to four 1448-byte segments).

import { describe, expect, it } from 'vitest';
import {
  computeWindow,
  fullSpace,
  growWindow,
  initBufferSpace,
  measureScalingRatio,
  type ReceiveWindow,
  SEGMENT_OVERHEAD,
  selectWindow,
} from '../../../src/socket/tcp/window.ts';

/** A server's window state after the handshake: SYN-ACK window 65160, scale 10, tcp_rmem[1] = 128 KiB. */
function established(): ReceiveWindow {
  const state: ReceiveWindow = {
    rcvWnd: 65160,
    rcvWup: 1,
    rcvNxt: 1,
    rcvSsthresh: 0,
    windowClamp: 0xffff << 10,
    rcvWscale: 10,
    scalingRatio: 128,
    rcvbuf: 131072,
    rmemAlloc: 0,
  };
  initBufferSpace(state, 1448, 31);
  return state;
}

/** tcp_queue_rcv and tcp_event_data_recv for one in-order segment, rcv_mss as the kernel has it before. */
function receive(state: ReceiveWindow, len: number, rcvMss: number): void {
  state.rcvNxt += len;
  state.rmemAlloc += len + SEGMENT_OVERHEAD;
  measureScalingRatio(state, len, rcvMss);
  growWindow(state, len, 1448);
}

describe('receive window', () => {
  it('tcp_init_buffer_space: the clamp one segment under what 128 KiB backs at ratio 1/2, rcv_ssthresh under it', () => {
    const state = established();
    expect(fullSpace(state)).toBe(65536);
    expect(state.windowClamp).toBe(64088);
    expect(state.rcvSsthresh).toBe(64088);
  });

  it('a 1448-byte segment charges 2280 bytes and re-measures the ratio at 162; rcv_ssthresh then grows by 2896 per segment', () => {
    const state = established();
    const seen: number[] = [];
    receive(state, 1448, 536);
    expect(state.scalingRatio).toBe(162);
    seen.push(state.rcvSsthresh);
    for (let i = 0; i < 4; i++) {
      receive(state, 1448, 1448);
      seen.push(state.rcvSsthresh);
    }
    // ss -i on Linux after 1, 2, 3, 4 and 10 segments: 68056, 70952, 73848, 76744, 76744.
    expect(seen).toEqual([68056, 70952, 73848, 76744, 76744]);
    expect(state.rmemAlloc).toBe(5 * 2280);
  });

  it('the windows of the first ACKs: 67, 70, 73, 75, then the right edge held while the buffer fills', () => {
    const state = established();
    const windows: number[] = [];
    for (let i = 0; i < 8; i++) {
      receive(state, 1448, i === 0 ? 536 : 1448);
      windows.push(selectWindow(state, 1448));
    }
    expect(windows).toEqual([67, 70, 73, 75, 74, 73, 72, 71]);
  });

  it('__tcp_select_window offers nothing once the free space is under an MSS', () => {
    const state = established();
    receive(state, 1448, 536);
    state.rmemAlloc = state.rcvbuf - 1000;
    expect(computeWindow(state, 1448)).toBe(0);
  });
});
