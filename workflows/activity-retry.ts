// How the workflows retry their activities. Every one of them reads or writes the store (configs,
// trial chunks, the replay cache, results), and a store outage makes each store call wait up to 10 s,
// then fail its attempt (src/store/postgres-store.ts). Attempts 1 s apart, growing to 10 s, 20 of them:
// a sweep rides out about 5 minutes of store downtime (a managed PostgreSQL failover takes one or two),
// where 5 attempts 1–8 s apart gave up after about one. A fault that fails every attempt at once still
// ends the run after about 3 minutes; bad input is thrown non-retryable and never retried. The longest
// backoff stays under the SDK's one-minute local-retry threshold, so a local activity's retries stay
// inside its workflow task (no timers in the history).
import type { RetryPolicy } from '@temporalio/common';

export const ACTIVITY_RETRY: RetryPolicy = { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 20 };
