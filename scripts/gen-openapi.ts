/**
 * Writes schemas/openapi.json: an OpenAPI 3.1 description of the four operations, built from the
 * operation catalogue, the header contract and the committed JSON Schemas (referenced, never
 * copied: `./<op>.request.schema.json`, `./<op>.response.schema.json`, the lenient profile).
 * Examples come from the suite's request generator with a fixed seed and fixed unique identifiers,
 * so the same inputs give a byte-identical file; test/contract/openapi.test.ts regenerates it in
 * memory and fails on any drift, validates it as OpenAPI 3.1 and mocks it with Prism.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_RATE_WINDOW_SECONDS, operation, operations, type Operation, type OperationId } from '../src/contract/catalogue.js';
import { optionalClientHeaderNames, referenceIdHeader } from '../src/contract/headers.js';
import { fieldName, messageTable, type FieldRow } from '../src/contract/field-tables.js';
import { documentedOnly, responseRows } from '../src/contract/documented.js';
import type { Fields, RequestBody } from '../src/contract/message.js';
import { SPEC_PREFIX } from '../src/contract/prefix.js';
import { schemaFileName } from '../src/contract/schema-files.js';
import { RequestGenerator } from '../src/generators/requests.js';
import { errorBody, MockError, REJECTIONS, type ErrorBody, type ErrorDetail } from '../src/mock/errors.js';
import { BODY_LIMIT } from '../src/mock/server.js';
import { ROOT, SCHEMAS_DIR } from '../src/paths.js';

type Json = Record<string, unknown>;

export const OPENAPI_FILE = join(SCHEMAS_DIR, 'openapi.json');
/** Seed of the request generator for the examples; change it and the examples change (run `npm run openapi`). */
export const EXAMPLE_SEED = 20261121;
/** Fixed times in the examples (`DateTimeStamp`, `TimeStamp`, dates, error `timeStamp`). */
const EXAMPLE_TIME = '2026-11-21T10:20:39';
const EXAMPLE_DATE = '20261121';
const EXAMPLE_ERROR_TIME = '2026-11-21T10:20:39.123+03:00';
const EXAMPLE_CORRELATION_ID = '7d3c8f0e-2b1a-4c5d-9e6f-0a1b2c3d4e5f';

const SUITE_VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const REFERENCE_ID = referenceIdHeader(SPEC_PREFIX);

const SUMMARIES: Record<OperationId, string> = {
  'bill-enquiry': 'Look up bills',
  'bill-payment': 'Pay bills',
  'moi-enquiry': 'Look up Ministry of Interior fees',
  'moi-payment': 'Pay Ministry of Interior fees',
};

/** The bill enquiry table's limit on AccountNumber (§2.1, §8), as the description states it. */
function accountNumberLimit(): number {
  const row = messageTable('bill-enquiry', 'request').fields.find((f) => fieldName(f.path) === 'AccountNumber');
  if (row?.maxLength === undefined) throw new Error('data/field-tables.json: bill-enquiry.request states no AccountNumber maxLength, which the description names');
  return row.maxLength;
}

/** `10 calls per minute` (the document's words for a 60 s window), else `N calls per W s`. */
const perWindow = (limit: number) => `${limit} calls per ${DEFAULT_RATE_WINDOW_SECONDS === 60 ? 'minute' : `${DEFAULT_RATE_WINDOW_SECONDS} s`}`;

const PURPOSES: Record<OperationId, string> = {
  'bill-enquiry': 'Returns the current state of each bill asked for (amount due, balance, billing-cycle dates, bill status), '
    + `identified by biller, bill category, subscriber and account number (\`AccountNumber\`: letters and digits, at most ${accountNumberLimit()}).`,
  'bill-payment': 'Pays each bill listed. `PayExactDue` `true` settles exactly the amount due; `false` pays the given `Amount` instead. '
    + 'Each `SequenceNumber` must be new: a reused one counts as a duplicate transaction (the spec does not say how it is refused; '
    + 'the suite\'s mock answers 409).',
  'moi-enquiry': 'Returns the Ministry of Interior fees owed for a person (`POINum`, `POIType`, `ID`) and a requested service, with the '
    + 'fee list and the references a payment needs (`FeeReferenceId`, `GroupPayId`, `SadadReferenceId`).',
  'moi-payment': 'Pays a Ministry of Interior fee found by an enquiry, through the bill-payment network, quoting the enquiry\'s '
    + 'references and due amount.',
};

const rateLimitOf = (op: Operation) => ({
  limit: op.defaultRateLimit,
  windowSeconds: DEFAULT_RATE_WINDOW_SECONDS,
  scope: 'per operation and company',
  environment: 'sandbox',
});

function rateLimitText(op: Operation): string {
  const r = rateLimitOf(op);
  return `Rate limit (sandbox; also in \`x-rate-limit\`): ${r.limit} calls per ${r.windowSeconds} s, counted per operation and calling `
    + 'company (`CompanyId`); production limits are set by contract. What happens beyond the limit is not stated by the spec; the '
    + 'suite\'s mock answers 429 with `Retry-After`.';
}

/** Unique identifiers fixed so the example is stable (the generator draws them from the clock). */
function fixedIds(op: Operation): { item: Fields; entry: Fields } {
  const tag = op.id.replace(/[^a-z]/g, '').toUpperCase().slice(0, 10).padEnd(10, '0');
  return { item: { TransactionReferenceNumber: `TEXAMPLE${tag}01` }, entry: { SequenceNumber: `SEXAMPLE${tag}01` } };
}

/** A valid request of the operation from the suite's generator: seed fixed, spec prefix, identifiers fixed. */
export function exampleRequest(opId: OperationId): RequestBody {
  const op = operation(opId);
  return new RequestGenerator({ seed: EXAMPLE_SEED, tagPrefix: SPEC_PREFIX }).build(opId, fixedIds(op));
}

/** The single item and entry of an example request. */
function itemAndEntry(op: Operation, body: RequestBody): { item: Fields; entry: Fields } {
  const item = (body.Message[op.requestRoot]![op.listTag] as Fields[])[0]!;
  return { item, entry: (item.TransactionData as Fields[])[0]! };
}

const str = (v: unknown) => String(v);

/** An accepted answer to the example request, in the tables' types (it meets the lenient and the strict profile). */
export function exampleResponse(opId: OperationId): Json {
  const op = operation(opId);
  const { item, entry } = itemAndEntry(op, exampleRequest(opId));
  const head = { BankCode: item.BankCode, CompanyCode: item.CompanyCode, TransactionReferenceNumber: item.TransactionReferenceNumber, MessageDescription: item.MessageDescription };
  let answer: Fields;
  switch (opId) {
    case 'bill-enquiry': {
      // the bill the payment example settles (same seed, same subject): AmountDue is what it pays
      const due = itemAndEntry(operation('bill-payment'), exampleRequest('bill-payment')).entry.Amount;
      answer = {
        ...head, Status: true,
        TransactionData: [{
          SequenceNumber: entry.SequenceNumber, BillerID: entry.BillerId, SubscriberNumber: entry.SubscriberNumber, ServiceType: 'POST',
          BillerDetail: `Biller ${str(entry.BillerId)}`, BillAccountID: entry.AccountNumber, BillNo: '1482093376150', BillCategory: entry.BillCategory,
          BillCategoryType: 'POSTPAID', AmountDue: due, BillPaid: 'N', CustType: 'Individual', BillStatus: 'BillUnpaid', Balance: due,
          PaidDate: '20261020', OpenDate: '20261017', CloseDate: '20261115', DueDate: '20261206', ExpiryDate: '20270114',
          StatusCode: true, StatusDetail: 'Success',
        }],
      };
      break;
    }
    case 'bill-payment':
      answer = {
        ...head, AccountNumber: item.AccountNumber, BankReferenceNumber: 'BR2026112100001',
        TransactionData: [{
          PaymentRefNumber: 'PR2026112100001', SADADRqUID: 'RQ2026112100001', SequenceNum: entry.SequenceNumber, BankReference: '3900174512',
          SadadReference: '8812093344', BillerID: entry.BillerId, SubscriberNumber: entry.SubscriberNumber, PaidAmount: entry.Amount,
          PaidDate: EXAMPLE_DATE, envelopeDateTime: EXAMPLE_TIME, StatusCode: true, StatusDetail: 'Success',
        }],
      };
      break;
    case 'moi-enquiry': {
      // the fee the payment example settles: its references and due amount are what the payment quotes
      const pay = itemAndEntry(operation('moi-payment'), exampleRequest('moi-payment')).entry;
      answer = {
        ...head, Status: true,
        TransactionData: [{
          ID: entry.ID, BillerID: entry.BillerID, GroupPayId: pay.GroupPayId, FeeReferenceId: pay.FeeReferenceId, SadadReferenceId: pay.SADADReferenceId,
          BeneficiaryName: 'Khalid Al-Harbi', DueAmount: pay.DueAmount, PreviousAmount: 0, PmtIdType: 'SPTN', StatusDetail: 'Success', StatusCode: true,
          FeeDetails: [{ Fees: { FeeType: 'Visa fee', FeeAmount: pay.DueAmount } }],
        }],
      };
      break;
    }
    case 'moi-payment':
      answer = {
        ...head, AccountNumber: item.AccountNumber, BankReferenceNumber: 'BR2026112100002',
        TransactionData: [{
          PaymentRefNumber: 'PR2026112100002', SADADRqUID: 'RQ2026112100002', SequenceNum: entry.SequenceNumber, BankReference: '3900174513',
          SadadReference: str(entry.SADADReferenceId), BillerID: entry.BillerID, SubscriberNumber: entry.ID, ServiceType: 'GOVT',
          PaidAmount: entry.DueAmount, StatusCode: true, FeeReferenceId: entry.FeeReferenceId, StatusDetail: 'Success',
          CurrentAmount: entry.DueAmount, PreviousAmount: 0, ID: entry.ID, VIsaNumber: '6012783345', BeneficiaryName: 'Khalid Al-Harbi',
          Fees: [{ FeeAmount: entry.DueAmount, FeeType: 'Visa fee' }],
        }],
      };
      break;
  }
  // the fields the response table documents: a row the document dropped leaves the example, one it added joins it (empty)
  const fill = (row: FieldRow) => (row.type === 'Object' || row.array ? undefined : row.format === 'YYYYMMDD' ? EXAMPLE_DATE
    : row.format === 'YYYY-MM-DDTHH:MM:SS' ? EXAMPLE_TIME : row.type === 'Numerical' ? 0 : row.type === 'Boolean' ? true : '');
  const entries = (answer.TransactionData as Fields[]).map((e) => documentedOnly(e, responseRows(opId, 'entry'), fill));
  answer = documentedOnly({ ...answer, TransactionData: entries }, responseRows(opId, 'item'), fill);
  return { [op.responseRoot]: { MessageType: op.transactionType, TimeStamp: EXAMPLE_TIME, [op.listTag]: [answer] } };
}

/** An error body as the mock sends it, with a fixed correlation id and time. */
function exampleError(status: number, code: string, message: string, details?: ErrorDetail[]): ErrorBody {
  return { ...errorBody(new MockError(status, code, message, details), EXAMPLE_CORRELATION_ID), timeStamp: EXAMPLE_ERROR_TIME };
}
const fromRejection = (r: { status: number; code: string; message: string }, details?: ErrorDetail[]) => exampleError(r.status, r.code, r.message, details);

const ONE_DEPLOYMENT = 'The spec defines no HTTP status codes and no error body for failed calls (§7): the body is the form one '
  + 'production deployment uses, as the suite\'s mock sends it, and the status code is the mock\'s. Other targets may answer '
  + 'differently, and some refuse in-band instead: HTTP 200 with a failed `StatusCode`/`Status` and a `StatusDetail` per entry.';

function errorResponse(description: string, examples: Record<string, { summary: string; value: ErrorBody }>, headers?: Json): Json {
  return {
    description: `${description} ${ONE_DEPLOYMENT}`,
    ...(headers ? { headers } : {}),
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' }, examples } },
  };
}

function components(): Json {
  const header = (name: string, description: string, schema: Json, example: string, required = true): Json =>
    ({ name, in: 'header', required, description, schema, example });
  return {
    securitySchemes: {
      bearerAuth: {
        type: 'http', scheme: 'bearer',
        description: 'An active access token in `Authorization: Bearer <token>` on every call. How the token is obtained and how long it '
          + 'lives are not stated (§5); the suite takes a static token or fetches one with OAuth2 client credentials. The spec also '
          + 'requires a request signature, but not its header or algorithm, so it is not described here.',
      },
    },
    parameters: {
      CompanyId: header('CompanyId', 'Identifier of the calling company, as registered at onboarding.', { type: 'string', minLength: 1 }, 'MYCOMPANY'),
      ReferenceId: header(REFERENCE_ID, `Reference identifier of the call. The name carries the service's prefix: \`${REFERENCE_ID}\` is the spec's spelling; `
        + 'a deployment uses its own prefix (e.g. `SVReferenceID`; the suite\'s `SADAD_HEADER_PREFIX`), so rename the header for your target.',
        { type: 'string', minLength: 1 }, 'EXAMPLE000000001'),
      DateTimeStamp: header('DateTimeStamp', 'Time of the request, `YYYY-MM-DDTHH:MM:SS` (ISO 8601 without zone or fraction).',
        { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}$' }, EXAMPLE_TIME),
      Device: header('Device', 'Device or channel of the caller; the allowed values are not stated.', { type: 'string', minLength: 1 }, 'Web'),
      ContentType: header('Content-Type', 'Always `application/json`. Listed because the spec lists it among the required headers; OpenAPI tools take it from '
        + 'the request body\'s media type and ignore this entry.', { type: 'string', const: 'application/json' }, 'application/json'),
      clientid: header('clientid', 'Client id. The bill operations\' sample requests carry it; whether it is required is not stated, so it is optional here '
        + '(the suite records whether a target needs it).', { type: 'string' }, '<CLIENT_ID>', false),
      clientsecret: header('clientsecret', 'Client secret, as `clientid`: carried by the bill operations\' samples, necessity not stated.',
        { type: 'string' }, '<CLIENT_SECRET>', false),
    },
    headers: {
      RetryAfter: {
        description: 'How long to wait before calling again: seconds, or an HTTP date.',
        schema: { type: 'string' },
        example: '42',
      },
      RateLimitLimit: { description: 'Calls allowed per window (sent by the suite\'s mock; not in the spec).', schema: { type: 'integer', minimum: 0 }, example: 10 },
      RateLimitRemaining: { description: 'Calls left in the current window (sent by the suite\'s mock; not in the spec).', schema: { type: 'integer', minimum: 0 }, example: 0 },
      RateLimitReset: { description: 'Seconds until the window resets (sent by the suite\'s mock; not in the spec).', schema: { type: 'integer', minimum: 0 }, example: 42 },
      WWWAuthenticate: { description: 'The authentication scheme expected.', schema: { type: 'string' }, example: 'Bearer realm="sadad-mock"' },
    },
    schemas: {
      ErrorDetail: {
        type: 'object',
        description: 'One offending part of the request.',
        required: ['pointer', 'expected', 'found'],
        properties: {
          pointer: { type: 'string', description: 'JSON pointer into the request body, or `header:<Name>` for a request header.' },
          expected: { type: 'string' },
          found: { type: 'string' },
        },
      },
      ErrorBody: {
        type: 'object',
        description: 'The error body one deployment sends, and the suite\'s mock with it. Not part of the spec (§7 gives no error form); '
          + 'extra properties are allowed.',
        required: ['correlationId', 'bankCode', 'errorCode', 'errorMessage', 'timeStamp'],
        properties: {
          correlationId: { type: 'string', description: 'Identifier of the call, for support requests.' },
          bankCode: { type: 'string', description: 'Bank code; may be empty.' },
          errorCode: { type: 'string', description: 'Machine-readable code, e.g. `MW-400-VALIDATION`, `MW-001`.' },
          errorMessage: { type: 'string' },
          timeStamp: { type: 'string', description: 'ISO 8601 with milliseconds and offset.' },
          details: { type: 'array', items: { $ref: '#/components/schemas/ErrorDetail' } },
        },
      },
    },
    responses: {
      BadRequest: errorResponse('The body is not JSON, or does not match the request schema.', {
        validation: {
          summary: 'A required field is missing',
          value: fromRejection(REJECTIONS.validation(), [{ pointer: `/Message/${SPEC_PREFIX}SadadBillEnquiryRequest/TransactionType`, expected: 'a value', found: 'missing' }]),
        },
        malformed: { summary: 'Not JSON', value: exampleError(400, 'MW-400-MALFORMED', 'Malformed request body: Unexpected end of JSON input') },
      }),
      Unauthorized: errorResponse('A required header is missing, or the token or the signature is not accepted.', {
        token: { summary: 'Unknown or expired token', value: exampleError(401, 'MW-401', 'UNAUTHORIZED', [{ pointer: 'header:Authorization', expected: 'an active access token', found: 'an unknown or expired token' }]) },
        header: { summary: 'A required header is missing', value: exampleError(401, 'MW-401', 'UNAUTHORIZED', [{ pointer: 'header:CompanyId', expected: 'header present', found: 'missing' }]) },
      }, { 'WWW-Authenticate': { $ref: '#/components/headers/WWWAuthenticate' } }),
      Conflict: errorResponse('The `SequenceNumber` was already used by an accepted payment (a duplicate transaction).', {
        duplicate: { summary: 'Duplicate SequenceNumber', value: fromRejection(REJECTIONS.duplicate()) },
      }),
      UnprocessableEntity: errorResponse('Well-formed, but refused by the business rules.', {
        notFound: { summary: 'Not found', value: fromRejection(REJECTIONS.notFound('Bill')) },
        expired: { summary: 'Expired', value: fromRejection(REJECTIONS.expired('Bill')) },
        alreadyPaid: { summary: 'Already paid', value: fromRejection(REJECTIONS.alreadyPaid('Bill')) },
      }),
      PayloadTooLarge: errorResponse(`The body is too large (the spec states no size limit; the mock refuses more than ${BODY_LIMIT} bytes).`, {
        tooLarge: { summary: 'Body too large', value: exampleError(413, 'MW-413', `Request body larger than ${BODY_LIMIT} bytes`) },
      }),
      UnsupportedMediaType: errorResponse('The body is not sent as `application/json`.', {
        mediaType: { summary: 'Not JSON', value: exampleError(415, 'MW-415', 'Unsupported media type: send Content-Type application/json') },
      }),
      TooManyRequests: errorResponse('The operation\'s rate limit is spent for the current window (see `x-rate-limit`).', {
        rateLimit: { summary: 'Rate limit exceeded', value: exampleError(429, 'MW-429', `Rate limit exceeded: ${operation('bill-enquiry').defaultRateLimit} calls per ${DEFAULT_RATE_WINDOW_SECONDS} s for ${operation('bill-enquiry').title}`) },
      }, {
        'Retry-After': { $ref: '#/components/headers/RetryAfter' },
        'X-RateLimit-Limit': { $ref: '#/components/headers/RateLimitLimit' },
        'X-RateLimit-Remaining': { $ref: '#/components/headers/RateLimitRemaining' },
        'X-RateLimit-Reset': { $ref: '#/components/headers/RateLimitReset' },
      }),
      ServerError: errorResponse('A failure of the service (500) or of a gateway in front of it (502, 503, 504); 503 may carry `Retry-After`.', {
        internal: { summary: 'Internal error', value: exampleError(500, 'MW-500', 'Internal error') },
        unavailable: { summary: 'Service unavailable', value: exampleError(503, 'MW-503', 'Service unavailable: try again later') },
      }, { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } }),
    },
  };
}

function pathItem(op: Operation): Json {
  const ref = (name: string) => ({ $ref: `#/components/parameters/${name}` });
  const parameters = [ref('CompanyId'), ref('ReferenceId'), ref('DateTimeStamp'), ref('Device'), ref('ContentType'), ...optionalClientHeaderNames(op).map(ref)];
  const res = (name: string) => ({ $ref: `#/components/responses/${name}` });
  const clientNote = op.clientHeaders ? ' The spec\'s samples of this operation also carry `clientid` and `clientsecret` (optional here).' : '';
  return {
    post: {
      operationId: op.id,
      summary: SUMMARIES[op.id],
      description: `${PURPOSES[op.id]}\n\n\`TransactionType\` is \`${op.transactionType}\`; the answer's \`MessageType\` repeats it. `
        + `The request body follows api-spec §${op.sections.request}, the answer §${op.sections.response}; the answer has one item `
        + `per request item and one \`TransactionData\` entry per request entry, in order.${clientNote}\n\n${rateLimitText(op)}`,
      tags: [op.rateGroup === 'bill' ? 'Bills' : 'MOI fees'],
      security: [{ bearerAuth: [] }],
      parameters,
      requestBody: {
        required: true,
        description: `\`{ "Message": { "${op.requestRoot}": ... } }\`; every field is required. Root tags carry the service's prefix `
          + `(\`${SPEC_PREFIX}\` as the spec writes them); a deployment may use its own.`,
        content: {
          'application/json': {
            schema: { $ref: `./${schemaFileName(op.id, 'request')}` },
            examples: {
              generated: {
                summary: `A valid ${op.title.toLowerCase()} request`,
                description: `Built by the suite's request generator (seed ${EXAMPLE_SEED}, prefix \`${SPEC_PREFIX}\`), unique identifiers fixed.`,
                value: exampleRequest(op.id),
              },
            },
          },
        },
      },
      responses: {
        200: {
          description: `The answer, \`{ "${op.responseRoot}": ... }\` with no \`Message\` wrapper. The schema is the suite's lenient profile: `
            + 'the field tables\' types plus the JSON types the spec\'s samples show (e.g. `StatusCode` `true` or `"OK"`). '
            + 'An entry may carry a failed `StatusCode` with the reason in `StatusDetail`.',
          content: {
            'application/json': {
              schema: { $ref: `./${schemaFileName(op.id, 'lenient')}` },
              examples: { accepted: { summary: 'Every entry accepted', value: exampleResponse(op.id) } },
            },
          },
        },
        400: res('BadRequest'),
        401: res('Unauthorized'),
        ...(op.kind === 'payment' ? { 409: res('Conflict') } : {}),
        413: res('PayloadTooLarge'),
        415: res('UnsupportedMediaType'),
        422: res('UnprocessableEntity'),
        429: res('TooManyRequests'),
        '5XX': res('ServerError'),
      },
      'x-rate-limit': rateLimitOf(op),
      'x-transaction-type': op.transactionType,
      'x-spec-sections': op.sections,
    },
  };
}

export function buildOpenApi(): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Bill and MOI fee payment API',
      version: SUITE_VERSION,
      summary: 'Bill enquiry, bill payment, Ministry of Interior fee enquiry and fee payment: JSON over HTTP POST.',
      description: [
        'Four operations that look up and pay bills and Ministry of Interior (MOI) fees over a national bill-payment network, '
          + 'described from `api-spec.md` (the only spec) by the SADAD conformance suite. The bodies are the suite\'s own JSON Schemas '
          + '(draft 2020-12) in the files next to this one: requests require every field; answers use the lenient profile.',
        'Prefixes: the spec writes root tags and the reference-id header with the prefix `Svc` (`SvcSadadBillEnquiryRequest`, '
          + '`SvcReferenceID`). Deployments use their own (e.g. `OSV...` tags, `SVReferenceID`); adjust both for your target.',
        'Not described here, and checked by the suite instead: pacing within the rate limits, duplicate `SequenceNumber` handling '
          + '(never a second debit), stateful rules (a payment changes what the next enquiry answers), echo and order of entries, '
          + 'and the request signature (its header and algorithm are not stated).',
        `\`info.version\` is the suite's version: the spec has no versioning scheme (§9).`,
      ].join('\n\n'),
    },
    servers: [{
      url: '{baseUrl}',
      description: 'The sandbox address is given at onboarding; the default is the suite\'s mock (`npm run mock`).',
      variables: { baseUrl: { default: 'http://127.0.0.1:4010', description: 'Base URL of the target, no trailing slash.' } },
    }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'Bills', description: `Bill enquiry and payment (sandbox: ${perWindow(operations.find((o) => o.rateGroup === 'bill')!.defaultRateLimit)} per operation).` },
      { name: 'MOI fees', description: `Ministry of Interior fee enquiry and payment (sandbox: ${perWindow(operations.find((o) => o.rateGroup === 'moi')!.defaultRateLimit)} per operation).` },
    ],
    paths: Object.fromEntries(operations.map((op) => [op.path, pathItem(op)])),
    components: components(),
  };
}

/** The file's exact text. */
export function renderOpenApi(): string {
  return JSON.stringify(buildOpenApi(), null, 2) + '\n';
}

const SCHEMA_FILE_REF = /^(?:\.\/)?([A-Za-z0-9.-]+)\.schema\.json(#.*)?$/;

/** `./x.schema.json#/a/b` (or `#/a/b` inside file x) as a pointer into the bundle's components. */
function bundledRef(ref: string, inFile: string | undefined): string {
  const m = SCHEMA_FILE_REF.exec(ref);
  if (m) return `#/components/schemas/${m[1]}${(m[2] ?? '').slice(1)}`;
  if (ref.startsWith('#') && inFile !== undefined) return `#/components/schemas/${inFile}${ref.slice(1)}`;
  if (ref.startsWith('#')) return ref;
  throw new Error(`cannot bundle $ref ${JSON.stringify(ref)}`);
}

function rewriteRefs(node: unknown, inFile: string | undefined, found: Set<string>): unknown {
  if (Array.isArray(node)) return node.map((n) => rewriteRefs(n, inFile, found));
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$ref' && typeof v === 'string') {
      const m = SCHEMA_FILE_REF.exec(v);
      if (m) found.add(m[1]!);
      out[k] = bundledRef(v, inFile);
    } else out[k] = rewriteRefs(v, inFile, found);
  }
  return out;
}

/**
 * The same document in one self-contained file, for tools that cannot read the schema files next
 * to it, or that resolve the references inside them against the schemas' `$id`s (a placeholder
 * host, not a server): every schema file it uses is copied under `components.schemas` (named by
 * its file, `bill-enquiry.request`, `common`, ...), without its `$id` and `$schema`, and every
 * `$ref` becomes a pointer into the document. Not committed: `npm run openapi -- --bundle <file>`.
 */
export function buildBundledOpenApi(): Json {
  const doc = buildOpenApi();
  const pending = new Set<string>();
  const bundled = rewriteRefs(doc, undefined, pending) as Json & { components: { schemas: Json } };
  const embedded: Json = {};
  const done = new Set<string>();
  while (pending.size > 0) {
    const stem = [...pending].sort()[0]!;
    pending.delete(stem);
    if (done.has(stem)) continue;
    done.add(stem);
    const { $id: _id, $schema: _dialect, ...schema } = JSON.parse(readFileSync(join(SCHEMAS_DIR, `${stem}.schema.json`), 'utf8')) as Json;
    const found = new Set<string>();
    embedded[stem] = rewriteRefs(schema, stem, found);
    for (const f of found) if (!done.has(f)) pending.add(f);
  }
  const names = Object.keys(embedded).sort();
  bundled.components.schemas = { ...bundled.components.schemas, ...Object.fromEntries(names.map((n) => [n, embedded[n]])) };
  return bundled;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--bundle');
  if (at >= 0) {
    const out = args[at + 1];
    if (!out) throw new Error('--bundle needs a file name: npm run openapi -- --bundle /tmp/sadad-openapi.json');
    writeFileSync(out, JSON.stringify(buildBundledOpenApi(), null, 2) + '\n');
    console.log(`wrote ${out} (self-contained)`);
  } else {
    writeFileSync(OPENAPI_FILE, renderOpenApi());
    console.log(`wrote ${OPENAPI_FILE}`);
  }
}
