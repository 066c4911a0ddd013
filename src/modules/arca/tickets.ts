import type { Database } from '../../db/client.ts';
import { withSerialLock } from '../../db/serial-lock.ts';
import { certificateFingerprint } from './certs.ts';
import { ArcaFaultError, ArcaTicketUnavailableError } from './errors.ts';
import * as repo from './tickets.repo.ts';
import { login } from './wsaa.ts';

/** Renew this long before the ticket expires: a ticket used at its last second fails ("No validaron las fechas del token"). */
export const TICKET_MARGIN_MS = 10 * 60_000;

export interface TicketRequest {
  certPem: string;
  keyPem: string;
  service: string;
  wsaaUrl: string;
  timeoutMs: number;
  now?: () => Date;
  marginMs?: number;
}

/**
 * A valid WSAA access ticket for this certificate and service. The stored one while it has more
 * than the margin left; otherwise one process logs in (the others wait on the same lock and then
 * read what it stored). ARCA refuses a new login while a ticket it gave is valid
 * (`coe.alreadyAuthenticated`): then a stored ticket that is still valid is used, and without one
 * the caller is told to wait.
 */
export async function getAccessTicket(
  db: Database,
  request: TicketRequest,
): Promise<{ token: string; sign: string; expiresAt: Date }> {
  const now = request.now ?? (() => new Date());
  const margin = request.marginMs ?? TICKET_MARGIN_MS;
  const fingerprint = certificateFingerprint(request.certPem);
  const usable = (row: repo.TicketRow | null) => row !== null && row.expiresAt.getTime() - margin > now().getTime();
  const stored = await repo.findTicket(db.orm, fingerprint, request.service);
  if (usable(stored)) return { token: stored!.token, sign: stored!.sign, expiresAt: stored!.expiresAt };
  return withSerialLock(db, `arca-ticket:${fingerprint}:${request.service}`, async () => {
    const again = await repo.findTicket(db.orm, fingerprint, request.service);
    if (usable(again)) return { token: again!.token, sign: again!.sign, expiresAt: again!.expiresAt };
    try {
      const ticket = await login({
        url: request.wsaaUrl,
        certPem: request.certPem,
        keyPem: request.keyPem,
        service: request.service,
        timeoutMs: request.timeoutMs,
        now: now(),
      });
      await repo.saveTicket(
        db.orm,
        {
          certFingerprint: fingerprint,
          service: request.service,
          token: ticket.token,
          sign: ticket.sign,
          generatedAt: ticket.generationTime,
          expiresAt: ticket.expirationTime,
        },
        now(),
      );
      return { token: ticket.token, sign: ticket.sign, expiresAt: ticket.expirationTime };
    } catch (err) {
      if (err instanceof ArcaFaultError && err.faultCode === 'coe.alreadyAuthenticated') {
        if (again && again.expiresAt.getTime() > now().getTime()) {
          return { token: again.token, sign: again.sign, expiresAt: again.expiresAt };
        }
        throw new ArcaTicketUnavailableError(
          'ARCA ya entregó un ticket de acceso para este certificado que Mostrador no tiene guardado (otro sistema usa el mismo certificado, o se perdió la respuesta). Se puede pedir otro en unos minutos.',
        );
      }
      throw err;
    }
  });
}
