/**
 * What the importer says when it cannot read the document: where (file, line, section) and what.
 * Nothing is written when one is thrown: the import either succeeds whole or leaves data/ as it was.
 */
export interface SpecPlace {
  /** The document's (or the overrides file's) base name. */
  source: string;
  line?: number;
  section?: string | null;
}

export class SpecImportError extends Error {
  constructor(readonly place: SpecPlace, readonly detail: string) {
    super(`${place.source}${place.line ? `:${place.line}` : ''}${place.section ? ` (§${place.section})` : ''}: ${detail}`);
    this.name = 'SpecImportError';
  }
}
