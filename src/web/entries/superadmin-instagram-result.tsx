import type { InstagramResultData } from '../../modules/instagram/oauth-result.ts';
import { Card, PageTitle } from '../ui/layout.tsx';
import { mountPage } from '../ui/page-data.ts';

const FAILURES: Record<string, string> = {
  not_configured: 'El canal de Instagram no está configurado: faltan INSTAGRAM_APP_ID e INSTAGRAM_APP_SECRET.',
  state_invalid: 'El enlace de conexión venció, ya se usó o es de otra sesión. Volvé a empezar la conexión.',
  denied: 'Cancelaste la autorización en Instagram; no se conectó ninguna cuenta.',
  missing_code: 'Instagram no devolvió el código de autorización. Volvé a intentar.',
  exchange_failed: 'Instagram no aceptó el intercambio del código por un token. Volvé a intentar en unos minutos.',
  missing_permission:
    'No se otorgó el permiso para administrar mensajes (instagram_business_manage_messages). Volvé a conectar y dejá ese permiso marcado.',
};
const UNKNOWN = 'No se pudo completar la conexión. Volvé a intentar en unos minutos.';

function InstagramResult({ ok, code, account, subscribed }: InstagramResultData) {
  let text: string;
  if (ok) {
    text = `Quedó conectada la cuenta ${account ?? ''}.`;
    if (!subscribed) text += ' No se pudo suscribir a los webhooks: la sincronización de cada minuto lo vuelve a intentar.';
  } else if (code === 'other_account') {
    text = `Ya está conectada la cuenta ${account ?? ''}. Conectar otra la reemplaza: los mensajes guardados de la anterior dejan de mostrarse.`;
  } else {
    text = FAILURES[code ?? ''] ?? UNKNOWN;
  }
  return (
    <>
      <PageTitle>{ok ? 'Cuenta de Instagram conectada' : 'No se pudo conectar Instagram'}</PageTitle>
      <Card>
        <p data-result={ok ? 'ok' : (code ?? '')}>{text}</p>
        {code === 'other_account' ? (
          <p>
            <a href="/superadmin/instagram/connect?replace=1">Reemplazar la cuenta conectada</a>
          </p>
        ) : null}
        <p>
          <a href="/superadmin/instagram">Volver a la bandeja</a>
          {ok ? null : (
            <>
              {' · '}
              <a href="/superadmin/instagram/connect">Conectar de nuevo</a>
            </>
          )}
        </p>
      </Card>
    </>
  );
}

mountPage<InstagramResultData>((data) => <InstagramResult {...data} />);
