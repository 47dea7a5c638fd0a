// weft-recovery.js in the official CometD JavaScript client (npm cometd 9.0.0), whose long-polling transport sends
// to a scripted server (fake-server.mjs): the application subscribes in a /meta/handshake listener, as CometD wants,
// and each subscribe after a new handshake recovers, each message once. Run by WeftJsNodeTest, which installs cometd
// and names its module in COMETD_MODULE (without it these tests are skipped):
//   COMETD_MODULE=file:///…/node_modules/cometd/cometd.js node --test examples/src/test/node/
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {WeftRecoveryExtension} from '../../main/resources/static/weft-recovery.js';
import {FakeServer, delivered, ok, until} from './fake-server.mjs';

const cometdModule = process.env.COMETD_MODULE;
const skip = cometdModule ? false : 'COMETD_MODULE is not set: the official client is not installed';
const BAYEUX_URL = 'http://127.0.0.1:1/cometd';

/** The official client in Node, its long-polling going to `server`, with the extension registered. */
async function officialClient(server, options) {
    globalThis.window = globalThis; // what the client reads from the page: timers, console, no WebSocket
    globalThis.XMLHttpRequest = {UNSENT: 0};
    const {CometD, LongPollingTransport} = await import(cometdModule);

    class ScriptedLongPolling extends LongPollingTransport {
        xhrSend(packet) {
            return server.xhrSend(packet);
        }
    }

    const cometd = new CometD();
    cometd.unregisterTransports();
    cometd.registerTransport('long-polling', new ScriptedLongPolling());
    const extension = new WeftRecoveryExtension(options);
    cometd.registerExtension('weft-recovery', extension);
    cometd.configure({url: BAYEUX_URL, logLevel: 'warn', backoffIncrement: 10, maxBackoff: 50});
    return {cometd, extension};
}

/**
 * Disconnects, answering the held connect too (its request's timer would keep Node up). The client sends its next
 * connect on a timer after the last answer: the test waits for it before disconnecting, since a client told to
 * disconnect first never sends it (the test then waited 5 s for it and failed, on a busy machine).
 */
async function disconnect(server, cometd) {
    const held = await server.next('/meta/connect');
    const disconnected = new Promise(resolve => cometd.disconnect(resolve));
    held.answer(ok(held.message, {advice: {reconnect: 'none'}}));
    await disconnected;
    server.close();
}

test('the official client recovers what it missed after a new handshake, each message once', {skip}, async () => {
    const server = new FakeServer();
    const recoveries = [];
    const {cometd, extension} = await officialClient(server, {onRecovery: outcome => recoveries.push(outcome)});
    const received = [];
    const subscribeReplies = [];
    cometd.addListener('/meta/handshake', reply => {
        if (reply.successful) { // CometD forgets subscriptions at each handshake: the application makes them again
            cometd.subscribe('/chat/a', message => received.push(message.data.n), reply => subscribeReplies.push(reply));
        }
    });
    cometd.handshake();
    await server.handshake('c1');
    const first = await server.next('/meta/subscribe');
    assert.equal(first.message.ext, undefined, 'nothing to recover from yet');
    first.answer(ok(first.message, {subscription: '/chat/a', ext: {recover: {'/chat/a': {epoch: 'E1', offset: 3}}}}));
    await until(() => subscribeReplies.length === 1, 'the first subscribe reply');
    assert.deepEqual(extension.position('/chat/a'), {epoch: 'E1', offset: 3});

    const held = await server.next('/meta/connect');
    held.answer(delivered('/chat/a', 'E1', 4), delivered('/chat/a', 'E1', 4), delivered('/chat/a', 'E1', 5),
        ok(held.message));
    await until(() => received.length >= 2, 'offsets 4 and 5');

    await server.forget();
    await server.handshake('c2');
    const again = await server.next('/meta/subscribe');
    assert.deepEqual(again.message.ext.recover, {'/chat/a': {epoch: 'E1', offset: 5}});
    again.answer(ok(again.message, {subscription: '/chat/a',
        ext: {recover: {'/chat/a': {epoch: 'E1', offset: 7, recovered: true}}}}),
    delivered('/chat/a', 'E1', 5), delivered('/chat/a', 'E1', 6), delivered('/chat/a', 'E1', 7));
    const live = await server.next('/meta/connect');
    live.answer(delivered('/chat/a', 'E1', 7), delivered('/chat/a', 'E1', 8), ok(live.message));

    await until(() => received.length >= 5, 'offsets 6 to 8');
    assert.deepEqual(received, [4, 5, 6, 7, 8]);
    assert.deepEqual(recoveries, [{channel: '/chat/a', subscription: '/chat/a', recovered: true, epoch: 'E1', offset: 7}]);
    assert.equal(subscribeReplies[1].ext.recover['/chat/a'].recovered, true, 'the subscribe callback sees it too');
    await disconnect(server, cometd);
});

test('the official client is told when what it missed is lost', {skip}, async () => {
    const server = new FakeServer();
    const recoveries = [];
    const {cometd, extension} = await officialClient(server, {onRecovery: outcome => recoveries.push(outcome)});
    const received = [];
    cometd.addListener('/meta/handshake', reply => reply.successful
        && cometd.subscribe('/chat/*', message => received.push(message.data.n)));
    cometd.handshake();
    await server.handshake('c1');
    const first = await server.next('/meta/subscribe');
    first.answer(ok(first.message, {subscription: '/chat/*'}));
    const held = await server.next('/meta/connect');
    held.answer(delivered('/chat/a', 'E1', 9), delivered('/chat/b', 'E1', 2), ok(held.message));
    await until(() => received.length === 2, 'a message on each channel');

    await server.forget();
    await server.handshake('c2');
    const again = await server.next('/meta/subscribe');
    assert.deepEqual(again.message.ext.recover,
        {'/chat/a': {epoch: 'E1', offset: 9}, '/chat/b': {epoch: 'E1', offset: 2}});
    again.answer(ok(again.message, {subscription: '/chat/*', ext: {recover: {
        '/chat/a': {epoch: 'E2', offset: 1, recovered: false},
        '/chat/b': {epoch: 'E1', offset: 2, recovered: true}}}}));
    const live = await server.next('/meta/connect');
    live.answer(delivered('/chat/a', 'E2', 2), ok(live.message));

    await until(() => received.length === 3, 'the new epoch');
    assert.deepEqual(received, [9, 2, 2]);
    assert.deepEqual(recoveries.map(r => [r.channel, r.recovered]), [['/chat/a', false], ['/chat/b', true]]);
    assert.deepEqual(extension.position('/chat/a'), {epoch: 'E2', offset: 2});
    await disconnect(server, cometd);
});

test('a successful unsubscribe forgets the positions of the channels no subscription left covers', {skip}, async () => {
    const server = new FakeServer();
    const {cometd, extension} = await officialClient(server, {});
    cometd.handshake();
    await server.handshake('c1');
    const subscription = cometd.subscribe('/chat/**', () => { });
    const subscribe = await server.next('/meta/subscribe');
    subscribe.answer(ok(subscribe.message, {subscription: '/chat/**'}));
    cometd.subscribe('/news', () => { });
    const news = await server.next('/meta/subscribe');
    news.answer(ok(news.message, {subscription: '/news'}));
    const held = await server.next('/meta/connect');
    held.answer(delivered('/chat/a/b', 'E', 3), delivered('/news', 'N', 1), ok(held.message));
    await until(() => extension.position('/chat/a/b') !== null, 'a position');

    cometd.unsubscribe(subscription);
    const unsubscribe = await server.next('/meta/unsubscribe');
    unsubscribe.answer(ok(unsubscribe.message, {subscription: '/chat/**'}));
    await until(() => extension.position('/chat/a/b') === null, 'the position forgotten');
    assert.deepEqual(extension.position('/news'), {epoch: 'N', offset: 1});
    await disconnect(server, cometd);
});

test('the extension refuses options it cannot use', () => {
    assert.throws(() => new WeftRecoveryExtension({positions: 'local'}), TypeError);
    assert.throws(() => new WeftRecoveryExtension({onRecovery: 'yes'}), TypeError);
});
