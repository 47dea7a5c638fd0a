// The Faye client (npm faye 1.4.3) against a Bayeux server: two clients on one transport subscribe to a channel,
// each publishes, both receive both messages; one unsubscribes and receives no more (a marker proves it). Prints
// "OK <connectionType> <connectionType>" or "FAIL <why>" and exits. Run by FayeClientTest:
//   node faye-check.js URL websocket|long-polling
'use strict';
const faye = require('faye');
if (process.env.FAYE_LOG) {
    faye.logger = message => console.log('faye: ' + message);
}

const [url, transport] = process.argv.slice(2);
const timer = setTimeout(() => fail('timed out'), 20000);

function fail(why) {
    console.log('FAIL ' + transport + ': ' + why);
    process.exit(1);
}

function newClient() {
    const client = new faye.Client(url, {timeout: 20, retry: 1});
    if (transport === 'long-polling') {
        client.disable('websocket');
    }
    return client;
}

function until(what, test) {
    return new Promise((resolve, reject) => {
        const started = Date.now();
        const poll = () => {
            if (test()) {
                resolve();
            } else if (Date.now() - started > 10000) {
                reject(new Error('waited 10 s for ' + what));
            } else {
                setTimeout(poll, 20);
            }
        };
        poll();
    });
}

async function main() {
    const a = newClient();
    const b = newClient();
    const toA = [];
    const toB = [];
    const subscriptionA = a.subscribe('/faye/check', message => toA.push(message.text));
    await subscriptionA;
    await b.subscribe('/faye/check', message => toB.push(message.text));
    await b.publish('/faye/check', {text: 'from b'});
    await a.publish('/faye/check', {text: 'from a'});
    await until('both messages at both clients', () => toA.length === 2 && toB.length === 2);
    if (!toA.includes('from a') || !toA.includes('from b') || !toB.includes('from a') || !toB.includes('from b')) {
        throw new Error('wrong messages: a got ' + toA + ', b got ' + toB);
    }

    await subscriptionA.cancel();
    await b.publish('/faye/check', {text: 'after a left'});
    await until('the marker at b', () => toB.includes('after a left'));
    if (toA.length !== 2) {
        throw new Error('a received after unsubscribing: ' + toA);
    }

    const types = a._dispatcher.connectionType + ' ' + b._dispatcher.connectionType;
    await Promise.all([a.disconnect(), b.disconnect()]);
    clearTimeout(timer);
    console.log('OK ' + types);
    process.exit(0);
}

main().catch(failure => fail(failure && failure.message ? failure.message : String(failure)));
