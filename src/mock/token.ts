/**
 * OAuth2 client-credentials token endpoint for `SADAD_TOKEN_URL` flows (the spec does not say how a
 * token is obtained, §5 rule 4; a real deployment uses client credentials with tokens of about an
 * hour, domain notes). Not rate limited and not behind the API's own authentication.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { MockOptions } from './options.js';

export const TOKEN_PATH = '/oauth2/token';

export class TokenIssuer {
  private readonly expiries = new Map<string, number>();

  constructor(private readonly lifetimeSeconds: number) {}

  issue(now = Date.now()): { token: string; expiresIn: number } {
    for (const [t, at] of this.expiries) if (at <= now) this.expiries.delete(t);
    const token = `mock-${randomBytes(24).toString('base64url')}`;
    this.expiries.set(token, now + Math.round(this.lifetimeSeconds * 1000));
    return { token, expiresIn: Math.max(1, Math.ceil(this.lifetimeSeconds)) };
  }

  /** Ends an issued token before its time, as a gateway may; false when it was not an active one. */
  revoke(token: string): boolean {
    return this.expiries.delete(token);
  }

  isActive(token: string, now = Date.now()): boolean {
    const at = this.expiries.get(token);
    return at !== undefined && at > now;
  }
}

function same(a: string | undefined, b: string): boolean {
  if (a === undefined) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function basicCredentials(header: string | undefined): { id?: string; secret?: string } {
  const m = /^Basic\s+([A-Za-z0-9+/]+={0,2})$/i.exec(header ?? '');
  if (!m) return {};
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return {};
  return { id: decodeURIComponent(decoded.slice(0, colon)), secret: decodeURIComponent(decoded.slice(colon + 1)) };
}

const field = (body: Record<string, unknown>, name: string) => (typeof body[name] === 'string' ? (body[name] as string) : undefined);

/** Registers the endpoint in its own scope, so only it accepts form-encoded bodies. */
export function registerTokenEndpoint(app: FastifyInstance, options: MockOptions, issuer: TokenIssuer, methodNotAllowed: (req: FastifyRequest, reply: FastifyReply) => unknown) {
  app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });

    scope.post(TOKEN_PATH, async (req, reply) => {
      reply.header('cache-control', 'no-store');
      const body = req.body !== null && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : {};
      const grant = field(body, 'grant_type');
      if (grant === undefined) return reply.code(400).send({ error: 'invalid_request', error_description: 'grant_type is required' });
      if (grant !== 'client_credentials') return reply.code(400).send({ error: 'unsupported_grant_type' });
      let id = field(body, 'client_id');
      let secret = field(body, 'client_secret') ?? field(body, 'client_code');
      try {
        if (id === undefined && secret === undefined) ({ id, secret } = basicCredentials(req.headers.authorization));
      } catch {
        id = undefined; // undecodable percent-escapes in Basic credentials: no credentials
      }
      if (!same(id, options.clientId) || !same(secret, options.clientSecret)) {
        return reply.code(401).header('www-authenticate', 'Basic realm="sadad-mock"').send({ error: 'invalid_client' });
      }
      const { token, expiresIn } = issuer.issue();
      return reply.code(200).send({ access_token: token, token_type: 'Bearer', expires_in: expiresIn });
    });

    scope.route({ method: ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'], url: TOKEN_PATH, handler: methodNotAllowed });
  });
}
