// System files are parsed once per process while unchanged (a replay resolves its SKU per candidate),
// and re-read as soon as the file changes.
import { copyFileSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultSystemsDir, loadSystem } from '../../src/hardware/systems.js';

describe('loadSystem cache', () => {
  const dir = mkdtempSync(join(tmpdir(), 'spica-systems-'));
  const file = join(dir, 'h100_sxm.yaml');
  copyFileSync(join(defaultSystemsDir(), 'h100_sxm.yaml'), file);
  const text = readFileSync(file, 'utf8');
  const withGpusPerNode = (n: number) => text.replace(/gpus_per_node: *\d+/, `gpus_per_node: ${n}`);

  it('serves the parsed file while its mtime and size are unchanged, re-parses when they change', () => {
    writeFileSync(file, withGpusPerNode(8));
    const t = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000); // whole seconds: utimes keeps it exactly
    utimesSync(file, t, t);
    expect(loadSystem('h100_sxm', { systemsDir: dir }).gpusPerNode).toBe(8);
    // Same size, same mtime: the cached parse answers (the file is not read again).
    writeFileSync(file, withGpusPerNode(4));
    utimesSync(file, t, t);
    expect(loadSystem('h100_sxm', { systemsDir: dir }).gpusPerNode).toBe(8);
    // A newer mtime: parsed again.
    const later = new Date(t.getTime() + 5000);
    utimesSync(file, later, later);
    expect(loadSystem('h100_sxm', { systemsDir: dir }).gpusPerNode).toBe(4);
  });

  it('hands every caller its own copy', () => {
    const a = loadSystem('h100_sxm', { systemsDir: dir });
    a.flops.bf16 = 1;
    expect(loadSystem('h100_sxm', { systemsDir: dir }).flops.bf16).not.toBe(1);
  });
});
