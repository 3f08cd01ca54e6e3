// The Dynamo frontend's router flags (`python3 -m dynamo.frontend`, Dynamo ≥ 1.2 spelling:
// `--router-kv-overlap-score-credit`, `--router-prefill-load-scale`; releases before 1.2 called the
// credit `--kv-overlap-score-weight`). Round-robin needs no weights.
import type { RouterSettings } from '../../replay/spec.js';

export const FRONTEND_MODULE = 'dynamo.frontend';
export const FRONTEND_HTTP_PORT = 8000;

export function frontendArgs(r: RouterSettings): string[] {
  const a = ['--http-port', String(FRONTEND_HTTP_PORT)];
  if (r.router_mode === 'round_robin') return [...a, '--router-mode', 'round-robin'];
  return [
    ...a,
    '--router-mode', 'kv',
    '--router-kv-overlap-score-credit', String(r.overlap_score_credit),
    '--router-prefill-load-scale', String(r.prefill_load_scale),
    '--router-temperature', String(r.router_temperature),
    '--router-host-cache-hit-weight', String(r.host_cache_hit_weight),
    '--router-disk-cache-hit-weight', String(r.disk_cache_hit_weight),
  ];
}
