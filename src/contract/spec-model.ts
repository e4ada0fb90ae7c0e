/**
 * The machine-readable spec, as `npm run spec -- import <document>` writes it (src/spec/): the field
 * tables in data/field-tables.json (field-tables.ts reads them), everything else in data/spec.json.
 * The catalogue, the headers, the rules' values and the spec coverage read it from here; nothing
 * about the API document is stated in code.
 */

/** Where the document came from: its title, file name (never a full path), content hash and version. */
export interface SpecDocument {
  title: string;
  /** The imported file's base name, e.g. `api-spec.md`. */
  source: string;
  /** `sha256:<hex>` of the imported file's bytes. */
  sha256: string;
  /** The version the document states (§9), or null where it states none. */
  version: string | null;
}

/** One operation of the endpoints table (§4) with the facts other sections give about it. */
export interface SpecOperation {
  /** Kebab case of the operation's title in the endpoints table: `bill-enquiry`. */
  id: string;
  title: string;
  method: string;
  path: string;
  /** TransactionType of its requests, MessageType of its answers (§4 rule 2, the tables' values). */
  transactionType: string;
  kind: 'enquiry' | 'payment';
  /** Operations sharing a rate-limit row of §8 share a group. */
  rateGroup: string;
  /** Sandbox calls per window (the endpoints table's rate limit column). */
  rateLimit: number;
  windowSeconds: number;
  requestRoot: string;
  responseRoot: string;
  listTag: string;
  responseSequenceField: string | null;
  clientHeaders: boolean;
  sections: { request: string; response: string; endpoint: string };
  /** The endpoints table's line in the document (1-based), for coverage and diff reports. */
  line: number;
}

/** A request header of the header table (§5), written with the spec's prefix (`SvcReferenceID`). */
export interface SpecHeader {
  name: string;
  /** A digest of its meaning's words (data/spec.json keeps no sentence of the document). */
  digest: string;
  /** The meaning in the document's words: in memory only, where a document was just read (a diff). */
  meaning?: string;
  line: number;
}

/** A numbered rule of a section (`4.2`: section 4, rule 2). */
export interface SpecRule {
  id: string;
  section: string;
  /** A digest of its words, spacing evened out: what tells a reworded rule (data/spec.json keeps no sentence of the document). */
  digest: string;
  /** The values it gives in code (`SADADENQ`, `clientid`). */
  values: string[];
  /** The rule in the document's words: in memory only, where a document was just read (a diff). */
  text?: string;
  line: number;
}

/** A row of the limits table (§8). */
export interface SpecLimit {
  name: string;
  value: string;
  line: number;
}

export interface SpecFacts {
  $comment?: string;
  document: SpecDocument;
  /** The prefix the document writes tags and the reference header with (`Svc`). */
  prefix: string;
  sections: { id: string; title: string; line: number }[];
  operations: SpecOperation[];
  headers: SpecHeader[];
  rules: SpecRule[];
  limits: SpecLimit[];
}
