// Faye's browser client (faye-browser.js, npm faye 1.4.3) against Weft, for FayeInBrowserTest. Each function makes a
// new client on the page, resolves with what it saw, and disconnects it.
'use strict';

function until(what, test, millis) {
    return new Promise((resolve, reject) => {
        const started = Date.now();
        const poll = () => {
            if (test()) {
                resolve();
            } else if (Date.now() - started > millis) {
                reject(new Error('waited ' + millis + ' ms for ' + what));
            } else {
                setTimeout(poll, 20);
            }
        };
        poll();
    });
}

function fayeClient(endpoint, transport) {
    const client = new Faye.Client(endpoint, {timeout: 20, retry: 1});
    if (transport !== 'websocket') {
        client.disable('websocket');
    }
    if (transport === 'long-polling') {
        client.disable('eventsource');
    }
    return client;
}

/**
 * Once Faye has picked `transport` (its probe socket open, or its event stream), subscribes to `channel`, publishes
 * on it and waits for the message: resolves with "<connectionType> <the message's text>".
 */
window.fayeTalks = async function (endpoint, transport, channel) {
    const client = fayeClient(endpoint, transport);
    const received = [];
    try {
        // The handshake: Faye sends it by HTTP whatever the transport, then picks one among those the server offers.
        await new Promise(resolve => client.connect(resolve));
        await until('Faye to pick ' + transport, () => client._dispatcher.connectionType === transport, 10000);
        await client.subscribe(channel, message => received.push(message.text));
        await client.publish(channel, {text: 'hello over ' + transport});
        await until('the message', () => received.length > 0, 10000);
        return client._dispatcher.connectionType + ' ' + received[0];
    } catch (error) {
        return 'failed: ' + (error && error.message ? error.message : JSON.stringify(error));
    } finally {
        client.disconnect();
    }
};

document.getElementById('status').setAttribute('data-state', 'ready');
