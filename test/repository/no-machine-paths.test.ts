// Committed files must not name a build machine's folders (issue #17 item 8): the perf data is found
// through SPICA_PERFDB or beside the repository, and fitted files record paths relative to that root.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../..', import.meta.url));
// An absolute path into a home or work folder, e.g. /work/shared/perfdb or /home/ci/...
const MACHINE_PATH = /(^|[\s"'`(=:,])\/(work|home|root|Users|mnt|opt\/build)\/[\w.-]/;

describe('committed files', () => {
  it('name no absolute path of a build machine', () => {
    const files = execFileSync('git', ['ls-files', '-z'], { cwd: repo, encoding: 'utf8' }).split('\0').filter((f) => f.length > 0 && f !== 'package-lock.json');
    expect(files.length).toBeGreaterThan(100);
    const hits: string[] = [];
    for (const f of files) {
      let text: string;
      try {
        text = readFileSync(join(repo, f), 'utf8');
      } catch {
        continue; // listed but deleted in the working tree
      }
      if (text.includes('\0')) continue; // binary
      text.split('\n').forEach((line, i) => {
        if (f === 'test/repository/no-machine-paths.test.ts') return;
        if (MACHINE_PATH.test(line)) hits.push(`${f}:${i + 1}: ${line.trim().slice(0, 120)}`);
      });
    }
    expect(hits).toEqual([]);
  });

  it('the pattern catches the paths it is meant to', () => {
    expect(MACHINE_PATH.test('{"source":"/work/shared/perfdb"}')).toBe(true);
    expect(MACHINE_PATH.test("  default /home/ci/perfdb")).toBe(true);
    expect(MACHINE_PATH.test('relative ../shared/perfdb and h200_sxm/vllm/gemm.csv')).toBe(false);
  });
});
