// Moved to src/harness/streams.ts (`packetlab verify` runs the harness); the cases keep importing it from here.
export * from '../../src/harness/streams.ts';
