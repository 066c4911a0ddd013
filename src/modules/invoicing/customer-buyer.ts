import { addressLine } from '../customers/customer-fields.ts';
import type { CustomerRow } from '../customers/customers.repo.ts';
import type { BuyerInput } from './fiscal-rules.ts';

/** The customer parts invoicing reads (a customer row of the same company). */
export type InvoiceCustomer = Pick<
  CustomerRow,
  'id' | 'name' | 'documentType' | 'document' | 'ivaCondition' | 'street' | 'city' | 'province' | 'postalCode'
>;

/** How invoicing finds a customer: null when the company has none with that id. */
export type FindCustomer = (companyId: number, id: number) => Promise<InvoiceCustomer | null>;

/** The customer's address as printed on a receipt; null when it has none. */
export function printedAddress(c: Pick<InvoiceCustomer, 'street' | 'city' | 'province' | 'postalCode'>): string | null {
  return addressLine({ street: c.street, city: c.city, province: c.province, postal_code: c.postalCode });
}

/**
 * The buyer of a receipt from a customer record: its CUIT, CUIL or DNI, its IVA condition (Consumidor
 * Final when it has none) and its name. A passport is not a document WSFEv1's receipts to a final
 * consumer need: such a customer is invoiced unidentified, with the name.
 */
export function buyerOfCustomer(customer: InvoiceCustomer): BuyerInput {
  const identified = customer.documentType !== null && customer.documentType !== 'pasaporte' && customer.document !== null;
  return {
    ...(identified ? { doc_type: customer.documentType as 'cuit' | 'cuil' | 'dni', doc_number: customer.document! } : {}),
    iva_condition: customer.ivaCondition ?? 5,
    name: customer.name,
  };
}
