// The report's inline stylesheet: system fonts, readable tables, charts that scale with the page.
export const REPORT_CSS = `
:root{--fg:#1b1f24;--muted:#5b6570;--line:#d8dee4;--bg:#fff;--accent:#0b63c5;--front:#d9480f;--soft:#f5f7f9}
*{box-sizing:border-box}
body{margin:0;font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:1180px;margin:0 auto;padding:24px 20px 48px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:32px 0 10px;padding-bottom:4px;border-bottom:1px solid var(--line)}
h3{font-size:14px;margin:16px 0 6px}
.muted{color:var(--muted)}.nowrap{white-space:nowrap}.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
.answer{background:var(--soft);border:1px solid var(--line);border-left:4px solid var(--accent);border-radius:6px;padding:12px 16px}
.answer ul{margin:6px 0 0;padding-left:18px}
dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:0}dl.kv dt{color:var(--muted)}dl.kv dd{margin:0}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th,td{padding:5px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{background:var(--soft);font-weight:600;font-size:12px}td.num{text-align:right;white-space:nowrap}th.num{text-align:right}
table.candidates{font-size:13px}td.deploy{min-width:300px}
tr:hover td{background:#fafbfc}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(380px,1fr));gap:16px}
figure.chart{margin:0;border:1px solid var(--line);border-radius:6px;padding:8px;background:#fff}
figure.chart.wide{grid-column:1/-1}
figure.chart figcaption{font-size:12px;color:var(--muted);text-align:center}
svg.chart-svg{width:100%;height:auto;display:block}
svg .grid{stroke:#eef1f4;stroke-width:1}svg .axis{stroke:#8a949e;stroke-width:1}
svg .tick{font-size:11px;fill:var(--muted)}svg .axis-label{font-size:12px;fill:var(--fg)}svg .empty{font-size:13px;fill:var(--muted)}
svg circle.pt{fill:var(--accent);fill-opacity:.55;stroke:#fff;stroke-width:.5}
svg circle.front{fill:var(--front);fill-opacity:.95;stroke:#fff;stroke-width:1}
svg .front-line{fill:none;stroke:var(--front);stroke-width:1.5}svg .best-line{fill:none;stroke:var(--accent);stroke-width:1.5}
svg .box{fill:#e7eef8;stroke:#9fb6d3}svg .median{stroke:#33557f;stroke-width:2}
.badge{display:inline-block;padding:0 6px;border-radius:10px;font-size:12px;background:var(--soft);border:1px solid var(--line)}
.status-feasible{color:#1a7f37}.status-infeasible,.status-failed,.status-timed_out,.status-unsupported{color:#b3261e}
`;
