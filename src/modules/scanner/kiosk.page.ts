import { escapeHtml } from '../../lib/html.ts';

/** The hashed addresses of the kiosk's two static files (src/http/assets.ts). */
export interface KioskAssets {
  script: string;
  styles: string;
}

/** Seconds the kiosk shows an answer before going back to its idle screen. */
export const KIOSK_IDLE_MS = 10_000;

/**
 * The kiosk's only page. The token is not written into it: kiosk.js reads it from the address
 * bar, and the no-referrer policy keeps it from leaking to product photo hosts.
 */
export function renderKioskPage(companyName: string, timeZone: string, assets: KioskAssets): string {
  const name = escapeHtml(companyName);
  const head = kioskHead(
    `Consultá el precio · ${companyName}`,
    'width=device-width, initial-scale=1, user-scalable=no',
    assets,
    `<script src="${assets.script}" defer></script>\n`,
  );
  return `${head}<body data-idle-ms="${KIOSK_IDLE_MS}" data-time-zone="${escapeHtml(timeZone)}">
<main id="kiosk">
  <header class="top"><span class="shop">${name}</span><button type="button" id="fullscreen">Pantalla completa</button></header>
  <section id="idle" class="screen" aria-hidden="false">
    <div class="bars" aria-hidden="true"></div>
    <h1>Consultá el precio</h1>
    <p>Acercá el código de barras al lector</p>
  </section>
  <section id="result" class="screen" hidden aria-live="polite">
    <img id="photo" alt="" hidden>
    <p id="mark" class="mark"></p>
    <h1 id="name"></h1>
    <p id="price" class="price"></p>
    <p id="usd" class="usd" hidden></p>
    <p id="label" class="label" hidden></p>
    <div id="alternatives" hidden>
      <h2>¿Buscabas alguno de estos?</h2>
      <ul id="alternatives-list"></ul>
    </div>
  </section>
  <section id="message" class="screen" hidden aria-live="assertive">
    <h1 id="message-title"></h1>
    <p id="message-detail"></p>
  </section>
  <form id="search" autocomplete="off">
    <label for="query">…o escribí el nombre y apretá Enter</label>
    <input id="query" name="query" type="search" inputmode="search" enterkeyhint="search" autofocus>
  </form>
  <footer id="rate" class="rate"></footer>
</main>
</body>
</html>
`;
}

/** The answer when the kiosk address is wrong (no token, or a token that is not valid). */
export function renderKioskProblem(title: string, detail: string, assets: KioskAssets): string {
  return `${kioskHead(title, 'width=device-width, initial-scale=1', assets)}<body>
<main id="kiosk"><section class="screen"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(detail)}</p></section></main>
</body>
</html>
`;
}

/** The document start shared by the kiosk's pages: no referrer (the token is in the address), no favicon request. */
function kioskHead(title: string, viewport: string, assets: KioskAssets, extra = ''): string {
  return `<!doctype html>
<html lang="es-AR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="${viewport}">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${assets.styles}">
${extra}</head>
`;
}
