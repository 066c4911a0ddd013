import { formatPesos } from '../../lib/money.ts';
import type { AccountCustomerRow } from './accounts.repo.ts';

// "Compartir": a short Spanish message with the statement's link, as a wa.me link (to the
// customer's WhatsApp when their phone is known) and as a mailto: draft.

export function shareTexts(v: { customer: AccountCustomerRow; companyName: string; balance: string; url: string }) {
  const amount = Number(v.balance);
  const state =
    amount > 0
      ? `tu saldo es de ${formatPesos(amount)}`
      : amount < 0
        ? `tenés un saldo a favor de ${formatPesos(-amount)}`
        : 'no tenés saldo pendiente';
  const text = `Hola ${v.customer.name}, te compartimos tu estado de cuenta en ${v.companyName}: ${state}. Lo podés ver acá: ${v.url}`;
  const phone = (v.customer.phone ?? '').replace(/\D/g, '');
  const whatsapp_url = `https://wa.me/${phone}?text=${encodeURIComponent(text)}`;
  const subject = `Estado de cuenta · ${v.companyName}`;
  const mailto_url = `mailto:${encodeURIComponent(v.customer.email ?? '')}?subject=${encodeURIComponent(subject)}&body=${encodeURIComponent(text)}`;
  return { text, whatsapp_url, mailto_url };
}
