// An unknown --namespace is bad input (exit 2) with what to do, for every command that talks to
// Temporal — not an internal error with a stack trace, and `spica worker` no longer hangs on it.
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { missingNamespace } from '../../src/cli/temporal/namespace-not-found.js';
import { captureIo, spawnSpica, TINY_CONFIG_YAML, useTestTemporal, writeTempConfig } from './harness.js';

const t = useTestTemporal();
const NS = 'spica-no-such-namespace';
const SAYS = `namespace '${NS}' does not exist on the Temporal server: register it (\`temporal operator namespace create --namespace ${NS}\`) or pass another --namespace`;

describe('an unknown namespace', () => {
  it('is read from the three shapes the SDK gives it, and from causes', () => {
    expect(missingNamespace(Object.assign(new Error(`Namespace not found: '${NS}'`), { name: 'NamespaceNotFoundError', namespace: NS }))).toBe(NS);
    expect(missingNamespace(new Error(`5 NOT_FOUND: Namespace ${NS} is not found.`))).toBe(NS);
    expect(missingNamespace(new Error(`Namespace ${NS} was not found or otherwise could not be described: Status { code: NotFound }`))).toBe(NS);
    expect(missingNamespace(new Error('Temporal call failed', { cause: new Error(`5 NOT_FOUND: Namespace ${NS} is not found.`) }))).toBe(NS);
    expect(missingNamespace(new Error('5 NOT_FOUND: workflow not found for ID: x'))).toBeNull();
    expect(missingNamespace(null)).toBeNull();
  });

  it.each([
    ['sweep', () => [writeTempConfig(TINY_CONFIG_YAML)]],
    ['list', () => []],
    ['status', () => ['spica-x']],
    ['result', () => ['spica-x']],
  ] as const)('spica %s: exit 2, saying so', async (command, args) => {
    const { io, out } = captureIo();
    expect(await main([command, ...args(), '--address', t.address, '--namespace', NS], io)).toBe(2);
    expect(out.stderr).toContain(`spica ${command}: ${SAYS}`);
    expect(out.stderr).not.toContain('internal error');
  });

  it('spica worker: exit 2 at once, saying so (it used to hang)', async () => {
    const worker = spawnSpica(['worker', '--address', t.address, '--namespace', NS, '--task-queue', 'spica-ns-test']);
    const code = await Promise.race([worker.exited, new Promise((r) => setTimeout(() => r('still running'), 60_000))]);
    worker.child.kill('SIGKILL');
    expect(code).toBe(2);
    expect(worker.output().stderr).toContain(`spica worker: ${SAYS}`);
  }, 90_000);
});
