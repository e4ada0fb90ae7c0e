/**
 * OAuth2 client-credentials token endpoint for `SADAD_TOKEN_URL` flows (the spec does not say how a
 * token is obtained, §5 rule 4; a real deployment uses client credentials with tokens of about an
 * hour, domain notes). Not rate limited and not behind the API's own authentication.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CompanyRegistry } from './companies.js';
import type { TokenStore } from './store/index.js';

export const TOKEN_PATH = '/oauth2/token';

/** Issued tokens in memory (the default store): token -> when it expires and whose it is. */
export class TokenIssuer implements TokenStore {
  private readonly active = new Map<string, { expires: number; owner: string }>();

  issue(owner: string, lifetimeSeconds: number, now = Date.now()): { token: string; expiresIn: number } {
    for (const [t, a] of this.active) if (a.expires <= now) this.active.delete(t);
    const token = newToken();
    this.active.set(token, { expires: now + Math.round(lifetimeSeconds * 1000), owner });
    return { token, expiresIn: Math.max(1, Math.ceil(lifetimeSeconds)) };
  }

  revoke(token: string): boolean {
    return this.active.delete(token);
  }

  owner(token: string, now = Date.now()): string | undefined {
    const a = this.active.get(token);
    return a !== undefined && a.expires > now ? a.owner : undefined;
  }
}

/** A new bearer token: 24 random bytes, so that it cannot be guessed. */
export const newToken = () => `mock-${randomBytes(24).toString('base64url')}`;

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
export function registerTokenEndpoint(app: FastifyInstance, lifetimeSeconds: number, companies: CompanyRegistry, issuer: TokenStore, methodNotAllowed: (req: FastifyRequest, reply: FastifyReply) => unknown) {
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
      if (id === undefined || secret === undefined || !companies.clientMatches(id, secret)) {
        return reply.code(401).header('www-authenticate', 'Basic realm="sadad-mock"').send({ error: 'invalid_client' });
      }
      // the token is the client's: it serves the companies those credentials belong to, no other
      const { token, expiresIn } = await issuer.issue(id, lifetimeSeconds);
      return reply.code(200).send({ access_token: token, token_type: 'Bearer', expires_in: expiresIn });
    });

    scope.route({ method: ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'], url: TOKEN_PATH, handler: methodNotAllowed });
  });
}
