import { createFakeArca } from './fake-arca.ts';

/**
 * `npm run fake:arca`: the fake ARCA on FAKE_ARCA_PORT (4470), for a local Mostrador
 * (ARCA_WSAA_URL / ARCA_WSFE_URL) or any other client. FAKE_ARCA_STATE keeps its receipts in a file.
 */
const port = Number(process.env['FAKE_ARCA_PORT'] ?? 4470);
const stateFile = process.env['FAKE_ARCA_STATE'];
const fake = createFakeArca(stateFile ? { stateFile } : {});
const { wsaaUrl, wsfeUrl, baseUrl } = await fake.listen(port, process.env['FAKE_ARCA_HOST'] ?? '127.0.0.1');
process.stdout.write(
  [
    'ARCA simulado escuchando:',
    `  ARCA_WSAA_URL=${wsaaUrl}`,
    `  ARCA_WSFE_URL=${wsfeUrl}`,
    `  control: POST ${baseUrl}/__control {"action":"rejectNext","code":10243} · GET ${baseUrl}/__control`,
    `  CAEA: {"action":"setCaeaPointsOfSale","cuit":"…","points":[5]} · ARCA caído: {"action":"startOutage","mode":"http","ops":["FECAESolicitar"]}`,
    '',
  ].join('\n'),
);
const stop = () => void fake.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
