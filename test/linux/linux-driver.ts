// The kernel side of the harness lives in src/cli/verify/linux-driver.ts (`packetlab verify` runs it too); the cases
// keep importing it from here.
export * from '../../src/cli/verify/linux-driver.ts';
