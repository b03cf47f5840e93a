// Moved to src/harness/compare.ts (`packetlab verify` runs the harness); the cases keep importing it from here.
export * from '../../src/harness/compare.ts';
