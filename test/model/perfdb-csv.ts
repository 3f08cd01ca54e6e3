// Reads the shared perfdb extract (never copied into the repo) for fact checks.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { perfdbDir } from '../../src/hardware/perf/perfdbTables.js';

export const PERFDB_DIR = perfdbDir();

/** RFC-4180-ish: quoted fields may hold commas and doubled quotes. */
function splitLine(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

export function readPerfdbCsv(relPath: string): Record<string, string>[] {
  const lines = readFileSync(join(PERFDB_DIR, relPath), 'utf8').split(/\r?\n/).filter((l) => l.length > 0);
  const header = splitLine(lines[0]);
  return lines.slice(1).map((line) => {
    const cells = splitLine(line);
    return Object.fromEntries(header.map((h, i) => [h, cells[i] ?? '']));
  });
}
