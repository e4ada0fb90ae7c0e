/**
 * What a change between two versions of the API document means, for each side (design.md §13):
 * ONE table, kind x direction -> impact on clients, impact on the service, and the reason in words
 * for each side. diff.ts finds the changes; everything it says about them comes from here, and
 * docs/spec-diff.md carries the same table (test/spec/diff.test.ts holds the two together).
 *
 * - **breaking for clients**: a client built to the old document can fail against a service built
 *   to the new one.
 * - **breaking for the service**: a service built to the old document does not conform to the new
 *   one: it needs a change and a new certification.
 * - **review**: a person must read it. Prose (a numbered rule, a header's meaning, a limit the
 *   tables do not carry) cannot be checked by a machine, and calling every reworded sentence
 *   breaking would bury the changes that are.
 *
 * The rows follow one idea, written out row by row so that each can be read and argued on its own:
 * a constraint added to a REQUEST value (a format, a constant, a pattern, a shorter maximum, a new
 * required field) narrows what clients may send: breaking for clients, and for the service, which
 * must now refuse what it accepted. Widening it (a constraint removed, a longer maximum, a second
 * spelling or JSON type accepted) leaves clients as they are, and the service must accept more.
 * On a RESPONSE the sides swap: a narrower answer is the service's work and leaves clients as they
 * are; a wider one (another spelling, another type, a field no longer promised) breaks a client
 * that read the old promise and costs the service nothing. A change that is neither narrower nor
 * wider (one type for another, one format for another) breaks both.
 */

export type Impact = 'breaking' | 'compatible' | 'review';
/** Which message a field change is in; null for what is not a field of a message. */
export type Direction = 'request' | 'response';

/** The kinds a field table's change can be: classified per direction (FIELD_KINDS below). */
const FIELD_KIND_LIST = [
  'message-added', 'message-removed', 'tag-changed',
  'field-added', 'optional-field-added', 'field-removed', 'optional-field-removed',
  'field-now-required', 'field-now-optional', 'type-changed', 'array-changed',
  'format-added', 'format-removed', 'format-changed',
  'const-added', 'const-removed', 'const-changed',
  'pattern-added', 'pattern-removed', 'pattern-changed',
  'max-length-shorter', 'max-length-longer', 'max-length-added', 'max-length-removed',
  'sample-type-added', 'sample-type-removed', 'sample-type-changed',
  'sample-format-added', 'sample-format-removed', 'sample-format-changed',
  'alias-added', 'alias-removed',
] as const;

export const CHANGE_KINDS = [
  // the document itself
  'title-changed', 'version-changed', 'prefix-changed',
  // operations and endpoints (§4 and the limits of §8)
  'operation-added', 'operation-removed', 'operation-renamed', 'path-changed', 'method-changed',
  'rate-limit-lower', 'rate-limit-higher', 'rate-window-longer', 'rate-window-shorter',
  // messages (§2) and their fields
  ...FIELD_KIND_LIST,
  // headers (§5)
  'header-added', 'header-removed', 'header-meaning-changed',
  // the numbered rules of every section, and the limits table (§8) beyond the rate limits
  'rule-added', 'rule-removed', 'rule-changed',
  'limit-added', 'limit-removed', 'limit-changed',
] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/**
 * Field kinds: classified once for a request and once for a response. Every other kind has one
 * row, with direction null.
 */
export const FIELD_KINDS: readonly ChangeKind[] = FIELD_KIND_LIST;

/**
 * One row of the table. The reasons are templates: `{op}` the operation, `{field}` the field's
 * path under its message's root, `{header}`, `{rule}`, `{before}` and `{after}` the values.
 */
export interface ClassificationRow {
  kind: ChangeKind;
  direction: Direction | null;
  clients: Impact;
  service: Impact;
  /** Why, for a client built to the old document. */
  forClients: string;
  /** Why, for a service built to the old document. */
  forService: string;
}

const B: Impact = 'breaking';
const C: Impact = 'compatible';
const R: Impact = 'review';

type Cells = [Impact, string, Impact, string];
const one = (kind: ChangeKind, [clients, forClients, service, forService]: Cells): ClassificationRow =>
  ({ kind, direction: null, clients, forClients, service, forService });
const both = (kind: ChangeKind, request: Cells, response: Cells): ClassificationRow[] => [
  { kind, direction: 'request', clients: request[0], forClients: request[1], service: request[2], forService: request[3] },
  { kind, direction: 'response', clients: response[0], forClients: response[1], service: response[2], forService: response[3] },
];

/** The words a prose change gets on both sides. */
const READ_IT = 'prose: a person must read it against the client, the suite cannot check it';
const READ_IT_SERVICE = 'prose: a person must read it against the service, the suite cannot check it';

export const CLASSIFICATION: readonly ClassificationRow[] = [
  one('title-changed', [C, 'the title names the document ({before} -> {after}); nothing sent or answered changes', C, 'the same: the title is no part of the interface']),
  one('version-changed', [C, 'the version labels the document ({before} -> {after}); what changed in it is listed change by change', C, 'the same: the version itself asks for nothing']),
  one('prefix-changed', [B, 'the root tags and the reference header are written with the prefix ({before} -> {after}); messages spelled the old way no longer match the document (a deployment\'s own prefixes are configured apart: SADAD_TAG_PREFIX, SADAD_HEADER_PREFIX)', B, 'it must spell its tags and read the reference header with the new prefix']),

  one('operation-added', [C, 'a client calls the operations it knows; {op} is there when it wants it', B, 'it must offer {op} and pass its cases']),
  one('operation-removed', [B, 'a client that calls {op} meets a service that need not offer it any more', C, 'it may keep serving {op}; the new document asks nothing of it']),
  one('operation-renamed', [C, 'only the title changed ({before} -> {after}), on the same method and path: nothing on the wire changes', C, 'the same (the suite\'s case ids follow the title)']),
  one('path-changed', [B, 'a client posting to {before} reaches no operation at {after}', B, 'it must serve {op} at {after}']),
  one('method-changed', [B, 'a client calling with {before} is refused where {after} is expected', B, 'it must serve {op} with {after}']),
  one('rate-limit-lower', [B, 'a client pacing at {before} calls per window is refused above {after}', B, 'it must refuse calls above {after} per window, where it allowed {before}']),
  one('rate-limit-higher', [C, 'a client pacing at {before} calls per window stays under {after}', B, 'it must allow {after} calls per window; refusing above {before} is now refusing too early']),
  one('rate-window-longer', [B, 'the same number of calls over a longer window ({before} s -> {after} s) is a lower rate: a client paced for the old window is refused', B, 'it must count calls over {after} s']),
  one('rate-window-shorter', [C, 'the same number of calls over a shorter window ({before} s -> {after} s) is a higher rate: a client paced for the old window stays under it', B, 'it must count calls over {after} s, and allow more of them per minute than before']),

  ...both('message-added',
    [R, 'a message table that was missing for {op} now exists: read it (a client may already send or read what it holds)', R, 'the same: read the new table against the service'],
    [R, 'a message table that was missing for {op} now exists: read it', R, 'the same: read the new table against the service']),
  ...both('message-removed',
    [R, 'the table of this message is gone while {op} stays: the document no longer says what to send; read it', R, 'the same: read it against the service'],
    [R, 'the table of this message is gone while {op} stays: the document no longer says what comes back; read it', R, 'the same: read it against the service']),
  ...both('tag-changed',
    [B, 'a client sending the tag {before} meets a service that expects {after}', B, 'it must read the tag {after}'],
    [B, 'a client looking for the tag {before} finds {after}', B, 'it must answer with the tag {after}']),

  ...both('field-added',
    [B, 'a client does not send {field}, which is now required', B, 'it must require {field} and act on it'],
    [C, 'a tolerant reader ignores the new field {field}', B, 'it must send {field} in every answer']),
  ...both('optional-field-added',
    [C, 'a client may leave out {field}, which is optional', B, 'it must accept {field} and act on it when it is sent'],
    [C, 'a tolerant reader ignores the new field {field}', C, 'it may send {field} or not']),
  ...both('field-removed',
    [C, 'a service ignores {field} when a client still sends it (extra fields are allowed)', B, 'it must stop requiring {field}'],
    [B, 'a client that reads {field} no longer finds it', C, 'it may keep sending {field}: extra fields are allowed, so the suite neither fails nor warns on it']),
  ...both('optional-field-removed',
    [C, 'a service ignores {field} when a client still sends it', C, 'it never required {field}; reading it when present harms no one'],
    [C, 'a client could not count on {field} before either', C, 'it may keep sending {field}']),
  ...both('field-now-required',
    [B, 'a client that leaves out {field} is refused', B, 'it must refuse a request without {field}'],
    [C, 'a client that handled a missing {field} handles a present one', B, 'it must send {field} in every answer']),
  ...both('field-now-optional',
    [C, 'a client that sends {field} still may', B, 'it must accept a request without {field}'],
    [B, 'a client that counts on {field} may not find it', C, 'it may keep sending {field} every time']),
  ...both('type-changed',
    [B, 'a client sends {field} as {before}, where {after} is expected', B, 'it must read {field} as {after}'],
    [B, 'a client reads {field} as {before} and receives {after}', B, 'it must send {field} as {after}']),
  ...both('array-changed',
    [B, 'a client builds {field} as {before}, where {after} is expected', B, 'it must read {field} as {after}'],
    [B, 'a client reads {field} as {before} and receives {after}', B, 'it must send {field} as {after}']),

  ...both('format-added',
    [B, 'a client\'s values of {field} may not be in the form {after}', B, 'it must refuse values of {field} that are not {after}'],
    [C, 'a client reading {field} as free text reads {after} too', B, 'it must send {field} as {after}']),
  ...both('format-removed',
    [C, 'a client\'s values in the form {before} are still accepted', B, 'it must accept {field} in any form, not only {before}'],
    [B, 'a client that parses {field} as {before} may receive another form', C, 'it may keep sending {before}']),
  ...both('format-changed',
    [B, 'a client sends {field} as {before}, where {after} is expected', B, 'it must read {field} as {after}'],
    [B, 'a client parses {field} as {before} and receives {after}', B, 'it must send {field} as {after}']),

  ...both('const-added',
    [B, 'a client may send another value of {field} than {after}', B, 'it must refuse any value of {field} but {after}'],
    [C, 'a client reading {field} gets one value it can already read', B, 'it must always send {after} in {field}']),
  ...both('const-removed',
    [C, 'a client sending {before} in {field} is still right', B, 'it must accept other values of {field} than {before}'],
    [B, 'a client that checks {field} is {before} may receive another value', C, 'it may keep sending {before}']),
  ...both('const-changed',
    [B, 'a client sends {before} in {field}, where {after} is expected', B, 'it must expect {after} in {field}, and refuse {before}'],
    [B, 'a client that checks {field} is {before} receives {after}', B, 'it must send {after} in {field}']),

  ...both('pattern-added',
    [B, 'a client\'s values of {field} may not be {after}', B, 'it must refuse values of {field} that are not {after}'],
    [C, 'a client reads {after} values of {field} as before', B, 'it must send only {after} values in {field}']),
  ...both('pattern-removed',
    [C, 'a client\'s {before} values of {field} are still accepted', B, 'it must accept values of {field} that are not {before}'],
    [B, 'a client that counts on {before} values of {field} may receive others', C, 'it may keep sending {before} values']),
  ...both('pattern-changed',
    [B, 'a client\'s {before} values of {field} may not be {after}', B, 'it must refuse values of {field} that are not {after}'],
    [B, 'a client that counts on {before} values of {field} receives {after} ones', B, 'it must send only {after} values in {field}']),

  ...both('max-length-shorter',
    [B, 'a client\'s values of {field} longer than {after} characters are refused (it was {before})', B, 'it must refuse values of {field} longer than {after} characters'],
    [C, 'a client that reads {before} characters of {field} reads {after}', B, 'it must send at most {after} characters in {field}']),
  ...both('max-length-longer',
    [C, 'a client\'s values of {field} (at most {before} characters) are still accepted', B, 'it must accept values of {field} up to {after} characters'],
    [B, 'a client that holds {before} characters of {field} may receive up to {after}', C, 'it may keep sending at most {before} characters']),
  ...both('max-length-added',
    [B, 'a client\'s values of {field} longer than {after} characters are refused', B, 'it must refuse values of {field} longer than {after} characters'],
    [C, 'a client reads values of {field} of any length, so these too', B, 'it must send at most {after} characters in {field}']),
  ...both('max-length-removed',
    [C, 'a client\'s values of {field} (at most {before} characters) are still accepted', B, 'it must accept values of {field} longer than {before} characters'],
    [B, 'a client that holds {before} characters of {field} may receive more', C, 'it may keep sending at most {before} characters']),

  ...both('sample-type-added',
    [C, 'a client sending {field} as the table\'s type is still right', B, 'it must also accept {field} as a JSON {after}, the type the sample shows'],
    [B, 'a client must accept {field} as a JSON {after} too, the type the sample shows', C, 'it may keep sending the table\'s type']),
  ...both('sample-type-removed',
    [B, 'a client sending {field} as a JSON {before}, the form the sample showed, may be refused', C, 'accepting the other form too harms no one'],
    [C, 'a client that accepts both forms of {field} accepts the table\'s one', B, 'it must send {field} as the table\'s type, no longer as a JSON {before}']),
  ...both('sample-type-changed',
    [B, 'a client sending {field} as a JSON {before}, the form the sample showed, may be refused', B, 'it must accept {field} as a JSON {after}'],
    [B, 'a client must accept {field} as a JSON {after}, where the sample showed {before}', B, 'where it sends the sample\'s form, it must send a JSON {after}']),

  ...both('sample-format-added',
    [C, 'a client sending {field} in the table\'s format is still right', B, 'it must also accept {field} in the form {after}, the one the sample shows'],
    [B, 'a client must accept {field} in the form {after} too, the one the sample shows', C, 'it may keep sending the table\'s format']),
  ...both('sample-format-removed',
    [B, 'a client sending {field} as {before}, the form the sample showed, may be refused', C, 'accepting the other form too harms no one'],
    [C, 'a client that accepts both forms of {field} accepts the table\'s one', B, 'it must send {field} in the table\'s format, no longer as {before}']),
  ...both('sample-format-changed',
    [B, 'a client sending {field} as {before}, the form the sample showed, may be refused', B, 'it must accept {field} as {after}'],
    [B, 'a client must accept {field} as {after}, where the sample showed {before}', B, 'where it sends the sample\'s form, it must send {after}']),

  ...both('alias-added',
    [C, 'a client sending the table\'s spelling of {field} is still right', B, 'it must also accept the spelling {after}'],
    [B, 'a client must accept the spelling {after} of {field} too', C, 'it may keep sending the table\'s spelling']),
  ...both('alias-removed',
    [B, 'a client spelling {field} as {before} may be refused', C, 'accepting the other spelling too harms no one'],
    [C, 'a client that accepts both spellings of {field} accepts the table\'s one', B, 'it must stop answering with the spelling {before}']),

  one('header-added', [B, 'a client does not send {header}, which every operation now requires', B, 'it must require {header} and read it']),
  one('header-removed', [C, 'a client that still sends {header} is not refused for it: an unknown header is ignored', B, 'it must stop requiring {header}']),
  one('header-meaning-changed', [R, `what {header} carries is described anew; ${READ_IT}`, R, READ_IT_SERVICE]),

  one('rule-added', [R, `{rule} is new; ${READ_IT}`, R, READ_IT_SERVICE]),
  one('rule-removed', [R, `{rule} is gone; a client may have relied on it (${READ_IT})`, R, `a service may have been built to it (${READ_IT_SERVICE})`]),
  one('rule-changed', [R, `{rule} says something else; ${READ_IT}`, R, READ_IT_SERVICE]),

  one('limit-added', [R, `a new row of the limits table, one the field and endpoint tables do not carry; ${READ_IT}`, R, READ_IT_SERVICE]),
  one('limit-removed', [R, `a row of the limits table is gone; ${READ_IT}`, R, READ_IT_SERVICE]),
  one('limit-changed', [R, `a limit the field and endpoint tables do not carry changed ({before} -> {after}); ${READ_IT}`, R, READ_IT_SERVICE]),
];

const rowKey = (kind: ChangeKind, direction: Direction | null) => `${kind}/${direction ?? '-'}`;
const BY_KEY = new Map(CLASSIFICATION.map((r) => [rowKey(r.kind, r.direction), r]));

/** The row for a change; a missing row is a bug in this table, named as such. */
export function classificationOf(kind: ChangeKind, direction: Direction | null): ClassificationRow {
  const wanted = FIELD_KINDS.includes(kind) ? direction : null;
  const row = BY_KEY.get(rowKey(kind, wanted));
  if (!row) throw new Error(`src/spec/classify.ts has no row for ${kind}${wanted ? ` in a ${wanted}` : ''}`);
  return row;
}

export type ReasonValues = Partial<Record<'op' | 'field' | 'header' | 'rule' | 'before' | 'after', string>>;

export function fillTemplate(template: string, values: ReasonValues): string {
  return template.replace(/\{(op|field|header|rule|before|after)\}/g, (m, k: keyof ReasonValues) => values[k] ?? m);
}

/** The change's reason in plain words for both sides. */
export function reasonOf(row: ClassificationRow, values: ReasonValues): string {
  return `For clients: ${fillTemplate(row.forClients, values)}. For the service: ${fillTemplate(row.forService, values)}.`;
}

/** The classes a change counts in (the summary line, `--fail-on`): a change breaking both sides counts in both. */
export type ChangeClass = 'breaking-for-clients' | 'breaking-for-service' | 'review' | 'compatible';
export const CHANGE_CLASSES: readonly ChangeClass[] = ['breaking-for-clients', 'breaking-for-service', 'review', 'compatible'];
export const CLASS_LABELS: Record<ChangeClass, string> = {
  'breaking-for-clients': 'breaking for clients',
  'breaking-for-service': 'breaking for the service',
  review: 'review',
  compatible: 'compatible',
};

export function classesOf(c: { clients: Impact; service: Impact }): ChangeClass[] {
  const out: ChangeClass[] = [];
  if (c.clients === 'breaking') out.push('breaking-for-clients');
  if (c.service === 'breaking') out.push('breaking-for-service');
  if (!out.length) out.push(c.clients === 'review' || c.service === 'review' ? 'review' : 'compatible');
  return out;
}

/**
 * The table as Markdown, as docs/spec-diff.md carries it (test/spec/diff.test.ts checks that the
 * page holds exactly this text, so the two cannot drift).
 */
export function classificationMarkdown(): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const lines = ['| kind | in | clients | service | why, for clients | why, for the service |', '|---|---|---|---|---|---|'];
  for (const r of CLASSIFICATION) {
    lines.push(`| \`${r.kind}\` | ${r.direction ?? ''} | ${r.clients} | ${r.service} | ${cell(r.forClients)} | ${cell(r.forService)} |`);
  }
  return lines.join('\n');
}
