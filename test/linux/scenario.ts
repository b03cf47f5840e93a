// Moved to src/harness/scenario.ts (`packetlab verify` runs the harness); the cases keep importing it from here.
export * from '../../src/harness/scenario.ts';
