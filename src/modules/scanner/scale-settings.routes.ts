import { Type } from 'typebox';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/app.types.ts';
import { companyCtx } from '../../http/request-context.ts';
import type { Shell } from '../../http/shell.ts';
import { createScaleSettings } from './scale-settings.ts';
import type { ScannerService } from './scanner.service.ts';

// Registered in the company-admin surface: the company is the session's.

const Prefix = Type.String({ pattern: '^2[0-9]$' });
const Layout = {
  prefixes: Type.Array(Prefix, { minItems: 1, maxItems: 10 }),
  pluDigits: Type.Integer({ minimum: 4, maximum: 6 }),
  value: Type.Union([Type.Literal('price'), Type.Literal('weight')]),
  decimals: Type.Integer({ minimum: 0, maximum: 3 }),
};
const SettingBody = Type.Object({ enabled: Type.Boolean(), ...Layout }, { additionalProperties: false });
const PreviewBody = Type.Object({ ...Layout, code: Type.String({ maxLength: 32 }) }, { additionalProperties: false });

export interface ScaleSettingsRouteDeps {
  db: Database;
  scanner: ScannerService;
  shell: Shell;
}

/** The owner's scale-label format: a settings screen with a live preview, and its JSON API. */
export function registerScaleSettingsRoutes(app: App, { db, scanner, shell }: ScaleSettingsRouteDeps) {
  const settings = createScaleSettings(db, scanner.forgetScaleLayout);

  app.get('/api/settings/scale-label', { schema: { hide: true } }, async (request) =>
    settings.read(companyCtx(request.ctx).companyId),
  );

  app.put('/api/settings/scale-label', { schema: { hide: true, body: SettingBody } }, async (request) =>
    settings.update(companyCtx(request.ctx), request.body),
  );

  app.post('/api/settings/scale-label/preview', { schema: { hide: true, body: PreviewBody } }, async (request) => {
    const { code, ...layout } = request.body;
    return settings.preview(companyCtx(request.ctx).companyId, layout, code.replace(/\s/g, ''));
  });

  app.get('/settings/scanner', { schema: { hide: true } }, async (request, reply) => {
    const ctx = companyCtx(request.ctx);
    const data = { company: request.authSession!.companyName, setting: await settings.read(ctx.companyId) };
    return shell.send(request, reply, { title: 'Escáner y balanzas', entry: 'settings-scanner', data });
  });
}
