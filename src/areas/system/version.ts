// Versions that take part in a decision (spec 01 §9). Areas add theirs (policy, detectors) at start.
import { readFileSync } from 'node:fs';
import { packagePath } from '../../infra/lib/package-root.js';

export const GATEWAY_VERSION: string = (
  JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }
).version;

export class VersionRegistry {
  private readonly components = new Map<string, () => string>();

  /** Adds a component whose version is read at request time (it may change while running). */
  add(name: string, read: () => string): void {
    this.components.set(name, read);
  }

  snapshot(): Record<string, string> {
    return Object.fromEntries([...this.components].map(([name, read]) => [name, read()]));
  }
}
