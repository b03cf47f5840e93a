// Moved to src/harness/packetlab-ports.ts (`packetlab verify` runs the harness); the cases keep importing it from here.
export * from '../../src/harness/packetlab-ports.ts';
