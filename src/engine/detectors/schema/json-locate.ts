// Hot path: no I/O here. Finds where the value at a JSON pointer sits in a JSON text, so a schema
// violation can point at the offending value instead of the whole text.
//
// The scanner is iterative (no recursion, so deep nesting cannot overflow the stack) and only
// skips over values it does not need; a budget caps the characters it may look at in total, so
// many violations in a large text cost a bounded amount of work. The text is assumed to be valid
// JSON (JSON.parse accepted it before we get here); on anything unexpected it gives up and the
// caller falls back to the whole text.

export interface Span {
  start: number;
  end: number;
}

/** Characters the locator may scan, shared by all lookups made with one budget object. */
export interface LocateBudget {
  remaining: number;
}

class OutOfBudget extends Error {}

class Scanner {
  constructor(
    private readonly text: string,
    private readonly budget: LocateBudget,
  ) {}

  private spend(characters: number): void {
    this.budget.remaining -= characters;
    if (this.budget.remaining < 0) throw new OutOfBudget();
  }

  skipWhitespace(position: number): number {
    let index = position;
    while (index < this.text.length) {
      const code = this.text.charCodeAt(index);
      // space, tab, line feed, carriage return: the only whitespace JSON allows
      if (code !== 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) break;
      index += 1;
    }
    this.spend(index - position + 1);
    return index;
  }

  /** Index just past the string starting at `position` (which holds the opening quote). */
  skipString(position: number): number {
    let index = position + 1;
    while (index < this.text.length) {
      const char = this.text[index];
      if (char === '\\') index += 2;
      else if (char === '"') break;
      else index += 1;
    }
    this.spend(index - position + 1);
    return index + 1;
  }

  /** Index just past the value starting at `position`: brackets are counted, strings skipped. */
  skipValue(position: number): number {
    const first = this.text[position];
    if (first === '"') return this.skipString(position);
    if (first !== '{' && first !== '[') {
      // number, true, false or null: runs until a delimiter
      let index = position;
      while (index < this.text.length && !',}] \t\n\r'.includes(this.text[index] as string)) index += 1;
      this.spend(index - position + 1);
      return index;
    }
    let depth = 0;
    let index = position;
    while (index < this.text.length) {
      const char = this.text[index];
      if (char === '"') {
        index = this.skipString(index);
        continue;
      }
      if (char === '{' || char === '[') depth += 1;
      else if (char === '}' || char === ']') {
        depth -= 1;
        if (depth === 0) {
          this.spend(index - position + 1);
          return index + 1;
        }
      }
      index += 1;
    }
    throw new OutOfBudget();
  }

  /** The key string at `position`, unescaped, and the index past it. */
  readKey(position: number): { key: string; end: number } {
    const end = this.skipString(position);
    const raw = this.text.slice(position, end);
    return { key: raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1), end };
  }

  /** Start of the member value named `key` in the object at `position` (the last one wins, as in JSON.parse). */
  memberStart(position: number, key: string): number | undefined {
    let found: number | undefined;
    let index = this.skipWhitespace(position + 1);
    if (this.text[index] === '}') return undefined;
    while (index < this.text.length) {
      const { key: memberKey, end } = this.readKey(index);
      index = this.skipWhitespace(end);
      if (this.text[index] !== ':') return undefined;
      const valueStart = this.skipWhitespace(index + 1);
      if (memberKey === key) found = valueStart;
      index = this.skipWhitespace(this.skipValue(valueStart));
      if (this.text[index] !== ',') return found;
      index = this.skipWhitespace(index + 1);
    }
    return found;
  }

  /** Start of element `wanted` of the array at `position`. */
  elementStart(position: number, wanted: number): number | undefined {
    let index = this.skipWhitespace(position + 1);
    if (this.text[index] === ']') return undefined;
    for (let element = 0; index < this.text.length; element += 1) {
      if (element === wanted) return index;
      index = this.skipWhitespace(this.skipValue(index));
      if (this.text[index] !== ',') return undefined;
      index = this.skipWhitespace(index + 1);
    }
    return undefined;
  }
}

/** Splits a JSON pointer (RFC 6901) into unescaped reference tokens. */
export function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The span of the value at `pointer` in the JSON `text`, or undefined when it cannot be found cheaply. */
export function locatePointer(text: string, pointer: string, budget: LocateBudget): Span | undefined {
  if (budget.remaining <= 0) return undefined;
  const scanner = new Scanner(text, budget);
  try {
    let position = scanner.skipWhitespace(0);
    for (const segment of pointerSegments(pointer)) {
      const char = text[position];
      let next: number | undefined;
      if (char === '{') next = scanner.memberStart(position, segment);
      else if (char === '[' && /^(0|[1-9]\d*)$/.test(segment)) next = scanner.elementStart(position, Number(segment));
      if (next === undefined) return undefined;
      position = next;
    }
    return { start: position, end: scanner.skipValue(position) };
  } catch (error) {
    if (error instanceof OutOfBudget || error instanceof SyntaxError) return undefined;
    throw error;
  }
}
