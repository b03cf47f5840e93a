// Moved to src/harness/observed.ts (`packetlab verify` runs the harness); the cases keep importing it from here.
export * from '../../src/harness/observed.ts';
