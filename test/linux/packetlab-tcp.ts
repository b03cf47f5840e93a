// Moved to src/harness/packetlab-tcp.ts (`packetlab verify` runs the harness); the cases keep importing it from here.
export * from '../../src/harness/packetlab-tcp.ts';
