// Worker-thread entry of the replay pool: plain Node cannot import TypeScript, so register tsx's
// ESM loader in this thread first, then load the TS runner (CLARIFICATIONS §D: worker threads).
import { register } from 'tsx/esm/api';

register();
await import('./replay-thread.ts');
