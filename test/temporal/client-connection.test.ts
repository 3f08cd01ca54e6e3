// The CLI's client connection closes safely while the SDK retries a failed call (client-connection.ts):
// the SDK's retry interceptor retries on a timer, and a timer firing after the close threw "Channel has
// been shut down" out of the timer, crashing the process after its work was done. Here a call fails
// (its server killed), a retry is pending, and the connection closes: no uncaught exception (vitest
// fails the run on one), the call settles.
import { expect, inject, it } from 'vitest';
import { connectClient } from '../../src/cli/temporal/client-connection.js';
import { loadDevServerConfig } from '../../src/cli/temporal/dev-config.js';
import { startDevServer } from '../../src/cli/temporal/dev-server.js';
import { freePort } from '../../src/cli/temporal/free-port.js';

it('closes while a failed call waits for its retry: no crash, the call settles', async () => {
  const server = await startDevServer(
    { ...loadDevServerConfig(), port: await freePort(), ui: { enabled: false }, db_filename: null, log_level: 'error', startup_timeout_seconds: 90 },
    { cliPath: inject('temporalCliPath'), reuse: false },
  );
  const connection = await connectClient(server.address);
  try {
    await connection.workflowService.getSystemInfo({}); // the channel is up
    process.kill(server.pid!, 'SIGKILL');
    await server.exited;
    const call = connection.workflowService.getSystemInfo({}).then(
      () => 'answered',
      () => 'failed',
    );
    // UNAVAILABLE at once, then retries 100–200 ms apart and growing: close in the middle of them.
    await new Promise((r) => setTimeout(r, 250));
    await connection.close();
    expect(await call).toBe('failed');
    // Past the SDK's backoff at that attempt: a retry timer left behind would have fired by now.
    await new Promise((r) => setTimeout(r, 1_500));
  } finally {
    await server.stop();
  }
}, 60_000);
