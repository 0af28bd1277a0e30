// Where evidence packages (zip files) are kept. The file storage writes under
// `<data_dir>/evidence/`; gateways on one PostgreSQL database that should all serve downloads need
// that directory on a shared volume.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * A place for package files by name. Errors keep their system `code` (EBUSY, ENOSPC, EACCES…):
 * the evidence service decides from it whether another attempt may succeed.
 * @example const storage: EvidenceStorage = new FileEvidenceStorage('/var/lib/parapet/evidence')
 */
export interface EvidenceStorage {
  put(name: string, bytes: Uint8Array): Promise<void>;
  get(name: string): Promise<Uint8Array>;
}

const SAFE_NAME = /^[\w.-]{1,200}$/;

export class FileEvidenceStorage implements EvidenceStorage {
  constructor(readonly dir: string) {}

  async put(name: string, bytes: Uint8Array): Promise<void> {
    const file = this.file(name);
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    // Written aside, then renamed: a reader never sees half a package.
    const partial = `${file}.${process.pid}.partial`;
    await writeFile(partial, bytes, { mode: 0o600 });
    await rename(partial, file);
  }

  async get(name: string): Promise<Uint8Array> {
    return readFile(this.file(name));
  }

  private file(name: string): string {
    if (!SAFE_NAME.test(name) || name.startsWith('.')) throw new Error(`not a package file name: ${name}`);
    return path.join(this.dir, name);
  }
}
