import { useState } from 'preact/hooks';
import { formatDateTime, formatRelative } from '../../lib/format.ts';
import type { ApiTokenWire } from '../../modules/api-tokens/api-tokens.service.ts';
import { api, errorText } from '../ui/api.ts';
import { useConfirm } from '../ui/dialog.tsx';
import { Card, PageTitle, TableWrap } from '../ui/layout.tsx';
import { Notice, useNotice } from '../ui/notice.tsx';
import { mountPage } from '../ui/page-data.ts';
import { Secret } from '../ui/secret.tsx';

function Tokens({ tokens: initial }: { tokens: ApiTokenWire[] }) {
  const [tokens, setTokens] = useState(initial);
  const [name, setName] = useState('');
  const [scope, setScope] = useState<'read' | 'read-write'>('read-write');
  const [shown, setShown] = useState<{ name: string; secret: string } | null>(null);
  const [notice, say] = useNotice();
  const { ask, dialog } = useConfirm();

  async function reload() {
    setTokens((await api<{ tokens: ApiTokenWire[] }>('GET', '/api/v1/api-tokens')).tokens);
  }

  async function create(e: Event) {
    e.preventDefault();
    try {
      const answer = await api<{ token: ApiTokenWire; secret: string }>('POST', '/api/v1/api-tokens', {
        body: { name, scope },
        messages: { conflict: 'Ya hay un token activo con ese nombre: revocalo o elegí otro nombre.' },
      });
      setShown({ name: answer.token.name, secret: answer.secret });
      setName('');
      await reload();
    } catch (err) {
      say('error', errorText(err));
    }
  }

  async function revoke(token: ApiTokenWire) {
    const ok = await ask(`¿Revocar «${token.name}»? Deja de funcionar en este momento: lo que lo use va a recibir 401.`, {
      confirmLabel: 'Revocar',
      danger: true,
    });
    if (!ok) return;
    try {
      await api('POST', `/api/v1/api-tokens/${token.id}/revoke`);
      say('ok', `Token «${token.name}» revocado.`);
      await reload();
    } catch (err) {
      say('error', errorText(err));
    }
  }

  return (
    <>
      <PageTitle lead="Para que tu sistema, tu tienda o tus automatizaciones usen la API del comercio (/api/v1).">
        Tokens de API
      </PageTitle>
      <Notice notice={notice} />
      {shown ? (
        <Card title={`Token «${shown.name}»`} id="new-token">
          <p>
            <strong>Copialo ahora: no se vuelve a mostrar.</strong> Usalo como <code>Authorization: Bearer …</code>.
          </p>
          <Secret id="token-secret" value={shown.secret} />
        </Card>
      ) : null}
      <Card title="Crear un token">
        <form class="row" id="token-form" onSubmit={create}>
          <label for="token-name">Nombre</label>
          <input
            id="token-name"
            required
            maxLength={80}
            placeholder="Tienda online"
            value={name}
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
          <label for="token-scope">Alcance</label>
          <select
            id="token-scope"
            value={scope}
            onChange={(e) => setScope((e.target as HTMLSelectElement).value as 'read' | 'read-write')}
          >
            <option value="read-write">Lectura y escritura</option>
            <option value="read">Solo lectura</option>
          </select>
          <button type="submit">Crear token</button>
        </form>
        <p class="muted">
          Qué puede hacer cada uno: <a href="/docs/api-comercio">API del comercio</a>.
        </p>
      </Card>
      <Card title="Tokens">
        {tokens.length === 0 ? (
          <p>Todavía no creaste ningún token.</p>
        ) : (
          <TableWrap id="tokens">
            <thead>
              <tr>
                <th>Nombre</th>
                <th>Alcance</th>
                <th>Creado</th>
                <th>Último uso</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {tokens.map((t) => (
                <tr key={t.id} data-token={t.id}>
                  <td>
                    <strong>{t.name}</strong>
                    <br />
                    <span class="muted secret">{t.hint}</span>
                  </td>
                  <td>{t.scope === 'read' ? 'Solo lectura' : 'Lectura y escritura'}</td>
                  <td>
                    {formatDateTime(t.created_at)}
                    {t.created_by ? <span class="muted"> por {t.created_by}</span> : null}
                  </td>
                  <td>{t.last_used_at ? formatRelative(t.last_used_at) : 'Nunca'}</td>
                  <td>
                    {t.revoked_at ? (
                      <span class="muted">Revocado el {formatDateTime(t.revoked_at)}</span>
                    ) : (
                      <button type="button" class="secondary" onClick={() => void revoke(t)}>
                        Revocar
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </TableWrap>
        )}
      </Card>
      {dialog}
    </>
  );
}

mountPage<{ tokens: ApiTokenWire[] }>((data) => <Tokens {...data} />);
