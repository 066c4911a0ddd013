/**
 * What the OAuth result page shows; src/web/entries/superadmin-instagram-result.tsx words it by `code`.
 * No imports: the browser bundle reads this type too.
 */
/** Why a connection attempt failed (the service's CallbackOutcome codes). */
export type InstagramResultCode =
  | 'state_invalid'
  | 'denied'
  | 'missing_code'
  | 'exchange_failed'
  | 'missing_permission'
  | 'other_account'
  | 'not_configured';

export interface InstagramResultData {
  ok: boolean;
  code: InstagramResultCode | null;
  /** The connected account ("@usuario" or its id) on success; the account already connected on other_account. */
  account: string | null;
  subscribed: boolean;
}
