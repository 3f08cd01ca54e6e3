import { describe, expect, it } from 'vitest';
import { renderReport } from '../../src/results/report/render.js';
import { formatTick, logTicks, makeScale, niceTicks, wantsLog } from '../../src/results/report/scale.js';
import { renderChart } from '../../src/results/report/svgChart.js';
import { makeSweepResult } from './fixture.js';

describe('chart scales', () => {
  it('nice ticks are 1/2/5 × 10^k steps covering the data', () => {
    expect(niceTicks(0, 97)).toEqual([0, 20, 40, 60, 80, 100]);
    expect(niceTicks(0.12, 0.88)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceTicks(1234, 5678)).toEqual([1000, 2000, 3000, 4000, 5000, 6000]);
    // A single value gets a ±10% window around it.
    expect(niceTicks(5, 5)).toEqual([4.4, 4.6, 4.8, 5, 5.2, 5.4, 5.6]);
  });

  it('log ticks are decades (with 2× and 5× marks over short ranges)', () => {
    expect(logTicks(3, 40_000)).toEqual([1, 10, 100, 1000, 10_000, 100_000]);
    expect(logTicks(3, 40)).toEqual([2, 5, 10, 20, 50]);
    expect(wantsLog([1, 2, 3])).toBe(false);
    expect(wantsLog([1, 100])).toBe(true);
    expect(wantsLog([0, 100])).toBe(false);
  });

  it('maps the domain onto the pixel range (linear and log)', () => {
    const lin = makeScale([0, 97], [0, 500]);
    expect(lin.domain).toEqual([0, 100]);
    expect(lin(50)).toBe(250);
    const log = makeScale([10, 1000], [0, 200], { log: true });
    expect(log.log).toBe(true);
    expect(log(100)).toBeCloseTo(100);
    expect(formatTick(25_000)).toBe('25k');
    expect(formatTick(0.05)).toBe('0.05');
  });
});

describe('svg chart', () => {
  it('draws one circle per point with data-id and an escaped tooltip', () => {
    const svg = renderChart({
      id: 'chart-x',
      title: 'a <b> & "c"',
      xLabel: 'x',
      yLabel: 'y',
      points: [
        { x: 1, y: 2, id: 'p1', title: '<script>alert(1)</script>' },
        { x: 3, y: 4, id: 'p"2', title: 't' },
      ],
    });
    expect(svg.match(/<circle [^>]*data-id=/g)).toHaveLength(2);
    expect(svg).toContain('data-id="p&quot;2"');
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&lt;script&gt;');
  });

  it('categorical strips keep their category order and add a box per strip with ≥ 2 points', () => {
    const svg = renderChart({
      id: 'chart-k',
      title: 't',
      xLabel: 'k',
      yLabel: 'score',
      xCategories: ['256', '512'],
      points: [
        { x: '256', y: 1, id: 'a', title: '' },
        { x: '256', y: 3, id: 'b', title: '' },
        { x: '512', y: 2, id: 'c', title: '' },
      ],
    });
    expect(svg.match(/<rect class="box"/g)).toHaveLength(1);
    expect(svg.indexOf('>256<')).toBeLessThan(svg.indexOf('>512<'));
  });
});

describe('report text is escaped', () => {
  it('user-controlled strings never become markup', () => {
    const r = makeSweepResult('single');
    r.question.model_name = '<img src=x onerror=alert(1)>';
    r.candidates[8].reason = '</td><script>bad()</script>';
    const html = renderReport(r);
    expect(html).not.toMatch(/<img|<script/);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('&lt;/td&gt;&lt;script&gt;bad()&lt;/script&gt;');
  });
});

describe('report of a sweep where nothing was feasible', () => {
  it('renders the empty charts and says so', () => {
    const r = makeSweepResult('pareto');
    r.candidates = r.candidates.map((c) => ({ ...c, status: 'infeasible' as const, reason_category: 'kv_capacity', reason: 'no KV', score: null, objectives: null, metrics: null }));
    r.views = { pareto_front: [] };
    r.branches = r.branches.map((b) => ({ ...b, best_so_far: b.best_so_far.map(() => null) }));
    const html = renderReport(r);
    expect(html).toContain('Nothing feasible');
    expect(html).toContain('id="chart-pareto"');
    expect(html).toContain('no feasible candidates');
    expect(html).not.toContain('NaN');
    expect(html.match(/<circle /g)).toBeNull();
  });
});

describe.each(['pareto', 'single'] as const)('report of the %s fixture', (kind) => {
  it('has no NaN/Infinity coordinates or labels', () => {
    const html = renderReport(makeSweepResult(kind));
    expect(html).not.toMatch(/NaN|Infinity/);
  });
});
