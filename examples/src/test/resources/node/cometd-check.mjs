// The official CometD JavaScript client (npm cometd 9.0.0, in Node through the CometD project's adapter
// cometd-nodejs-client 2.0.0) against a Bayeux server on one transport: handshake, subscribe, publish, receive its
// own message, unsubscribe, disconnect (and the server no longer knows the session). Prints "OK <transport> <clientId>" or "FAIL <why>" and exits. Run by
// StarterWarOnTomcatIT, StarterWarOnJettyIT and BehindNginxTest from a folder whose node_modules holds both packages (ES modules ignore NODE_PATH):
//   node cometd-check.mjs URL websocket|long-polling|callback-polling
import {adapt} from 'cometd-nodejs-client';
import {CometD} from 'cometd';
import vm from 'node:vm';

const [url, transport] = process.argv.slice(2);
const timer = setTimeout(() => fail('timed out'), 20000);

function fail(why) {
    console.log('FAIL ' + transport + ': ' + why);
    process.exit(1);
}

// window.XMLHttpRequest (with a cookie jar) and window.WebSocket for the client
adapt();

// callback-polling loads each batch as a <script src=".../cometd?jsonp=f&message=..."> appended to <head>, which Node
// does not have: this stands in for the browser's script loading. It GETs the src with the cookies the server set
// (as a browser does), runs the answer as a script that sees the client's global callbacks, or fires onerror.
const scriptCookies = new Map();
const head = {
    appendChild(script) {
        loadScript(script);
    },
    removeChild() {
    },
};
window.document = {
    getElementsByTagName: name => name === 'head' ? [head] : [],
    createElement: () => ({}),
};

async function loadScript(script) {
    try {
        const cookie = [...scriptCookies].map(([name, value]) => name + '=' + value).join('; ');
        const response = await fetch(script.src, {headers: cookie ? {cookie} : {}});
        for (const setCookie of response.headers.getSetCookie()) {
            const pair = setCookie.split(';')[0];
            scriptCookies.set(pair.substring(0, pair.indexOf('=')), pair.substring(pair.indexOf('=') + 1));
        }
        if (!response.ok) {
            throw new Error('HTTP ' + response.status);
        }
        vm.runInNewContext(await response.text(), {...window});
    } catch (failure) {
        console.log('script load failed: ' + failure);
        script.onerror({type: 'error'});
    }
}

// a reply for a failure message: the client's failed replies hold its transport and request objects, which are circular
function describe(reply) {
    const seen = new WeakSet();
    return JSON.stringify(reply, (key, value) => {
        if (['transport', 'request', 'xhr', 'webSocket'].includes(key)) {
            return undefined;
        }
        if (typeof value === 'object' && value !== null) {
            if (seen.has(value)) {
                return '[circular]';
            }
            seen.add(value);
        }
        return value;
    });
}

function promise(start) {
    return new Promise(resolve => start(resolve));
}

async function main() {
    const cometd = new CometD();
    cometd.configure({url, logLevel: process.env.COMETD_LOG ? 'debug' : 'warn'});
    for (const type of cometd.getTransportTypes()) {
        if (type !== transport) {
            cometd.unregisterTransport(type);
        }
    }
    if (cometd.getTransportTypes().join() !== transport) {
        throw new Error('the client has no ' + transport + ' transport: ' + cometd.getTransportTypes());
    }

    const handshake = await promise(done => cometd.handshake(done));
    if (!handshake.successful) {
        throw new Error('handshake failed: ' + describe(handshake));
    }
    const type = cometd.getTransport().type;

    const received = [];
    let subscription;
    const subscribed = await promise(done => {
        subscription = cometd.subscribe('/starter/echo', message => received.push(message.data), done);
    });
    if (!subscribed.successful) {
        throw new Error('subscribe failed: ' + describe(subscribed));
    }

    const text = 'hello over ' + transport;
    const echoed = new Promise((resolve, reject) => {
        const started = Date.now();
        const poll = () => received.some(data => data.text === text) ? resolve()
            : Date.now() - started > 10000 ? reject(new Error('own message not received: ' + JSON.stringify(received)))
                : setTimeout(poll, 20);
        poll();
    });
    const published = await promise(done => cometd.publish('/starter/echo', {text}, done));
    if (!published.successful) {
        throw new Error('publish failed: ' + describe(published));
    }
    await echoed;

    const unsubscribed = await promise(done => cometd.unsubscribe(subscription, done));
    if (!unsubscribed.successful) {
        throw new Error('unsubscribe failed: ' + describe(unsubscribed));
    }
    const clientId = cometd.getClientId();
    const disconnected = await promise(done => cometd.disconnect(done));
    // The server ends the session and answers the held /meta/connect (reconnect: none) and the /meta/disconnect, in
    // two responses. When the connect's arrives first, the client stops on its advice and aborts its own pending
    // disconnect request, and reports that as the disconnect's failure ('abort'): seen once over callback-polling.
    const abortedByClient = !disconnected.successful && disconnected.failure
        && disconnected.failure.reason === 'abort' && cometd.isDisconnected();
    if (!disconnected.successful && !abortedByClient) {
        throw new Error('disconnect failed: ' + describe(disconnected));
    }
    // either way the server must have ended the session: a connect for it is told to handshake
    const after = await fetch(url, {
        method: 'POST',
        headers: {'Content-Type': 'application/json'},
        body: JSON.stringify([{channel: '/meta/connect', clientId, connectionType: 'long-polling'}]),
    }).then(response => response.json());
    if (after[0].successful !== false || after[0].error !== '402::session_unknown') {
        throw new Error('the session lives on after disconnect: ' + JSON.stringify(after));
    }
    clearTimeout(timer);
    console.log('OK ' + type + ' ' + clientId);
    process.exit(0);
}

main().catch(failure => fail(failure && failure.message ? failure.message : String(failure)));
