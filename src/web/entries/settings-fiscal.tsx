import { useState } from 'preact/hooks';
import { formatCuit } from '../../lib/cuit.ts';
import { formatDate, formatDateTime } from '../../lib/format.ts';
import { api, errorText } from '../ui/api.ts';
import { BusyButton, DateInput, Field } from '../ui/form.tsx';
import { Card, PageTitle } from '../ui/layout.tsx';
import { Notice, useNotice } from '../ui/notice.tsx';
import { mountPage } from '../ui/page-data.ts';
import { CopyButton } from '../ui/secret.tsx';
import { CaeaPanel } from '../features/invoicing/caea-panel.tsx';

interface Check {
  ok: boolean;
  steps: { step: string; ok: boolean; message: string }[];
}

interface Setup {
  company_name: string;
  cuit: string | null;
  iva_condition: 'responsable_inscripto' | 'monotributo' | 'exento' | null;
  legal_name: string | null;
  address: string | null;
  gross_income: string | null;
  activity_start: string | null;
  auth_mode: 'delegation' | 'own_certificate';
  environment: 'homologacion' | 'produccion';
  points_of_sale: { number: number; emission_type: string | null; blocked: boolean }[];
  default_point_of_sale: number | null;
  certificate: { subject: string; cuit: string | null; not_before: string; not_after: string } | null;
  pending_csr: string | null;
  service_cuit: string | null;
  last_check: Check | null;
  last_check_at: string | null;
  ready: boolean;
  missing: string[];
}

const MESSAGES = {
  cuit_unavailable: 'Ese CUIT no se puede usar en esta empresa; escribinos a soporte.',
};

/** "1, 2, 4000" → [1, 2, 4000]; null when a part is not a point of sale number. */
function parsePoints(text: string): number[] | null {
  const parts = text
    .split(/[\s,;]+/)
    .map((p) => p.trim())
    .filter(Boolean);
  const numbers = parts.map(Number);
  return numbers.every((n) => Number.isInteger(n) && n >= 1 && n <= 99998) ? numbers : null;
}

function download(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/pkcs10' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** A PEM file (certificate or key): picked from disk or pasted; either way it lands in the text box. */
function PemField(props: {
  id: string;
  label: string;
  accept: string;
  fileLabel: string;
  rows: number;
  placeholder: string;
  value: string;
  onValue: (text: string) => void;
}) {
  return (
    <Field id={props.id} label={props.label}>
      <input
        type="file"
        accept={props.accept}
        aria-label={props.fileLabel}
        onChange={(e) => {
          const file = e.currentTarget.files?.[0];
          if (file) void file.text().then(props.onValue);
        }}
      />
      <textarea
        id={props.id}
        rows={props.rows}
        value={props.value}
        placeholder={props.placeholder}
        onInput={(e) => props.onValue(e.currentTarget.value)}
      />
    </Field>
  );
}

function CheckResult({ check, at }: { check: Check; at: string | null }) {
  return (
    <div id="check-result" aria-live="polite">
      <p class={check.ok ? 'ok' : 'error'}>
        <strong>{check.ok ? 'La conexión con ARCA funciona.' : 'La conexión con ARCA tiene un problema.'}</strong>
        {at ? <span class="muted"> ({formatDateTime(at)})</span> : null}
      </p>
      <ul class="check-steps">
        {check.steps.map((s) => (
          <li key={s.step} class={s.ok ? 'ok' : 'error'}>
            <strong>
              {s.ok ? '✓' : '✗'} {s.step}:
            </strong>{' '}
            {s.message}
          </li>
        ))}
      </ul>
    </div>
  );
}

function FiscalSettings({ setup: initial }: { setup: Setup }) {
  const [setup, setSetup] = useState(initial);
  const [form, setForm] = useState({
    cuit: initial.cuit ? formatCuit(initial.cuit) : '',
    iva_condition: initial.iva_condition ?? 'responsable_inscripto',
    legal_name: initial.legal_name ?? '',
    address: initial.address ?? '',
    gross_income: initial.gross_income ?? '',
    activity_start: initial.activity_start ?? '',
    auth_mode: initial.auth_mode,
    environment: initial.environment,
    points: initial.points_of_sale.map((p) => p.number).join(', '),
    default_point: initial.default_point_of_sale ? String(initial.default_point_of_sale) : '',
  });
  const [certificate, setCertificate] = useState('');
  const [privateKey, setPrivateKey] = useState('');
  const [busy, setBusy] = useState<string | null>(null);
  const [notice, show] = useNotice();
  const set = (patch: Partial<typeof form>) => setForm((f) => ({ ...f, ...patch }));

  async function run(name: string, action: () => Promise<void>) {
    setBusy(name);
    try {
      await action();
    } catch (err) {
      show('error', errorText(err));
    } finally {
      setBusy(null);
    }
  }

  const save = () =>
    run('save', async () => {
      const points = parsePoints(form.points);
      if (points === null) {
        show('error', 'Los puntos de venta son números del 1 al 99998, separados por comas.');
        return;
      }
      const next = await api<Setup>('PUT', '/api/v1/fiscal', {
        body: {
          ...(form.cuit.trim() ? { cuit: form.cuit.trim() } : {}),
          iva_condition: form.iva_condition,
          legal_name: form.legal_name || null,
          address: form.address || null,
          gross_income: form.gross_income || null,
          activity_start: form.activity_start || null,
          auth_mode: form.auth_mode,
          environment: form.environment,
          points_of_sale: points,
          default_point_of_sale: form.default_point ? Number(form.default_point) : null,
        },
        messages: MESSAGES,
      });
      setSetup(next);
      set({
        points: next.points_of_sale.map((p) => p.number).join(', '),
        default_point: String(next.default_point_of_sale ?? ''),
      });
      show('ok', next.ready ? 'Datos fiscales guardados. Ya podés facturar.' : 'Datos fiscales guardados.');
    });

  const check = () =>
    run('check', async () => {
      const result = await api<Check>('POST', '/api/v1/fiscal/check');
      const next = await api<Setup>('GET', '/api/v1/fiscal');
      setSetup({ ...next, last_check: result });
      set({
        points: next.points_of_sale.map((p) => p.number).join(', '),
        default_point: String(next.default_point_of_sale ?? ''),
      });
    });

  const csr = () =>
    run('csr', async () => {
      const { csr: text } = await api<{ csr: string }>('POST', '/api/v1/fiscal/csr', { body: {} });
      setSetup((s) => ({ ...s, pending_csr: text }));
      download(`mostrador-${setup.cuit ?? 'empresa'}.csr`, text);
      show('ok', 'Generamos la clave (queda guardada cifrada acá) y el pedido de certificado (CSR). Subilo a ARCA.');
    });

  const upload = () =>
    run('upload', async () => {
      const next = await api<Setup>('POST', '/api/v1/fiscal/certificate', {
        body: { certificate, ...(privateKey.trim() ? { private_key: privateKey } : {}) },
        messages: MESSAGES,
      });
      setSetup(next);
      set({ auth_mode: next.auth_mode });
      setCertificate('');
      setPrivateKey('');
      show('ok', 'Certificado guardado. Probá la conexión.');
    });

  return (
    <>
      <PageTitle lead="Facturas electrónicas con CAE de ARCA: tus datos fiscales, cómo se conecta Mostrador y tus puntos de venta.">
        Facturación electrónica
      </PageTitle>
      <Notice notice={notice} />
      <Card title="Estado" id="fiscal-status">
        {setup.ready ? (
          <p class="ok" id="fiscal-ready">
            Todo listo para facturar en{' '}
            <strong>{setup.environment === 'produccion' ? 'producción' : 'homologación (pruebas, sin validez fiscal)'}</strong>.
          </p>
        ) : (
          <div class="error" id="fiscal-missing">
            <p>Para facturar falta:</p>
            <ul>
              {setup.missing.map((m) => (
                <li key={m}>{m}</li>
              ))}
            </ul>
          </div>
        )}
        {setup.last_check ? <CheckResult check={setup.last_check} at={setup.last_check_at} /> : null}
        <p class="row">
          <BusyButton id="check" class="secondary" busy={busy === 'check'} onClick={check}>
            Probar conexión
          </BusyButton>
        </p>
      </Card>
      <Card title="Datos fiscales">
        <form
          class="grid-form"
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <Field id="cuit" label="CUIT" hint="11 dígitos, con o sin guiones.">
            <input
              id="cuit"
              inputMode="numeric"
              autoComplete="off"
              value={form.cuit}
              onInput={(e) => set({ cuit: e.currentTarget.value })}
            />
          </Field>
          <Field
            id="iva-condition"
            label="Condición frente al IVA"
            hint="Define la clase: un Responsable Inscripto emite A y B; Monotributo y Exento, C."
          >
            <select
              id="iva-condition"
              value={form.iva_condition}
              onChange={(e) => set({ iva_condition: e.currentTarget.value as typeof form.iva_condition })}
            >
              <option value="responsable_inscripto">IVA Responsable Inscripto</option>
              <option value="monotributo">Responsable Monotributo</option>
              <option value="exento">IVA Sujeto Exento</option>
            </select>
          </Field>
          <Field id="legal-name" label="Razón social" hint={`Si la dejás vacía, se imprime «${setup.company_name}».`}>
            <input
              id="legal-name"
              value={form.legal_name}
              maxLength={200}
              onInput={(e) => set({ legal_name: e.currentTarget.value })}
            />
          </Field>
          <Field id="address" label="Domicilio comercial">
            <input id="address" value={form.address} maxLength={300} onInput={(e) => set({ address: e.currentTarget.value })} />
          </Field>
          <Field id="gross-income" label="Ingresos Brutos (N.º)">
            <input
              id="gross-income"
              value={form.gross_income}
              maxLength={40}
              onInput={(e) => set({ gross_income: e.currentTarget.value })}
            />
          </Field>
          <Field id="activity-start" label="Inicio de actividades">
            <DateInput id="activity-start" value={form.activity_start} onValue={(day) => set({ activity_start: day })} />
          </Field>
          <Field
            id="environment"
            label="Ambiente"
            hint="Homologación es el de pruebas de ARCA: los comprobantes no tienen validez fiscal."
          >
            <select
              id="environment"
              value={form.environment}
              onChange={(e) => set({ environment: e.currentTarget.value as Setup['environment'] })}
            >
              <option value="homologacion">Homologación (pruebas)</option>
              <option value="produccion">Producción</option>
            </select>
          </Field>
          <Field
            id="points"
            label="Puntos de venta web service"
            hint="Los números que creaste en ARCA, separados por comas. «Probar conexión» los trae de ARCA."
          >
            <input id="points" inputMode="numeric" value={form.points} onInput={(e) => set({ points: e.currentTarget.value })} />
          </Field>
          <Field id="default-point" label="Punto de venta por defecto">
            <input
              id="default-point"
              inputMode="numeric"
              value={form.default_point}
              onInput={(e) => set({ default_point: e.currentTarget.value })}
            />
          </Field>
          <fieldset class="field">
            <legend>Cómo se conecta Mostrador con ARCA</legend>
            <label class="check">
              <input
                type="radio"
                name="auth-mode"
                value="delegation"
                checked={form.auth_mode === 'delegation'}
                onChange={() => set({ auth_mode: 'delegation' })}
              />
              Delegación en Mostrador (recomendado)
            </label>
            <label class="check">
              <input
                type="radio"
                name="auth-mode"
                value="own_certificate"
                checked={form.auth_mode === 'own_certificate'}
                onChange={() => set({ auth_mode: 'own_certificate' })}
              />
              Certificado propio de la empresa
            </label>
          </fieldset>
          <p class="row end">
            <BusyButton id="save" type="submit" busy={busy === 'save'}>
              Guardar datos fiscales
            </BusyButton>
          </p>
        </form>
      </Card>
      {form.auth_mode === 'delegation' ? (
        <Card title="Delegación en ARCA, paso a paso" id="delegation">
          {setup.service_cuit ? (
            <ol class="steps">
              <li>
                Entrá a <strong>arca.gob.ar</strong> con tu CUIT y clave fiscal y abrí{' '}
                <strong>Administrador de Relaciones de Clave Fiscal</strong>.
              </li>
              <li>
                Elegí <strong>Nueva relación</strong> → <strong>ARCA</strong> → <strong>WebServices</strong> →{' '}
                <strong>Facturación Electrónica</strong>.
              </li>
              <li>
                En «Representante» buscá el CUIT de Mostrador: <strong id="service-cuit">{formatCuit(setup.service_cuit)}</strong>{' '}
                <CopyButton text={setup.service_cuit} label="Copiar CUIT" /> y confirmá.
              </li>
              <li>
                En <strong>Administración de puntos de venta y domicilios</strong> creá un punto de venta del sistema{' '}
                <strong>«Factura Electrónica - Monotributo/RI - Web Services»</strong> y anotá su número arriba.
              </li>
              <li>Volvé acá y tocá «Probar conexión». Si delegaste recién, puede tardar unos minutos en verse.</li>
            </ol>
          ) : (
            <p class="error">
              Este servidor no tiene certificado propio de Mostrador configurado: usá un certificado propio de la empresa.
            </p>
          )}
        </Card>
      ) : (
        <Card title="Certificado propio" id="own-certificate">
          {setup.certificate ? (
            <dl class="facts" id="certificate-info">
              <dt>Certificado</dt>
              <dd>{setup.certificate.subject}</dd>
              <dt>Vence</dt>
              <dd>{formatDate(setup.certificate.not_after)}</dd>
            </dl>
          ) : (
            <p class="muted">Todavía no subiste un certificado.</p>
          )}
          <ol class="steps">
            <li>
              Generá la clave y el pedido de certificado (CSR) acá: la clave queda guardada cifrada y nunca sale de Mostrador.{' '}
              <BusyButton id="csr" class="secondary" busy={busy === 'csr'} onClick={csr}>
                Generar clave y CSR
              </BusyButton>
            </li>
            <li>
              En ARCA, con clave fiscal, abrí <strong>Administración de Certificados Digitales</strong> (o «WSASS» en
              homologación), creá un alias y subí el archivo <code>.csr</code>. Descargá el certificado (<code>.crt</code>).
            </li>
            <li>
              En el <strong>Administrador de Relaciones</strong>, asociá ese certificado al servicio{' '}
              <strong>Facturación Electrónica</strong>.
            </li>
            <li>Subí el certificado acá y probá la conexión.</li>
          </ol>
          {setup.pending_csr ? (
            <p class="muted" id="pending-csr">
              Hay un CSR generado esperando su certificado.{' '}
              <button
                type="button"
                class="link"
                onClick={() => download(`mostrador-${setup.cuit ?? 'empresa'}.csr`, setup.pending_csr!)}
              >
                Descargarlo de nuevo
              </button>
            </p>
          ) : null}
          <PemField
            id="certificate"
            label="Certificado (.crt, PEM)"
            accept=".crt,.pem,.cer"
            fileLabel="Archivo del certificado"
            rows={4}
            placeholder="-----BEGIN CERTIFICATE-----"
            value={certificate}
            onValue={setCertificate}
          />
          <PemField
            id="private-key"
            label="Clave privada (solo si no generaste el CSR acá)"
            accept=".key,.pem"
            fileLabel="Archivo de la clave"
            rows={3}
            placeholder="-----BEGIN PRIVATE KEY-----"
            value={privateKey}
            onValue={setPrivateKey}
          />
          <p class="row end">
            <BusyButton id="upload" busy={busy === 'upload'} onClick={upload} disabled={!certificate.trim()}>
              Guardar certificado
            </BusyButton>
          </p>
        </Card>
      )}
      {setup.ready ? <CaeaPanel canSave /> : null}
    </>
  );
}

mountPage<{ setup: Setup }>((data) => <FiscalSettings setup={data.setup} />);
