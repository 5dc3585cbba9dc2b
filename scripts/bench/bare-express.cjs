// The ceiling for bench:api: Express 5 with its JSON body parser and nothing else.
const path = require('node:path');
// The very Express the API uses.
const express = require(require.resolve('express', { paths: [path.join(__dirname, '../../apps/api')] }));

const app = express();
app.use(express.json({ limit: '1mb' }));
app.post('/push/send', (req, res) => {
  res.status(202).json({ notificationId: '00000000-0000-4000-8000-000000000000', status: 'queued', echo: typeof req.body });
});
const server = app.listen(Number(process.argv[2]), '127.0.0.1', () => console.log('listening'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
