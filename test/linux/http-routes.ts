// Moved to src/harness/http-routes.ts (`packetlab verify` runs the harness); the cases keep importing it from here.
export * from '../../src/harness/http-routes.ts';
