// The core layer's public surface: virtual time, the event scheduler, the seeded rng, drop reasons and trace events.

export * from './drop-reason.ts';
export * from './packet.ts';
export * from './rng.ts';
export * from './scheduler.ts';
export * from './trace.ts';
