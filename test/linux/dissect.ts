// Moved to src/harness/dissect.ts (`packetlab verify` runs the harness); the cases keep importing it from here.
export * from '../../src/harness/dissect.ts';
