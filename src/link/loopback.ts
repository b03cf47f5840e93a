// The loopback device `lo`: what it transmits it receives (drivers/net/loopback.c); MTU 65536, no MAC.

import type { Packet } from '../core/packet.ts';
import { type DeviceOwner, type LinkContext, NetDevice } from './device.ts';

export const LOOPBACK_MTU = 65536;

export class Loopback extends NetDevice {
  readonly kind = 'loopback' as const;

  constructor(ctx: LinkContext, owner: DeviceOwner) {
    super(ctx, owner, 1, 'lo', 0, LOOPBACK_MTU);
  }

  protected xmit(pkt: Packet): boolean {
    this.ctx.backlog.enqueue(this, pkt);
    return true;
  }
}
