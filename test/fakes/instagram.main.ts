// `npm run fake:instagram`: a local Instagram for demos (port FAKE_INSTAGRAM_PORT, default 4010).
import { startFakeInstagram } from './instagram.fake.ts';

const port = Number(process.env['FAKE_INSTAGRAM_PORT'] ?? 4010);
const fake = await startFakeInstagram({ port });
fake.addConversation({ participantId: '6543210987654321', username: 'cliente.demo', text: 'Hola, ¿cuánto sale el plan?' });
const audio = Buffer.from('ID3 fake audio bytes '.repeat(200));
fake.addConversation({
  participantId: '6543210987654322',
  username: 'otra.clienta',
  text: '',
  attachments: [{ id: '990001', mime_type: 'audio/mp4', name: 'audioclip-demo.mp4', size: audio.length, bytes: audio }],
});
console.log(`Instagram falso escuchando en ${fake.url}
Poné en .env:
INSTAGRAM_APP_ID=${fake.appId}
INSTAGRAM_APP_SECRET=${fake.appSecret}
INSTAGRAM_AUTHORIZE_URL=${fake.url}/oauth/authorize
INSTAGRAM_API_URL=${fake.url}
INSTAGRAM_GRAPH_URL=${fake.url}
Cuenta: @${fake.account.username} (${fake.account.userId})`);
const stop = () => void fake.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
