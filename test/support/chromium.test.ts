// Fresh-machine Chromium provisioning: found on PATH, installed when missing, or one line saying
// what to install (never a failing test deep in the run).
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHROMIUM_HINT, provisionChromium } from './chromium.js';

function fakeBinary(dir: string, name: string): string {
  const file = join(dir, name);
  writeFileSync(file, '#!/bin/sh\nexit 0\n');
  chmodSync(file, 0o755);
  return file;
}

describe('provisionChromium', () => {
  it('takes SPICA_CHROMIUM_PATH, else the first chromium on PATH, without installing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'spica-chromium-'));
    const browser = fakeBinary(dir, 'chromium-browser');
    const install = () => {
      throw new Error('must not install');
    };
    expect(provisionChromium({ env: { PATH: `/nonexistent:${dir}` }, install })).toBe(browser);
    expect(provisionChromium({ env: { PATH: '', SPICA_CHROMIUM_PATH: browser }, install })).toBe(browser);
  });

  it('installs when missing and uses what the install put on PATH', () => {
    const dir = mkdtempSync(join(tmpdir(), 'spica-chromium-'));
    let installs = 0;
    const got = provisionChromium({
      env: { PATH: dir },
      install: () => {
        installs++;
        fakeBinary(dir, 'chromium');
        return true;
      },
    });
    expect(got).toBe(join(dir, 'chromium'));
    expect(installs).toBe(1);
  });

  it('fails with one line saying what to install when it cannot install', () => {
    const dir = mkdtempSync(join(tmpdir(), 'spica-chromium-'));
    let err: Error | undefined;
    try {
      provisionChromium({ env: { PATH: dir }, install: () => false });
    } catch (e) {
      err = e as Error;
    }
    expect(err?.message).toBe(CHROMIUM_HINT);
    expect(err?.stack).toBe(CHROMIUM_HINT);
    expect(CHROMIUM_HINT).not.toContain('\n');
    expect(CHROMIUM_HINT).toContain('apt-get install chromium');
    expect(() => provisionChromium({ env: { PATH: dir, SPICA_CHROMIUM_PATH: join(dir, 'nope') }, install: () => true })).toThrow(/^SPICA_CHROMIUM_PATH=.* is not an executable file/);
  });
});
