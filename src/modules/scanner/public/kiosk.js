// Price-checker kiosk: a USB barcode reader types digits and Enter into the focused input;
// a person can also type a name. Answers come from /api/public/scanner; USD from /api/exchange.
(() => {
  // Trimmed as the page's route trimmed it to let the kiosk open: the API compares the token as sent.
  const token = (new URLSearchParams(location.search).get('token') || '').trim();
  const idleMs = Number(document.body.dataset.idleMs) || 10000;
  const timeZone = document.body.dataset.timeZone || 'America/Argentina/Buenos_Aires';
  const RATE_REFRESH_MS = 5 * 60 * 1000;
  const REPEAT_WINDOW_MS = 800;
  const byId = (id) => document.getElementById(id);
  const input = byId('query');
  let rate = null;
  let idleTimer = 0;
  let lastQuery = { text: '', at: 0 };
  let sequence = 0;

  // Same rules as the server's formatArs: "$ 1.234,56", computed on whole cents.
  function formatCents(cents) {
    const abs = Math.abs(cents);
    const whole = String(Math.floor(abs / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, '.');
    return `${cents < 0 ? '-' : ''}${whole},${String(abs % 100).padStart(2, '0')}`;
  }
  const pesos = (amount) => `$ ${formatCents(Math.round(amount * 100))}`;
  const dollars = (amount) => `US$ ${formatCents(Math.round(amount * 100))}`;

  function show(screen) {
    for (const id of ['idle', 'result', 'message']) byId(id).hidden = id !== screen;
    document.body.dataset.screen = screen;
  }

  function goIdle() {
    clearTimeout(idleTimer);
    show('idle');
    input.value = '';
    input.focus();
  }

  function holdThenIdle() {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(goIdle, idleMs);
  }

  function showMessage(title, detail) {
    byId('message-title').textContent = title;
    byId('message-detail').textContent = detail;
    show('message');
    holdThenIdle();
  }

  function renderRate() {
    const when = rate ? new Date(rate.updated_at) : null;
    byId('rate').textContent = rate
      ? `Cotización del dólar: ${pesos(rate.rate)} · actualizada ${when.toLocaleString('es-AR', { dateStyle: 'short', timeStyle: 'short', hourCycle: 'h23', timeZone })}`
      : '';
  }

  async function loadRate() {
    try {
      const res = await fetch('/api/exchange', { cache: 'no-store' });
      if (res.ok) rate = await res.json();
      else if (res.status === 503) rate = null;
    } catch {
      // Offline: keep the last rate we had.
    }
    renderRate();
  }

  function renderAlternatives(alternatives) {
    const list = byId('alternatives-list');
    list.replaceChildren();
    for (const alternative of alternatives) {
      const item = document.createElement('li');
      const button = document.createElement('button');
      button.type = 'button';
      const price = document.createElement('span');
      price.className = 'nowrap';
      price.textContent = pesos(alternative.base_price);
      button.append(`${alternative.name} — `, price);
      button.addEventListener('click', () => renderResult({ product: alternative, matchType: 'barcode', alternatives: [] }));
      item.append(button);
      list.append(item);
    }
    byId('alternatives').hidden = alternatives.length === 0;
  }

  function renderLabel(label, product) {
    const element = byId('label');
    element.hidden = !label;
    if (!label) return;
    element.textContent =
      label.value === 'weight'
        ? `Etiqueta de balanza: ${String(label.weight).replace('.', ',')} kg × ${pesos(product.base_price)} el kg`
        : `Etiqueta de balanza · precio de lista ${pesos(product.base_price)}`;
  }

  // The price on one line, as big as fits: start from the CSS size and shrink to the width.
  function fitPrice() {
    const price = byId('price');
    if (price.offsetParent === null) return;
    price.style.fontSize = '';
    for (let i = 0; i < 6 && price.scrollWidth > price.clientWidth; i++) {
      const size = Number.parseFloat(getComputedStyle(price).fontSize);
      price.style.fontSize = `${Math.max(8, Math.floor((size * price.clientWidth) / price.scrollWidth) - 1)}px`;
    }
  }

  function renderResult(result) {
    const { product, label } = result;
    const amount = label ? label.amount : product.base_price;
    byId('name').textContent = product.name;
    byId('mark').textContent = product.mark || '';
    byId('price').textContent = pesos(amount);
    const usd = byId('usd');
    usd.hidden = !rate;
    usd.replaceChildren();
    if (rate) {
      const part = (text) => Object.assign(document.createElement('span'), { className: 'nowrap', textContent: text });
      usd.append(part(dollars(amount / rate.rate)), ' ', part(`al dólar ${pesos(rate.rate)}`));
    }
    const photo = byId('photo');
    photo.hidden = !product.photo;
    if (product.photo) photo.src = product.photo;
    else photo.removeAttribute('src');
    renderLabel(label, product);
    renderAlternatives(result.matchType === 'name' ? result.alternatives : []);
    show('result');
    byId('alternatives').scrollTop = 0;
    fitPrice();
    holdThenIdle();
  }

  async function answer(res, text) {
    if (res.ok) return renderResult(await res.json());
    if (res.status === 404) return showMessage('Producto no encontrado', `No encontramos “${text}”. Consultá en la caja.`);
    if (res.status === 429) return showMessage('Demasiadas consultas', 'Esperá unos segundos y volvé a probar.');
    if (res.status === 401)
      return showMessage('Escáner no autorizado', 'El enlace de este escáner no es válido. Avisá al encargado.');
    return showMessage('No pudimos consultar el precio', 'Probá de nuevo en un momento.');
  }

  async function lookup(raw) {
    const text = raw.trim();
    const now = Date.now();
    // Readers sometimes send the same code twice in a row: answer once.
    if (!text || (text === lastQuery.text && now - lastQuery.at < REPEAT_WINDOW_MS)) return;
    lastQuery = { text, at: now };
    const mine = ++sequence;
    const url = `/api/public/scanner?token=${encodeURIComponent(token)}&query=${encodeURIComponent(text)}`;
    try {
      const res = await fetch(url, { cache: 'no-store' });
      if (mine === sequence) await answer(res, text);
    } catch {
      if (mine === sequence) showMessage('Sin conexión', 'Probá de nuevo en un momento.');
    }
  }

  byId('search').addEventListener('submit', (event) => {
    event.preventDefault();
    const text = input.value;
    input.value = '';
    lookup(text);
  });
  // The reader types into whatever has focus: after any tap (buttons included, once they have
  // done their job) the focus goes back to the input, or the next scan would be lost.
  document.addEventListener('click', () => input.focus());
  byId('fullscreen').addEventListener('click', () => {
    if (!document.fullscreenElement) document.documentElement.requestFullscreen?.().catch(() => {});
    input.focus();
  });

  window.addEventListener('resize', fitPrice);
  loadRate();
  setInterval(loadRate, RATE_REFRESH_MS);
  goIdle();
})();
