// The packs bound to the gateway, compiled once, with their current mode. A mode change compiles
// the pack again; the hot path reads `packs()` and never parses.
import { compilePack, type CompiledPack } from './evaluate.js';
import { parsePack } from './parse.js';
import type { Mode, Pack } from './schema.js';

export class PolicyRegistry {
  private readonly sources: Map<string, Pack>;
  private readonly modes = new Map<string, Mode>();
  private compiled: CompiledPack[];

  constructor(texts: readonly string[]) {
    this.sources = new Map(texts.map((text) => parsePack(text)).map((pack) => [pack.key, pack]));
    this.compiled = this.compile();
  }

  packs(): readonly CompiledPack[] {
    return this.compiled;
  }

  pack(key: string): Pack | undefined {
    return this.sources.get(key);
  }

  list(): Array<{ pack: Pack; mode: Mode }> {
    return [...this.sources.values()].map((pack) => ({ pack, mode: this.modes.get(pack.key) ?? pack.mode }));
  }

  modeOf(key: string): Mode | undefined {
    const pack = this.sources.get(key);
    return pack === undefined ? undefined : (this.modes.get(key) ?? pack.mode);
  }

  /** Applies modes (from an operator change or from the database); returns whether anything changed. */
  setModes(modes: Iterable<[string, Mode]>): boolean {
    let changed = false;
    for (const [key, mode] of modes) {
      if (!this.sources.has(key) || this.modeOf(key) === mode) continue;
      this.modes.set(key, mode);
      changed = true;
    }
    if (changed) this.compiled = this.compile();
    return changed;
  }

  /** `key@version:mode` for each pack, so /api/version can name what decided. */
  versions(): string {
    return this.list()
      .map(({ pack, mode }) => `${pack.key}@${pack.version}:${mode}`)
      .join(',');
  }

  private compile(): CompiledPack[] {
    return [...this.sources.values()].map((pack) => compilePack(pack, this.modes.get(pack.key)));
  }
}
