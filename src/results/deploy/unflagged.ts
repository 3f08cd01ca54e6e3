// A simulated setting Dynamo has no flag for: rendered as a comment in the manifest and the launch
// scripts (CLARIFICATIONS §F: never dropped silently). One fixed line format, so tools and the
// round-trip test can read them back.
export interface UnflaggedSetting {
  setting: string;
  value: string | number | boolean;
  why: string;
}

export const UNFLAGGED_PREFIX = '# spica: simulated ';

export function unflaggedComment(n: UnflaggedSetting): string {
  return `${UNFLAGGED_PREFIX}${n.setting} = ${JSON.stringify(n.value)} (no Dynamo flag: ${n.why})`;
}

/** The settings a file's comments record, by name (the inverse of unflaggedComment). */
export function readUnflagged(text: string): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const re = /^\s*# spica: simulated (\S+) = (.+?) \(no Dynamo flag: /;
  for (const line of text.split('\n')) {
    const m = re.exec(line);
    if (m) out.set(m[1], JSON.parse(m[2]));
  }
  return out;
}
