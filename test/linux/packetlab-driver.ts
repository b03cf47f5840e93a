// Moved to src/harness/packetlab-driver.ts (`packetlab verify` runs the harness); the cases keep importing it from here.
export * from '../../src/harness/packetlab-driver.ts';
