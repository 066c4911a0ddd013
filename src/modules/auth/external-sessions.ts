import { randomUUID } from 'node:crypto';
import type { Database } from '../../db/client.ts';
import { sha256Hex } from '../../lib/secrets.ts';
import { type AuditOrigin, recordAudit } from '../audit/audit.repo.ts';
import type { UserService } from '../users/users.service.ts';
import type { ExternalIdentity, ExternalVerifier } from './session-token.ts';
import * as repo from './sessions.repo.ts';

export interface ExternalSessionDeps {
  db: Database;
  users: UserService;
  verify: ExternalVerifier;
}

/**
 * Sessions signed by an external identity provider. A verified token gets a session row on first
 * use (keyed by its SHA-256), so it can be ended on logout and carries a chosen company like ours.
 */
export function createExternalSessions({ db, users, verify }: ExternalSessionDeps) {
  /** Subject first; else a verified email links the subject to that user once. Unknown people get no account. */
  async function resolveUser(identity: ExternalIdentity): Promise<number | null> {
    const linked = await repo.findIdentityUser(db.orm, identity.issuer, identity.subject);
    if (linked !== null) return linked;
    if (identity.email === null) return null;
    const user = await users.findUserByEmail(identity.email);
    if (!user || user.disabledAt) return null;
    await repo.linkIdentity(db.orm, identity.issuer, identity.subject, user.id);
    // Another request may have linked the subject first: whatever is stored wins.
    return repo.findIdentityUser(db.orm, identity.issuer, identity.subject);
  }

  async function startSession(identity: ExternalIdentity, userId: number, tokenHash: string, origin: AuditOrigin, now: Date) {
    const sessionId = randomUUID();
    await db.orm.transaction(async (tx) => {
      const inserted = await repo.insertSession(tx, {
        id: sessionId,
        userId,
        kind: 'external',
        tokenHash,
        companyId: null,
        ip: origin.ip,
        userAgent: origin.userAgent,
        now,
        expiresAt: identity.expiresAt,
      });
      // A concurrent request with the same token may have inserted it first: audit the login once.
      if (!inserted) return;
      const user = await users.findUserById(userId, tx);
      await recordAudit(tx, {
        action: 'auth.login',
        actor: user && { userId, email: user.email },
        companyId: null,
        origin,
        details: { session: sessionId, kind: 'external', issuer: identity.issuer },
      });
    });
  }

  return async function authenticateExternal(token: string, origin: AuditOrigin, now: Date): Promise<repo.SessionRecord | null> {
    const identity = await verify(token, now);
    if (!identity) return null;
    const tokenHash = sha256Hex(token);
    const known = await repo.findLiveSessionByTokenHash(db.orm, tokenHash, now);
    if (known) return known;
    const userId = await resolveUser(identity);
    if (userId === null) return null;
    await startSession(identity, userId, tokenHash, origin, now);
    return repo.findLiveSessionByTokenHash(db.orm, tokenHash, now);
  };
}
