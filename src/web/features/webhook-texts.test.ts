import { describe, expect, it } from 'vitest';
import { explainDeliveryError, explainEndpointProblems } from './webhook-texts.ts';

describe('delivery failures said in Spanish', () => {
  it.each([
    [
      'target 127.0.0.1 is a private or loopback address',
      null,
      'La dirección apunta a una red privada o a esta misma máquina (127.0.0.1): Mostrador solo envía a servidores públicos de internet. Usá la dirección pública de tu sistema.',
    ],
    [
      'target tienda.local resolves to the private or loopback address 10.0.0.4',
      null,
      'La dirección apunta a una red privada o a esta misma máquina (tienda.local): Mostrador solo envía a servidores públicos de internet. Usá la dirección pública de tu sistema.',
    ],
    [
      'getaddrinfo ENOTFOUND example.com',
      null,
      'No existe el servidor example.com (el nombre no se encuentra en DNS). Revisá que la dirección esté bien escrita.',
    ],
    [
      'timed out after 10000 ms',
      null,
      'Tu servidor tardó demasiado en responder (más de 10 segundos). Revisá que esté encendido y responda rápido.',
    ],
    [
      'connect ECONNREFUSED 203.0.113.5:443',
      null,
      'Tu servidor rechazó la conexión: no hay nada escuchando en esa dirección y puerto.',
    ],
    [
      'HTTP 301: redirects are not followed (location: https://x)',
      301,
      'Tu servidor respondió con una redirección (HTTP 301); Mostrador no las sigue: poné la dirección final.',
    ],
    ['HTTP 503', 503, 'Tu servidor falló al recibirlo (HTTP 503). Se reintenta solo.'],
    [null, 401, 'Tu servidor rechazó el envío (HTTP 401): revisá la verificación de la firma o los encabezados.'],
  ])('%s (%s)', (error, status, spanish) => {
    expect(explainDeliveryError(error, status)).toBe(spanish);
  });

  it('says each refused field of a new endpoint, never the English of the API', () => {
    const text = explainEndpointProblems([
      {
        path: 'url',
        message: '127.0.0.1 is a private or loopback address (allowed only with ALLOW_PRIVATE_WEBHOOK_TARGETS=true)',
      },
      { path: 'headers.X-Signature', message: 'is set by Mostrador on every delivery and cannot be replaced' },
    ]);
    expect(text).toBe(
      'La dirección apunta a una red privada o a esta misma máquina (127.0.0.1): Mostrador solo envía a servidores públicos de internet. Usá la dirección pública de tu sistema. El encabezado X-Signature lo pone Mostrador en cada envío: no se puede reemplazar.',
    );
    expect(text).not.toMatch(/ALLOW_PRIVATE|loopback/);
  });
});
