// Library packs: policies written in the pack language that operators can install (GET
// /api/library/packs, POST .../{pack_id}/install). Unlike the shipped packs they are not bound
// until installed, and they install in observe so that their effect is seen before it is enforced.
// The texts are packs/library/<id>.yaml, read once at start; the display names live here because
// the text is what an install stores and answers, word for word.
import { readPackFile } from '../packs/index.js';

export interface LibraryPack {
  id: string;
  name: string;
  text: string;
}

const LIBRARY_NAMES: ReadonlyArray<Omit<LibraryPack, 'text'>> = [
  { id: 'financial-actions', name: 'Financial actions' },
  { id: 'strict-personal-data', name: 'Strict personal data' },
  { id: 'code-agent', name: 'Coding agents' },
  { id: 'rag-hardening', name: 'Retrieval hardening' },
];

export const LIBRARY_PACKS: readonly LibraryPack[] = LIBRARY_NAMES.map((entry) => ({ ...entry, text: readPackFile('library', entry.id) }));
