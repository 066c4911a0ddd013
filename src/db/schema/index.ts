// Every table of the application, one file per migration area; add new areas here.
export * from './foundation.ts';
export * from './auth.ts';
export * from './webhooks.ts';
export * from './public.ts';
export * from './integration.ts';
export * from './limits.ts';
export * from './instagram.ts';
export * from './sales-agent.ts';
export * from './whatsapp.ts';
export * from './register.ts';
export * from './invoicing.ts';
export * from './arca.ts';
export * from './ids.ts';
export * from './tenancy.ts';
export * from './invitations.ts';
export * from './accounts.ts';
export * from './reports.ts';
