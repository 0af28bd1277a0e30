// How deep a YAML text nests, found before it is composed: the yaml composer recurses per level, so
// a hostile file could overflow the stack before any depth check on the composed document.
import { CST, Parser, type LineCounter } from 'yaml';

/**
 * Offset of the first map or list nested deeper than `maxDepth`, or null. Walks the concrete
 * syntax tree, which the yaml lexer and parser build without recursion, with a stack of its own;
 * `lines` learns the line starts on the way (for messages that name a line).
 */
export function yamlTooDeepAt(text: string, maxDepth: number, lines: LineCounter): number | null {
  const pending: Array<{ token: CST.Token; depth: number }> = [];
  for (const token of new Parser(lines.addNewLine).parse(text)) pending.push({ token, depth: 0 });
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { token, depth } = next;
    if (token.type === 'document') {
      if (token.value !== undefined) pending.push({ token: token.value, depth });
    } else if (CST.isCollection(token)) {
      if (depth + 1 > maxDepth) return token.offset;
      for (const item of token.items) {
        if (item.key !== undefined && item.key !== null) pending.push({ token: item.key, depth: depth + 1 });
        if (item.value !== undefined) pending.push({ token: item.value, depth: depth + 1 });
      }
    }
  }
  return null;
}
