// The ceiling for bench:api: node:http reading the JSON body and answering, nothing else.
const http = require('node:http');

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const json = JSON.stringify({ notificationId: '00000000-0000-4000-8000-000000000000', status: 'queued', echo: typeof body });
    res.writeHead(202, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(json) });
    res.end(json);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.argv[2]), '127.0.0.1', () => console.log('listening'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
