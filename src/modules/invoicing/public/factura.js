// The fiscal printout: the "Imprimir" button, and ?imprimir=1 prints as soon as the page is ready.
document.getElementById('print')?.addEventListener('click', () => window.print());
if (new URLSearchParams(location.search).get('imprimir') === '1') window.addEventListener('load', () => window.print());
