// `npm run fake:whatsapp`: a local WhatsApp Cloud API for demos (port FAKE_WHATSAPP_PORT, default 4012).
// With FAKE_WHATSAPP_TARGET (e.g. http://127.0.0.1:3000/api/whatsapp) it also delivers a signed
// inbound message there every FAKE_WHATSAPP_EVERY_MS (default: once, at start).
import { startFakeWhatsapp } from './whatsapp.fake.ts';

const port = Number(process.env['FAKE_WHATSAPP_PORT'] ?? 4012);
const target = process.env['FAKE_WHATSAPP_TARGET'];
const fake = await startFakeWhatsapp({ port });
const voice = fake.addMedia('audio/ogg', Buffer.from('OggS fake voice note '.repeat(200)));
console.log(`WhatsApp falso escuchando en ${fake.url}
Poné en .env:
WHATSAPP_APP_SECRET=${fake.appSecret}
WHATSAPP_VERIFY_TOKEN=(el que quieras)
WHATSAPP_GRAPH_URL=${fake.url}
WHATSAPP_GRAPH_VERSION=${fake.version}
Y guardá el canal (número ${fake.phoneNumberId}, WABA ${fake.wabaId}) con este token:
${fake.token}`);

const samples = [
  () =>
    fake.inbound(
      '5491122334455',
      { type: 'text', text: { body: 'Hola, ¿cuánto sale el plan Comercio?' } },
      { profileName: 'Cliente Demo' },
    ),
  () =>
    fake.inbound(
      '5491166667777',
      { type: 'audio', audio: { id: voice.id, mime_type: 'audio/ogg', voice: true } },
      { profileName: 'Otra Clienta' },
    ),
];
let next = 0;
async function emit() {
  if (!target) return;
  const { body } = samples[next++ % samples.length]!();
  try {
    const res = await fake.deliver(target, JSON.stringify(body));
    console.log(`webhook → ${target}: HTTP ${res.status}`);
  } catch (err) {
    console.log(`webhook → ${target}: ${(err as Error).message}`);
  }
}
await emit();
const every = Number(process.env['FAKE_WHATSAPP_EVERY_MS'] ?? 0);
const timer = every > 0 ? setInterval(emit, every) : null;
const stop = () => {
  if (timer) clearInterval(timer);
  void fake.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
