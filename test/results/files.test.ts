import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CSV_METRIC_COLUMNS, candidatesCsv } from '../../src/results/csv.js';
import { writeResultFiles } from '../../src/results/files.js';
import { SweepResultSchema } from '../../src/search/sweepResult.js';
import { makeSweepResult } from './fixture.js';

/** RFC 4180 reader: quoted fields may hold commas, doubled quotes, CR and LF; records end in CRLF. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
      } else if (c === '"') {
        quoted = false;
        i++;
      } else {
        field += c;
        i++;
      }
      continue;
    }
    if (c === '"') {
      if (field !== '') throw new Error(`quote inside an unquoted field at ${i}`);
      quoted = true;
      i++;
    } else if (c === ',') {
      record.push(field);
      field = '';
      i++;
    } else if (c === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i += 2;
    } else if (c === '\n' || c === '\r') {
      throw new Error(`bare line break at ${i}`);
    } else {
      field += c;
      i++;
    }
  }
  if (quoted) throw new Error('unterminated quoted field');
  if (field !== '' || record.length) throw new Error('last record lacks CRLF');
  return records;
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe.each(['pareto', 'single'] as const)('result files (%s)', (kind) => {
  const result = makeSweepResult(kind);
  const out = mkdtempSync(join(tmpdir(), 'spica-results-'));
  dirs.push(out);
  const { files } = writeResultFiles(result, out);

  it('writes result.json, candidates.csv and report.html', () => {
    expect(files.map((f) => f.slice(out.length + 1))).toEqual(['result.json', 'candidates.csv', 'report.html']);
  });

  it('result.json round-trips losslessly and validates', () => {
    const back = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8'));
    expect(SweepResultSchema.safeParse(back).success).toBe(true);
    expect(back).toEqual(result);
  });

  it('candidates.csv has one row per candidate that parses back to the candidate', () => {
    const text = readFileSync(join(out, 'candidates.csv'), 'utf8');
    expect(text).toBe(candidatesCsv(result));
    const [header, ...rows] = parseCsv(text);
    expect(rows).toHaveLength(result.candidates.length);
    expect(header.slice(0, 6)).toEqual(['id', 'branch', 'round', 'status', 'reason_category', 'reason']);
    for (const o of result.objectives) expect(header).toContain(`objective.${o.name}`);
    for (const m of CSV_METRIC_COLUMNS) expect(header).toContain(m);
    const col = (name: string) => {
      const k = header.indexOf(name);
      expect(k, name).toBeGreaterThanOrEqual(0);
      return k;
    };
    rows.forEach((cells, i) => {
      const c = result.candidates[i];
      expect(cells).toHaveLength(header.length);
      expect(cells[col('id')]).toBe(c.id);
      expect(cells[col('status')]).toBe(c.status);
      expect(cells[col('reason')]).toBe(c.reason ?? '');
      expect(cells[col('backend')]).toBe(c.config.backend);
      expect(Number(cells[col('used_gpus')])).toBe(c.used_gpus);
      expect(cells[col('score')] === '' ? null : Number(cells[col('score')])).toBe(c.score);
      for (const o of result.objectives)
        expect(cells[col(`objective.${o.name}`)] === '' ? null : Number(cells[col(`objective.${o.name}`)])).toBe(c.objectives?.[o.name] ?? null);
      expect(cells[col('mean_ttft_ms')] === '' ? undefined : Number(cells[col('mean_ttft_ms')])).toBe(c.metrics?.mean_ttft_ms);
      expect(JSON.parse(cells[col('config')])).toEqual(c.config);
      expect(JSON.parse(cells[col('parallel_config')])).toEqual(c.config.parallel_config);
      expect(JSON.parse(cells[col('adapters')])).toEqual(c.config.adapters);
      expect(JSON.parse(cells[col('point')])).toEqual(c.point);
      expect(cells[col('spica_projection')] === '' ? null : JSON.parse(cells[col('spica_projection')])).toEqual(c.spica_projection);
    });
  });

  it('quotes fields with commas, quotes and line breaks (RFC 4180)', () => {
    const tricky = structuredClone(result);
    tricky.candidates[0].reason = 'a, "b"\r\nc';
    const [, first] = parseCsv(candidatesCsv(tricky));
    expect(first[5]).toBe('a, "b"\r\nc');
  });
});

describe('writeResultFiles input checks', () => {
  it('refuses an invalid SweepResult before writing anything', () => {
    const bad = { ...makeSweepResult('single'), schema_version: '0.9' } as unknown as ReturnType<typeof makeSweepResult>;
    const out = mkdtempSync(join(tmpdir(), 'spica-results-bad-'));
    dirs.push(out);
    expect(() => writeResultFiles(bad, join(out, 'x'))).toThrow(/SweepResult is invalid: schema_version/);
  });
});
