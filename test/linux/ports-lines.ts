// Moved to src/harness/ports-lines.ts (`packetlab verify` runs the harness); the cases keep importing it from here.
export * from '../../src/harness/ports-lines.ts';
