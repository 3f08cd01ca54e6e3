// Map a config path (`['search_space', 'backend', 1]`) to the line/column of its YAML node.
// A missing key points at the nearest existing ancestor (the mapping the key belongs in).
import { isMap, isPair, isScalar, isSeq, type Document, type LineCounter, type Node } from 'yaml';

export type ConfigPath = readonly PropertyKey[];
export interface SourcePosition {
  line: number;
  column: number;
}
/** `key: true` asks for the key of the last segment (for unknown keys) rather than its value. */
export type Locator = (path: ConfigPath, opts?: { key?: boolean }) => SourcePosition | undefined;

export function yamlLocator(doc: Document, lineCounter: LineCounter): Locator {
  const at = (node: { range?: readonly number[] | null } | null | undefined): SourcePosition | undefined => {
    const offset = node?.range?.[0];
    if (offset === undefined) return undefined;
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  return (path, opts = {}) => {
    let node: unknown = doc.contents;
    let best = at(doc.contents as Node | null) ?? { line: 1, column: 1 };
    for (let i = 0; i < path.length; i++) {
      const seg = path[i];
      const last = i === path.length - 1;
      if (isMap(node)) {
        const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
        if (!pair) return best;
        const keyPos = at(pair.key as Node);
        if (last && opts.key) return keyPos ?? best;
        // `key:` with no value has a null node: the key's position is the best we have.
        best = at(pair.value as Node | null) ?? keyPos ?? best;
        node = pair.value;
      } else if (isSeq(node) && typeof seg === 'number') {
        const item = node.items[seg];
        if (item === undefined) return best;
        best = at(item as Node) ?? best;
        node = item;
      } else {
        return best;
      }
    }
    return best;
  };
}

/** `search_space.backend[1]`; keys that are not identifiers are quoted: `adapters["dynamo.router"]`. */
export function formatConfigPath(path: ConfigPath): string {
  if (path.length === 0) return '(root)';
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(String(seg))) out += out === '' ? String(seg) : `.${String(seg)}`;
    else out += `[${JSON.stringify(String(seg))}]`;
  }
  return out;
}
