import type { Scorer } from '../types.js';

export const SCORERS: readonly Scorer[] = [];
