import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../lib/errors.ts';
import { messageFor } from './api.ts';
import { DESCRIBED_CODES, describeError } from './messages.ts';

describe('describeError', () => {
  it('words every code the server answers with, in Spanish, without the English message', () => {
    const english = 'box 1 has no open session; open it to sell';
    for (const code of Object.keys(ERROR_STATUS)) {
      const text = describeError({ code, error: english });
      expect(text, code).not.toContain(english);
      expect(text, code).toMatch(/[a-záéíóúñ]/);
      expect(text, code).not.toBe(describeError({ code: 'an_unknown_code' }));
    }
    expect(DESCRIBED_CODES).toEqual(expect.arrayContaining(Object.keys(ERROR_STATUS)));
  });

  it('says what is wrong with an uploaded ARCA certificate instead of "revisá los datos"', () => {
    const refused = (path: string, message: string, reason?: string) =>
      describeError({ code: 'validation_failed', details: [{ path, message, ...(reason ? { reason } : {}) }] });
    expect(refused('/certificate', 'expired', 'certificate_expired')).toBe(
      'Ese certificado ya venció: generá uno nuevo en ARCA y subilo.',
    );
    expect(refused('/certificate', 'serialNumber CUIT mismatch', 'certificate_other_cuit')).toContain('es de otro CUIT');
    expect(refused('/certificate', 'PEM certificate', 'not_a_certificate')).toContain('Eso no es un certificado');
    expect(refused('/private_key', 'required', 'private_key_missing')).toContain('Falta la clave privada');
    expect(refused('/private_key', 'key and certificate do not match', 'key_mismatch')).toContain(
      'no corresponde a ese certificado',
    );
    // By the reason, never by the message: the same message without it is the general text of the field.
    expect(refused('/certificate', 'expired')).toBe('Revisá el certificado: hay un dato que no es válido.');
    expect(refused('/default_point_of_sale', 'one of points_of_sale')).toBe(
      'Revisá el punto de venta de las facturas: hay un dato que no es válido.',
    );
  });

  it('chooses by code, never by the message', () => {
    expect(describeError({ code: 'no_open_session', error: 'anything' })).toBe(
      'La caja no tiene un turno abierto: abrila para vender.',
    );
    expect(describeError({ code: 'invalid_state', error: 'box 1 has no open session' })).not.toContain('turno');
  });

  it('names the fields of a validation refusal by their path', () => {
    expect(describeError({ code: 'validation_failed', details: [{ path: '/barcode', message: 'x' }] })).toContain(
      'código de barras',
    );
    expect(describeError({ code: 'validation_failed', details: [{ path: '/items/0/price', message: 'x' }] })).toBe(
      'Revisá el precio: hay un dato que no es válido.',
    );
    expect(
      describeError({ code: 'validation_failed', details: [{ path: '/buyer', message: 'buyer_identification_required' }] }),
    ).toContain('RG 5700');
    // A Factura A receiver given by DNI or CUIL (fiscal-rules resolveBuyer).
    expect(describeError({ code: 'validation_failed', details: [{ path: '/buyer/doc_type', message: 'cuit' }] })).toContain(
      'solo con el CUIT del comprador',
    );
    // A withdrawal beyond the cash the drawer is expected to hold (box-sessions moveCash).
    expect(
      describeError({
        code: 'validation_failed',
        details: [{ path: '/amount', message: 'more_than_cash', expected: '4651.00' }],
      }),
    ).toBe(
      'En la caja debería haber $\u00a04.651,00 en efectivo: no se puede retirar más que eso. Si entró plata sin registrar, cargala primero como «Ingreso».',
    );
    // A TRANSFER without a destination, or to the same deposit (catalog createMovement).
    expect(describeError({ code: 'validation_failed', details: [{ path: '/to_deposit_id', message: 'x' }] })).toBe(
      'Revisá el depósito de destino: hay un dato que no es válido.',
    );
    expect(describeError({ code: 'validation_failed' })).toBe('Revisá los datos: hay alguno que no es válido.');
  });

  it('is what the API client shows when the page has no wording of its own', () => {
    expect(messageFor(422, { code: 'no_open_session', error: 'x' })).toBe(describeError({ code: 'no_open_session' }));
    expect(messageFor(422, { code: 'no_open_session', error: 'x' }, { no_open_session: 'propio' })).toBe('propio');
    expect(messageFor(418, { error: 'teapot' })).toBe('No se pudo completar (error 418).');
  });
});
