import { useState } from 'preact/hooks';
import { formatDateTime } from '../../lib/format.ts';
import type { AuditEntryWire } from '../../modules/audit/audit.repo.ts';
import type { IntegrationExamples, ScannerExamples } from '../../modules/settings/examples.ts';
import type { SettingsOverview } from '../../modules/settings/settings.service.ts';
import type { EndpointWire } from '../../modules/webhooks/endpoints.service.ts';
import { Activity } from '../features/activity.tsx';
import { Webhooks } from '../features/webhooks.tsx';
import { api, errorText } from '../ui/api.ts';
import { useConfirm } from '../ui/dialog.tsx';
import { BusyButton } from '../ui/form.tsx';
import { Card, PageTitle } from '../ui/layout.tsx';
import { Notice, useNotice } from '../ui/notice.tsx';
import { CopyButton, Secret } from '../ui/secret.tsx';
import { mountPage } from '../ui/page-data.ts';

export interface IntegrationsData {
  overview: SettingsOverview;
  audit: AuditEntryWire[];
  webhooks: EndpointWire[];
}

type Revealed = { integration_key: string; examples: IntegrationExamples };

function Example({ id, title, text }: { id: string; title: string; text: string }) {
  return (
    <>
      <h3>{title}</h3>
      <pre id={id}>{text}</pre>
      <CopyButton text={text} />
    </>
  );
}

function Integrations({ overview, audit, webhooks }: IntegrationsData) {
  const [revealed, setRevealed] = useState<Revealed | null>(null);
  const [shown, setShown] = useState(false);
  const [since, setSince] = useState(overview.integration_key?.created_at ?? null);
  const [scanner, setScanner] = useState<{ token: string; examples: ScannerExamples } | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const [notice, say] = useNotice();
  const { ask, dialog } = useConfirm();
  const changed = () => setVersion((v) => v + 1);

  const run = async (name: string, action: () => Promise<void>) => {
    setBusy(name);
    try {
      await action();
      changed();
    } catch (err) {
      say('error', `No se pudo completar la acción: ${errorText(err)}`);
    } finally {
      setBusy(null);
    }
  };

  const toggleKey = () =>
    shown
      ? setShown(false)
      : run('reveal', async () => {
          setRevealed(revealed ?? (await api<Revealed>('POST', '/api/settings/integrations/key/reveal')));
          setShown(true);
        });
  const rotateKey = async () => {
    const yes = await ask('La clave actual deja de funcionar en el acto y tus integraciones van a necesitar la nueva.', {
      confirmLabel: 'Rotar clave',
      danger: true,
    });
    if (!yes) return;
    await run('rotate', async () => {
      setRevealed(await api<Revealed>('POST', '/api/settings/integrations/key/rotate'));
      setShown(true);
      setSince(new Date().toISOString());
      say('ok', 'Listo: la clave nueva ya está vigente. Actualizala en tus integraciones.');
    });
  };
  const rotateToken = async () => {
    const yes = await ask('El token actual deja de funcionar en el acto en todos tus escáneres.', {
      confirmLabel: 'Rotar token',
      danger: true,
    });
    if (!yes) return;
    await run('token', async () => {
      const data = await api<{ scanner_token: string; examples: ScannerExamples }>(
        'POST',
        '/api/settings/integrations/scanner-token/rotate',
      );
      setScanner({ token: data.scanner_token, examples: data.examples });
      say('ok', 'Token del escáner nuevo: cargalo en tus escáneres. No se vuelve a mostrar.');
    });
  };

  const key = overview.integration_key;
  return (
    <>
      <PageTitle lead="Conectá tu tienda online, tu ERP o tus automatizaciones con Mostrador.">Integraciones</PageTitle>
      <Notice notice={notice} id="action-message" />
      <Card title="Clave de integración">
        <p class="muted">
          Tus sistemas la mandan como <code>Authorization: Bearer …</code> a <code>{overview.endpoints.integration}</code> y
          firman el cuerpo con ella (<code>x-signature</code>).
        </p>
        <p class="row">
          <span class="secret" id="integration-key">
            {shown && revealed ? revealed.integration_key : key ? key.masked : 'sin clave activa'}
          </span>
          <BusyButton class="secondary" id="reveal-key" busy={busy === 'reveal'} aria-pressed={shown} onClick={toggleKey}>
            {shown ? 'Ocultar' : 'Mostrar'}
          </BusyButton>
          {shown && revealed ? <CopyButton text={revealed.integration_key} /> : null}
          <BusyButton class="danger" id="rotate-key" busy={busy === 'rotate'} onClick={rotateKey}>
            Rotar clave
          </BusyButton>
        </p>
        <p class="muted">
          {since ? `Vigente desde el ${formatDateTime(since)}. ` : ''}Al rotarla, la clave anterior deja de funcionar en el acto.
        </p>
      </Card>
      {shown && revealed ? (
        <Card title="Ejemplos listos para copiar" id="examples">
          <p class="muted">
            Usan tu clave real. El <code>x-sent-at</code> se calcula al ejecutar, así que el ejemplo sirve en cualquier momento.
          </p>
          <Example id="ex-curl" title="Enviar un evento firmado" text={revealed.examples.curl_signed} />
          <Example id="ex-poll" title="Consultar los eventos recibidos" text={revealed.examples.curl_poll} />
          <Example id="ex-script" title="Firmar cualquier cuerpo desde la terminal" text={revealed.examples.shell_signing} />
        </Card>
      ) : null}
      <Card title="Token del escáner de precios">
        <p class="muted">
          {overview.scanner_token
            ? `Vigente desde el ${formatDateTime(overview.scanner_token.created_at)}. `
            : 'No hay token activo. '}
          Solo se muestra una vez, al crearlo: si no lo tenés guardado, rotalo y cargá el nuevo en tus escáneres.
        </p>
        <BusyButton class="danger" id="rotate-token" busy={busy === 'token'} onClick={rotateToken}>
          Rotar token del escáner
        </BusyButton>
        {scanner ? (
          <div id="token-result">
            <p class="notice">Guardalo ahora: no lo vas a poder ver de nuevo.</p>
            <p>Token:</p>
            <Secret id="scanner-token" value={scanner.token} />
            <p>Pantalla de consulta de precios:</p>
            <Secret id="kiosk-url" value={scanner.examples.kiosk_url} />
            <Example id="ex-scanner" title="Consultar un precio" text={scanner.examples.curl_lookup} />
          </div>
        ) : null}
      </Card>
      <Webhooks initial={webhooks} onChange={changed} />
      <Activity url="/api/settings/audit?limit=20" initial={audit} version={version} />
      {dialog}
    </>
  );
}

mountPage<IntegrationsData>((data) => <Integrations {...data} />);
