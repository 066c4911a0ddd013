/**
 * Argentine mobiles on WhatsApp: Meta sends the wa_id as 549 + 10 digits (area code and number), but
 * the same person is written 54 + 10 digits too (without the mobile 9), and in development mode Meta
 * may accept a send to only one of the two forms (131030). Every comparison of wa_ids goes through
 * here: `sameWaIdKey` is the one form both write to (its SQL twin, `whatsapp_person_key`, keeps one
 * thread per person in the database: migration 0310).
 */
const AR_MOBILE = /^549(\d{10})$/;
const AR_WITHOUT_NINE = /^54(\d{10})$/;

/** The key two spellings of the same number share: 54 + 10 digits becomes 549 + 10 digits. */
export function sameWaIdKey(waId: string): string {
  const bare = AR_WITHOUT_NINE.exec(waId);
  return bare ? `549${bare[1]}` : waId;
}

/** The other spelling of an Argentine number (549… ↔ 54…), or null when there is none. */
export function otherWaIdForm(waId: string): string | null {
  const mobile = AR_MOBILE.exec(waId);
  if (mobile) return `54${mobile[1]}`;
  const bare = AR_WITHOUT_NINE.exec(waId);
  return bare ? `549${bare[1]}` : null;
}
