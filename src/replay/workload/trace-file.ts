// The simulator's only file I/O: reading a trace and hashing its bytes (ReplaySpecs carry the path and
// the sha256, never the content).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { InputError } from '../../errors.js';

export interface TraceFile {
  path: string;
  text: string;
  sha256: string;
}

export function readTrace(path: string): TraceFile {
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch (e) {
    throw new InputError(`cannot read trace '${path}': ${(e as Error).message}`);
  }
  return { path, text: buf.toString('utf8'), sha256: createHash('sha256').update(buf).digest('hex') };
}

/** Reads a trace and checks it is the file the spec was materialized against. */
export function readTraceChecked(path: string, expectedSha256: string | null): TraceFile {
  const t = readTrace(path);
  if (expectedSha256 !== null && t.sha256 !== expectedSha256)
    throw new InputError(`trace '${path}' changed since the spec was made (sha256 ${t.sha256.slice(0, 12)}…, spec expects ${expectedSha256.slice(0, 12)}…)`);
  return t;
}
