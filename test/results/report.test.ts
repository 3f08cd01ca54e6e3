// The HTML report in a real headless Chromium (playwright-core + Debian's chromium): it renders,
// every chart has its points, no console errors, no network beyond the file itself.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { renderReport } from '../../src/results/report/render.js';
import { paretoFrontIndices } from '../../src/search/pareto.js';
import type { SweepResult } from '../../src/search/sweepResult.js';
import { makeSweepResult } from './fixture.js';

// The browser comes from the test setup (test/setup/chromium.ts: found, or installed, before the run).
const CHROMIUM = inject('chromiumPath');
const skip = process.env.SPICA_SKIP_BROWSER_TESTS === '1';
if (skip) console.warn('report browser test skipped: SPICA_SKIP_BROWSER_TESTS=1');

/** Expected <circle data-id> count per chart id, computed from the result independently of the renderer. */
function expectedCharts(r: SweepResult): Map<string, number> {
  const m = new Map<string, number>();
  m.set('chart-pareto', r.candidates.filter((c) => c.status === 'feasible' && c.metrics).length);
  for (const b of r.branches) m.set(`chart-convergence-${b.deployment_mode}`, b.best_so_far.filter((v) => v !== null).length);
  const keys = new Set(r.candidates.flatMap((c) => Object.keys(c.point)));
  for (const k of keys) {
    const distinct = new Set(r.candidates.filter((c) => k in c.point).map((c) => JSON.stringify(c.point[k])));
    if (distinct.size < 2) continue;
    const id = `chart-knob-${k.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '')}`;
    m.set(id, r.candidates.filter((c) => c.status === 'feasible' && c.score !== null && k in c.point).length);
  }
  return m;
}

function frontSize(r: SweepResult): number {
  const pts = r.candidates
    .filter((c) => c.status === 'feasible' && c.metrics)
    .map((c) => [c.metrics!.mean_output_token_throughput_per_user, c.metrics!.avg_gpu > 0 ? c.metrics!.output_throughput_tok_s / c.metrics!.avg_gpu : 0]);
  return paretoFrontIndices(pts, ['max', 'max']).length;
}

describe.skipIf(skip)('report.html in headless Chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'spica-report-'));
  type Ctx = Awaited<ReturnType<typeof import('playwright-core')['chromium']['launchPersistentContext']>>;
  let context: Ctx;

  beforeAll(async () => {
    const { chromium } = await import('playwright-core');
    // launchPersistentContext owns --user-data-dir: a fresh temporary profile per run.
    context = await chromium.launchPersistentContext(join(dir, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      viewport: { width: 1280, height: 900 },
    });
  }, 30_000);

  afterAll(async () => {
    await context?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(['pareto', 'single'] as const)('%s result: renders every chart with its points, no errors, no network', async (kind) => {
    const result = makeSweepResult(kind);
    const file = join(dir, `report-${kind}.html`);
    writeFileSync(file, renderReport(result));
    const url = pathToFileURL(file).href;
    const page = await context.newPage();
    const errors: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(url, { waitUntil: 'load' });

    expect(await page.title()).toContain(result.question.model_name);
    const expected = expectedCharts(result);
    const actual = Object.fromEntries(
      await page.locator('svg[id^="chart-"]').evaluateAll((svgs) => svgs.map((s) => [s.id, s.querySelectorAll('circle[data-id]').length] as const)),
    );
    expect(actual).toEqual(Object.fromEntries(expected));
    expect(await page.locator('#chart-pareto circle.front').count()).toBe(frontSize(result));
    // Every point lies inside its chart's view box and has a tooltip.
    const bad = await page.locator('svg[id^="chart-"] circle[data-id]').evaluateAll(
      (circles) =>
        circles.filter((c) => {
          const [, , w, h] = (c.closest('svg')?.getAttribute('viewBox') ?? '').split(' ').map(Number);
          const x = Number(c.getAttribute('cx'));
          const y = Number(c.getAttribute('cy'));
          return !(x >= 0 && x <= w && y >= 0 && y <= h) || !c.querySelector('title')?.textContent;
        }).length,
    );
    expect(bad).toBe(0);
    // The answer names the winner (single) or the front size (pareto); text is escaped, not markup.
    const answer = await page.locator('#answer').innerText();
    if ('top_n' in result.views) expect(answer).toContain(result.views.top_n[0]);
    else expect(answer).toContain(`has ${result.views.pareto_front.length} candidate`);
    if (result.sweep_id) expect(await page.locator('body').innerText()).toContain(result.sweep_id);
    expect(await page.locator('pareto').count()).toBe(0);
    expect(await page.locator(kind === 'pareto' ? '#pareto-front tbody tr' : '#top-n tbody tr').count()).toBe(
      'top_n' in result.views ? Math.min(20, result.views.top_n.length) : result.views.pareto_front.length,
    );
    expect(await page.locator('#rejections tbody tr').count()).toBeGreaterThan(0);

    expect(errors).toEqual([]);
    expect(requests).toEqual([url]);
    if (kind === 'pareto') {
      const artifacts = resolve('test-artifacts');
      mkdirSync(artifacts, { recursive: true });
      await page.screenshot({ path: join(artifacts, 'report.png'), fullPage: true });
    }
    await page.close();
  });
});
