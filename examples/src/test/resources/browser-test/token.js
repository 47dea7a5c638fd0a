// Token authentication from the browser, with Weft's client and with the official one: each function handshakes with
// a token in the handshake's ext (none when token is null), subscribes to the user's channel and disconnects, and
// resolves with "subscribed" or with why it could not. Test-only (TokenAuthInBrowserTest).
import {BayeuxClient} from '/weft.js';
import {CometD} from 'cometd';

window.weftHandshake = async (transport, token) => {
    const client = new BayeuxClient('/cometd', {transports: [transport]});
    try {
        await client.handshake(token === null ? {} : {ext: {token}});
        await client.subscribe('/user/' + token, () => {});
        const used = client.transport;
        await client.disconnect();
        return 'subscribed over ' + used;
    } catch (failure) {
        await client.disconnect().catch(() => {});
        return 'refused: ' + failure.message;
    }
};

window.officialHandshake = (transport, token) => new Promise(resolve => {
    const cometd = new CometD();
    cometd.configure({url: new URL('/cometd', location.href).href, logLevel: 'warn'});
    if (transport === 'long-polling') {
        cometd.unregisterTransport('websocket');
    }
    cometd.handshake(token === null ? {} : {ext: {token}}, reply => {
        if (!reply.successful) {
            cometd.disconnect();
            resolve('refused: ' + reply.error);
            return;
        }
        cometd.subscribe('/user/' + token, () => {}, {}, subscribed => {
            const used = cometd.getTransport().type;
            cometd.disconnect();
            resolve(subscribed.successful ? 'subscribed over ' + used : 'refused: ' + subscribed.error);
        });
    });
});

document.getElementById('status').dataset.state = 'ready';
