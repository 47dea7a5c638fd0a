// Faye 1.4.3 as a benchmark peer: websocket and long-polling on /cometd, in-memory engine, timeout 20 s
// (as Weft's and CometD's servers here). For the bench scripts only; faye itself is installed by them into
// bench/target/faye and never committed. Usage: node server.js <port> <faye node_modules folder>
'use strict';
const http = require('http');
const path = require('path');

const port = parseInt(process.argv[2] || '0', 10);
const modules = process.argv[3] || path.join(__dirname, '..', 'target', 'faye', 'node_modules');
const faye = require(path.join(modules, 'faye'));

const bayeux = new faye.NodeAdapter({ mount: '/cometd', timeout: 20, ping: 0 });
// Server-side RSS and heap on demand, for the idle-memory experiment (/stats is outside the Bayeux mount, so
// Faye hands it to this handler).
const server = http.createServer((req, res) => {
  if (req.url === '/stats') {
    if (global.gc) global.gc();
    const m = process.memoryUsage();
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external }));
  } else {
    res.writeHead(404);
    res.end();
  }
});
bayeux.attach(server);

server.listen(port, '0.0.0.0', () => {
  console.log('READY port=' + server.address().port);
});
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
