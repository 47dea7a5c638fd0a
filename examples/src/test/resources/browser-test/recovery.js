// RecoveryInBrowserTest's page: weft.js with positions: 'session', subscribed to /recovery/page. It shows in #status
// the n of each message delivered (data-received, comma-separated, in order) and the last recovery's outcome
// (data-recovered); it disconnects when hidden, so that a page that comes back is a new session.
import {BayeuxClient} from '/weft.js';

const status = document.getElementById('status');
const received = [];
const client = new BayeuxClient(new URL('/cometd', location.href).href, {positions: 'session'});
client.addListener('recovery', outcome => {
    status.dataset.recovered = String(outcome.recovered);
});
window.addEventListener('pagehide', () => client.disconnect());

await client.handshake();
await client.subscribe('/recovery/page', message => {
    received.push(message.data.n);
    status.dataset.received = received.join(',');
});
status.dataset.state = 'subscribed';
status.textContent = 'subscribed as ' + client.clientId;
