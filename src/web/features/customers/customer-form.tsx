import { useState } from 'preact/hooks';
import { moneyText, parsePrice } from '../../ui/catalog.ts';
import { ApiError, api, errorText } from '../../ui/api.ts';
import { Field } from '../../ui/form.tsx';
import type { DocumentType } from '../../../modules/customers/customer-fields.ts';
import {
  CONDITION_OPTIONS,
  checkDocument,
  checkPhone,
  type Customer,
  DOCUMENT_LABELS,
  documentText,
  needsCuit,
} from './customer-text.ts';

/** The form's text of each field (what the inputs hold). */
interface FormState {
  name: string;
  documentType: DocumentType | '';
  document: string;
  ivaCondition: string;
  street: string;
  city: string;
  province: string;
  postalCode: string;
  email: string;
  phone: string;
  notes: string;
  accountEnabled: boolean;
  creditLimit: string;
}

function formOf(c: Customer | null): FormState {
  return {
    name: c?.name ?? '',
    documentType: c?.document_type ?? 'cuit',
    document: c?.document ?? '',
    ivaCondition: String(c?.iva_condition ?? 5),
    street: c?.address.street ?? '',
    city: c?.address.city ?? '',
    province: c?.address.province ?? '',
    postalCode: c?.address.postal_code ?? '',
    email: c?.email ?? '',
    phone: c?.phone ?? '',
    notes: c?.notes ?? '',
    accountEnabled: c?.account_enabled ?? false,
    creditLimit: c ? moneyText(c.credit_limit) : '',
  };
}

type Problems = Partial<Record<keyof FormState, string>>;

/** The API body of the form, or what is wrong with it (per field), checked as the server checks it. */
function bodyOf(form: FormState, full: boolean): { body: Record<string, unknown> } | { problems: Problems } {
  const problems: Problems = {};
  if (!form.name.trim()) problems.name = 'Escribí el nombre o la razón social.';
  const document = checkDocument(form.documentType, form.document);
  if (!document.ok) problems.document = document.message;
  const condition = Number(form.ivaCondition);
  if (needsCuit(condition, form.document.trim() ? form.documentType : '')) {
    problems.ivaCondition = 'Esta condición frente al IVA necesita el CUIT del cliente: cargalo arriba.';
  }
  const phone = checkPhone(form.phone);
  if (!phone.ok) problems.phone = phone.message;
  const limit = form.creditLimit.trim() ? parsePrice(form.creditLimit) : null;
  if (form.creditLimit.trim() && limit === null)
    problems.creditLimit = 'Escribí un importe, por ejemplo 300.000, o dejalo vacío.';
  if (Object.keys(problems).length > 0) return { problems };
  const hasDocument = form.document.trim() !== '';
  return {
    body: {
      name: form.name.trim(),
      document_type: hasDocument ? form.documentType : null,
      document: hasDocument ? form.document.trim() : null,
      iva_condition: condition,
      address: { street: form.street, city: form.city, province: form.province, postal_code: form.postalCode },
      ...(full
        ? {
            email: form.email.trim() || null,
            phone: form.phone.trim() || null,
            notes: form.notes.trim() || null,
            account_enabled: form.accountEnabled,
            credit_limit: limit,
          }
        : {}),
    },
  };
}

/** The field a refusal names (`details[].path`), for the message to go under it. */
const FIELD_OF_PATH: Record<string, keyof FormState> = {
  '/document': 'document',
  '/document_type': 'ivaCondition',
  '/iva_condition': 'ivaCondition',
  '/phone': 'phone',
  '/email': 'email',
  '/name': 'name',
};

/**
 * A customer's data, new or existing: document checked as it is typed (the CUIT's check digit),
 * IVA condition, address, contact and account settings. `compact` keeps only what an invoice needs
 * (name, document, condition, address): the quick creation from the invoice form.
 */
export function CustomerForm({
  customer,
  idPrefix = 'c',
  compact = false,
  onSaved,
  onCancel,
}: {
  customer: Customer | null;
  idPrefix?: string;
  compact?: boolean;
  onSaved: (customer: Customer, created: boolean) => void;
  onCancel?: () => void;
}) {
  const [form, setForm] = useState(() => formOf(customer));
  const [problems, setProblems] = useState<Problems>({});
  const [problem, setProblem] = useState('');
  const [busy, setBusy] = useState(false);
  const id = (key: string) => `${idPrefix}-${key}`;
  const set =
    <K extends keyof FormState>(key: K) =>
    (e: Event) => {
      const target = e.currentTarget as HTMLInputElement;
      const value = (target.type === 'checkbox' ? target.checked : target.value) as FormState[K];
      setForm((f) => ({ ...f, [key]: value }));
      if (problems[key]) setProblems((p) => ({ ...p, [key]: undefined }));
    };
  const document = checkDocument(form.documentType, form.document);
  const phone = checkPhone(form.phone);
  const problemOf = (key: keyof FormState) =>
    problems[key] ? (
      <span id={id(`${key}-problem`)} class="error-text" data-problem={key}>
        {problems[key]}
      </span>
    ) : null;

  async function submit(e: Event) {
    e.preventDefault();
    // The quick creation sits inside the invoice form: its submit must not reach that one.
    e.stopPropagation();
    const built = bodyOf(form, !compact);
    if ('problems' in built) {
      setProblems(built.problems);
      setProblem('Revisá los datos marcados.');
      return;
    }
    setBusy(true);
    setProblem('');
    try {
      const { customer: saved } = await api<{ customer: Customer }>(
        customer ? 'PATCH' : 'POST',
        customer ? `/api/v1/customers/${customer.id}` : '/api/v1/customers',
        { body: built.body },
      );
      setForm(formOf(saved));
      setProblems({});
      onSaved(saved, !customer);
    } catch (err) {
      const path = err instanceof ApiError ? err.body?.details?.[0]?.path : undefined;
      const field = path ? FIELD_OF_PATH[path] : undefined;
      if (field) setProblems({ [field]: errorText(err) });
      setProblem(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form id={id('form')} class="grid-form customer-form" onSubmit={submit} noValidate>
      <Field id={id('name')} label="Nombre o razón social">
        <input
          id={id('name')}
          required
          maxLength={200}
          autoComplete="off"
          value={form.name}
          onInput={set('name')}
          aria-invalid={Boolean(problems.name)}
        />
        {problemOf('name')}
      </Field>
      <Field id={id('document-type')} label="Tipo de documento">
        <select id={id('document-type')} value={form.documentType} onChange={set('documentType')}>
          {(Object.keys(DOCUMENT_LABELS) as DocumentType[]).map((type) => (
            <option key={type} value={type}>
              {DOCUMENT_LABELS[type]}
            </option>
          ))}
        </select>
      </Field>
      <Field id={id('document')} label={form.documentType ? DOCUMENT_LABELS[form.documentType] : 'Documento'}>
        <input
          id={id('document')}
          inputMode={form.documentType === 'pasaporte' ? 'text' : 'numeric'}
          autoComplete="off"
          maxLength={20}
          placeholder={form.documentType === 'dni' ? '28.456.789' : form.documentType === 'pasaporte' ? '' : '20-12345678-6'}
          value={form.document}
          onInput={set('document')}
          aria-invalid={!document.ok}
          aria-describedby={id('document-check')}
        />
        <p
          id={id('document-check')}
          class={`hint ${document.ok && !problems.document ? 'muted' : 'error-text'}`}
          aria-live="polite"
          data-document-check={document.ok ? 'ok' : 'bad'}
        >
          {problems.document && document.ok ? problems.document : document.message}
        </p>
      </Field>
      <Field id={id('iva')} label="Condición frente al IVA">
        <select
          id={id('iva')}
          value={form.ivaCondition}
          onChange={set('ivaCondition')}
          aria-invalid={Boolean(problems.ivaCondition)}
        >
          {CONDITION_OPTIONS.map(([code, label]) => (
            <option key={code} value={String(code)}>
              {label}
            </option>
          ))}
        </select>
        {problemOf('ivaCondition')}
      </Field>
      <Field id={id('street')} label="Domicilio (calle y número)">
        <input id={id('street')} maxLength={200} value={form.street} onInput={set('street')} />
      </Field>
      <Field id={id('city')} label="Localidad">
        <input id={id('city')} maxLength={120} value={form.city} onInput={set('city')} />
      </Field>
      <Field id={id('province')} label="Provincia">
        <input id={id('province')} maxLength={120} value={form.province} onInput={set('province')} />
      </Field>
      <Field id={id('postal-code')} label="Código postal">
        <input id={id('postal-code')} maxLength={20} value={form.postalCode} onInput={set('postalCode')} />
      </Field>
      {compact ? null : (
        <>
          <Field id={id('phone')} label="Teléfono o WhatsApp">
            <input
              id={id('phone')}
              type="tel"
              maxLength={40}
              placeholder="11 4321-5678"
              value={form.phone}
              onInput={set('phone')}
              aria-invalid={!phone.ok}
              aria-describedby={id('phone-check')}
            />
            <p id={id('phone-check')} class={`hint ${phone.ok && !problems.phone ? 'muted' : 'error-text'}`} aria-live="polite">
              {problems.phone && phone.ok ? problems.phone : phone.message}
            </p>
          </Field>
          <Field id={id('email')} label="Email">
            <input id={id('email')} type="email" maxLength={254} value={form.email} onInput={set('email')} />
            {problemOf('email')}
          </Field>
          <Field id={id('credit-limit')} label="Límite de crédito" hint="Vacío: sin límite.">
            <input
              id={id('credit-limit')}
              inputMode="decimal"
              placeholder="300.000"
              value={form.creditLimit}
              onInput={set('creditLimit')}
            />
            {problemOf('creditLimit')}
          </Field>
          <div class="field">
            <label class="check" for={id('account')}>
              <input id={id('account')} type="checkbox" checked={form.accountEnabled} onChange={set('accountEnabled')} />
              <span>Le vendés en cuenta corriente (fiado)</span>
            </label>
          </div>
          <div class="field wide">
            <label for={id('notes')}>Notas</label>
            <textarea id={id('notes')} rows={2} maxLength={2000} value={form.notes} onInput={set('notes')} />
          </div>
        </>
      )}
      {problem ? (
        <p class="error-text wide" role="alert" data-form-problem>
          {problem}
        </p>
      ) : null}
      <div class="row wide">
        <button type="submit" disabled={busy} aria-busy={busy} data-save-customer>
          {customer ? 'Guardar cambios' : 'Agregar cliente'}
        </button>
        {onCancel ? (
          <button type="button" class="secondary" onClick={onCancel}>
            Cancelar
          </button>
        ) : null}
        {customer?.document ? <span class="muted">{documentText(customer)}</span> : null}
      </div>
    </form>
  );
}
