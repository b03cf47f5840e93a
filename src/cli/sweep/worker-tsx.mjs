// The sweep worker in a checkout: registers tsx's loader in this thread, then loads worker.ts (a loader given to a
// worker thread by --import covers the worker's own file but not what it imports, on Node 20). dist/ runs worker.js.
import { register } from 'tsx/esm/api';

register();
const worker = await import('./worker.ts');
export default worker.default;
