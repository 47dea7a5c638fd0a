// weft.js's recovery (docs/protocol.md, "History and recovery") against a scripted server standing in for fetch
// (fake-server.mjs): positions kept from deliveries and subscribe replies, ext.recover on every subscribe made again
// after a new handshake, duplicates dropped, the `recovery` event, sessionStorage; and the `fetch` and `WebSocket`
// options, with which a client runs outside a browser. Run by WeftJsNodeTest:
//   node --test examples/src/test/node/
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {BayeuxClient, MAX_RECOVER_CHANNELS, Positions} from '../../main/resources/static/weft.js';
import {FakeServer, delivered, ok, until} from './fake-server.mjs';

const BAYEUX_URL = 'http://127.0.0.1:1/cometd';

/** A long-polling client of a fresh fake server, handshaken; `received` collects the data of what it delivers. */
async function connected(options = {}) {
    const server = new FakeServer();
    const client = new BayeuxClient(BAYEUX_URL, {transports: ['long-polling'], backoffIncrement: 10, maxBackoff: 50,
        maxNetworkDelay: 5000, ...options});
    const recoveries = [];
    client.addListener('recovery', outcome => recoveries.push(outcome));
    const handshaken = client.handshake();
    await server.handshake('c1');
    await handshaken;
    return {server, client, recoveries};
}

async function subscribe(server, client, channel, received, replyExt) {
    const subscribed = client.subscribe(channel, message => received.push(message.data.n));
    const request = await server.next('/meta/subscribe');
    request.answer(ok(request.message, {subscription: channel, ext: replyExt}));
    await subscribed;
    return request.message;
}

async function end(server, client) {
    await client.disconnect();
    server.close();
}

test('a subscription made again after a new handshake recovers from the last position, each message once', async () => {
    const {server, client, recoveries} = await connected();
    const received = [];
    const first = await subscribe(server, client, '/chat/a', received, {recover: {'/chat/a': {epoch: 'E1', offset: 3}}});
    assert.equal(first.ext, undefined, 'nothing to recover from yet');
    assert.deepEqual(client.position('/chat/a'), {epoch: 'E1', offset: 3}, 'the reply gives the first position');

    const held = await server.next('/meta/connect');
    held.answer(delivered('/chat/a', 'E1', 4), delivered('/chat/a', 'E1', 5), ok(held.message));
    await until(() => received.length === 2, 'offsets 4 and 5');

    await server.forget();
    await server.handshake('c2');
    const again = await server.next('/meta/subscribe');
    assert.equal(again.message.clientId, 'c2');
    assert.deepEqual(again.message.ext, {recover: {'/chat/a': {epoch: 'E1', offset: 5}}});
    // the reply (the channel is at 7 now) comes before what it recovered: 6 and 7 must still be delivered
    again.answer(ok(again.message, {subscription: '/chat/a',
        ext: {recover: {'/chat/a': {epoch: 'E1', offset: 7, recovered: true}}}}),
    delivered('/chat/a', 'E1', 5), delivered('/chat/a', 'E1', 6), delivered('/chat/a', 'E1', 7));
    const live = await server.next('/meta/connect');
    live.answer(delivered('/chat/a', 'E1', 7), delivered('/chat/a', 'E1', 8), ok(live.message));

    await until(() => received.length >= 5, 'offsets 6 to 8');
    assert.deepEqual(received, [4, 5, 6, 7, 8]);
    assert.deepEqual(recoveries, [{channel: '/chat/a', subscription: '/chat/a', recovered: true, epoch: 'E1', offset: 7}]);
    await end(server, client);
});

test('a recovery the server cannot make is told, and live delivery goes on from the new position', async () => {
    const {server, client, recoveries} = await connected();
    const received = [];
    await subscribe(server, client, '/chat/a', received, {recover: {'/chat/a': {epoch: 'E1', offset: 9}}});

    await server.forget();
    await server.handshake('c2');
    const again = await server.next('/meta/subscribe');
    assert.deepEqual(again.message.ext, {recover: {'/chat/a': {epoch: 'E1', offset: 9}}});
    again.answer(ok(again.message, {subscription: '/chat/a',
        ext: {recover: {'/chat/a': {epoch: 'E2', offset: 2, recovered: false}}}}));
    const live = await server.next('/meta/connect');
    live.answer(delivered('/chat/a', 'E2', 2), delivered('/chat/a', 'E2', 3), ok(live.message));

    await until(() => received.length >= 1, 'offset 3 of the new epoch');
    assert.deepEqual(received, [3]);
    assert.deepEqual(recoveries.map(r => [r.channel, r.recovered, r.epoch, r.offset]), [['/chat/a', false, 'E2', 2]]);
    assert.deepEqual(client.position('/chat/a'), {epoch: 'E2', offset: 3});
    await end(server, client);
});

test('a drained node (503::server_draining, reconnect: handshake) is left for another, and the client recovers there', async () => {
    const {server, client, recoveries} = await connected();
    const received = [];
    await subscribe(server, client, '/chat/a', received, {recover: {'/chat/a': {epoch: 'E1', offset: 1}}});

    const drained = await server.next('/meta/connect');
    drained.answer({channel: '/meta/connect', id: drained.message.id, successful: false,
        error: '503::server_draining', advice: {reconnect: 'handshake', interval: 0}});
    const refused = await server.next('/meta/handshake'); // still the draining node
    refused.answer({channel: '/meta/handshake', id: refused.message.id, successful: false,
        error: '503::server_draining', advice: {reconnect: 'handshake', interval: 0}});
    await server.handshake('c2'); // another node
    const again = await server.next('/meta/subscribe');
    assert.deepEqual(again.message.ext, {recover: {'/chat/a': {epoch: 'E1', offset: 1}}});
    again.answer(ok(again.message, {subscription: '/chat/a',
        ext: {recover: {'/chat/a': {epoch: 'E1', offset: 2, recovered: true}}}}), delivered('/chat/a', 'E1', 2));

    await until(() => received.length === 1 && recoveries.length === 1, 'offset 2, recovered');
    assert.equal(recoveries[0].recovered, true);
    await end(server, client);
});

test('a wildcard subscription recovers the channels under it, the most recently seen first, at most 64', async () => {
    const {server, client} = await connected();
    const received = [];
    await subscribe(server, client, '/chat/*', received);
    const held = await server.next('/meta/connect');
    const messages = [];
    for (let i = 0; i < 70; i++) {
        messages.push(delivered('/chat/room' + i, 'E', i + 1));
    }
    messages.push(delivered('/other/x', 'E', 1));
    held.answer(...messages, ok(held.message));
    await until(() => received.length === 70, 'the 70 rooms');

    await server.forget();
    await server.handshake('c2');
    const again = await server.next('/meta/subscribe');
    const recover = again.message.ext.recover;
    assert.equal(Object.keys(recover).length, MAX_RECOVER_CHANNELS);
    assert.deepEqual(recover['/chat/room69'], {epoch: 'E', offset: 70});
    assert.equal(recover['/chat/room5'], undefined, 'the least recently seen are left out');
    assert.equal(recover['/other/x'], undefined, 'a channel the subscription does not cover is not sent');
    again.answer(ok(again.message, {subscription: '/chat/*'}));
    await end(server, client);
});

test("with positions: 'session' a reloaded page recovers from where the last one was", async () => {
    const items = new Map();
    const storage = {getItem: key => items.get(key) ?? null, setItem: (key, value) => items.set(key, value)};
    const page = await connected({positions: storage});
    const received = [];
    await subscribe(page.server, page.client, '/chat/a', received, {recover: {'/chat/a': {epoch: 'E1', offset: 0}}});
    const held = await page.server.next('/meta/connect');
    held.answer(delivered('/chat/a', 'E1', 1), ok(held.message));
    await until(() => received.length === 1, 'offset 1');
    await end(page.server, page.client); // the page goes (it saves at once, as on pagehide)
    assert.deepEqual(JSON.parse(items.get('weft.positions ' + BAYEUX_URL)), {'/chat/a': {epoch: 'E1', offset: 1}});

    const reloaded = await connected({positions: storage});
    const first = await subscribe(reloaded.server, reloaded.client, '/chat/a', [],
        {recover: {'/chat/a': {epoch: 'E1', offset: 4, recovered: true}}});
    assert.deepEqual(first.ext, {recover: {'/chat/a': {epoch: 'E1', offset: 1}}});
    assert.deepEqual(reloaded.recoveries.map(r => r.recovered), [true]);
    await end(reloaded.server, reloaded.client);
});

test('unsubscribing forgets the positions no other subscription covers', async () => {
    const {server, client} = await connected();
    const received = [];
    const wide = client.subscribe('/chat/**', () => { });
    const wideRequest = await server.next('/meta/subscribe');
    wideRequest.answer(ok(wideRequest.message, {subscription: '/chat/**'}));
    await wide;
    await subscribe(server, client, '/news', received, {recover: {'/news': {epoch: 'N', offset: 2}}});
    const held = await server.next('/meta/connect');
    held.answer(delivered('/chat/a/b', 'C', 5), ok(held.message));
    await until(() => client.position('/chat/a/b') !== null, 'the position of /chat/a/b');

    const unsubscribed = client.unsubscribe(await wide);
    const request = await server.next('/meta/unsubscribe');
    request.answer(ok(request.message, {subscription: '/chat/**'}));
    await unsubscribed;
    assert.equal(client.position('/chat/a/b'), null);
    assert.deepEqual(client.position('/news'), {epoch: 'N', offset: 2});
    await end(server, client);
});

test('with recover: false nothing is kept, asked for or dropped', async () => {
    const {server, client, recoveries} = await connected({recover: false});
    const received = [];
    await subscribe(server, client, '/chat/a', received, {recover: {'/chat/a': {epoch: 'E1', offset: 3}}});
    const held = await server.next('/meta/connect');
    held.answer(delivered('/chat/a', 'E1', 3), delivered('/chat/a', 'E1', 3), ok(held.message));
    await until(() => received.length === 2, 'both copies');
    await server.forget();
    await server.handshake('c2');
    const again = await server.next('/meta/subscribe');
    assert.equal(again.message.ext, undefined);
    again.answer(ok(again.message, {subscription: '/chat/a'}));
    assert.equal(client.position('/chat/a'), null);
    assert.deepEqual(recoveries, []);
    await end(server, client);
});

test('the fetch option sends the POSTs in place of the global fetch (in Node: a cookie jar of its own)', async () => {
    const server = new FakeServer();
    const serverFetch = globalThis.fetch;
    globalThis.fetch = () => Promise.reject(new Error('the global fetch was used'));
    const urls = [];
    const client = new BayeuxClient(BAYEUX_URL, {transports: ['long-polling'], fetch: (url, init) => {
        urls.push(url);
        return serverFetch(url, init);
    }});
    try {
        const handshaken = client.handshake();
        await server.handshake('c1');
        await handshaken;
        const received = [];
        await subscribe(server, client, '/chat/a', received);
        const held = await server.next('/meta/connect');
        held.answer(delivered('/chat/a', 'E1', 1), ok(held.message));
        await until(() => received.length === 1, 'offset 1');
        assert.ok(urls.length >= 4, 'handshake, connects, subscribe: ' + urls);
        assert.ok(urls.every(url => url === BAYEUX_URL), String(urls));
    } finally {
        await end(server, client); // gives the real fetch back
    }
});

test('the WebSocket option is the constructor the websocket transport opens its socket with', async () => {
    const server = new FakeServer();
    const Socket = server.webSocket();
    const client = new BayeuxClient(BAYEUX_URL, {transports: ['websocket'], WebSocket: Socket});
    const handshaken = client.handshake();
    await server.handshake('c1', ['websocket']);
    await handshaken;
    const received = [];
    await subscribe(server, client, '/chat/a', received);
    const held = await server.next('/meta/connect');
    held.answer(delivered('/chat/a', 'E1', 1), ok(held.message));
    await until(() => received.length === 1, 'offset 1');
    assert.equal(client.transport, 'websocket');
    assert.deepEqual(Socket.urls, ['ws://127.0.0.1:1/cometd'], 'one socket, opened with the option');
    await end(server, client);
});

test('Positions: a message is new when past the position kept in its epoch, or of another epoch', () => {
    const positions = new Positions();
    assert.equal(positions.accept({channel: '/a', data: 1}), true, 'no position: delivered');
    assert.equal(positions.accept({channel: '/a', data: 1, ext: {history: {epoch: 'E', offset: 2}}}), true);
    assert.equal(positions.accept({channel: '/a', data: 1, ext: {history: {epoch: 'E', offset: 2}}}), false);
    assert.equal(positions.accept({channel: '/a', data: 1, ext: {history: {epoch: 'E', offset: 1}}}), false);
    assert.equal(positions.accept({channel: '/b', data: 1, ext: {history: {epoch: 'E', offset: 1}}}), true);
    assert.equal(positions.accept({channel: '/a', data: 1, ext: {history: {epoch: 'F', offset: 1}}}), true);
    assert.deepEqual(positions.get('/a'), {epoch: 'F', offset: 1});
    assert.equal(positions.accept({channel: '/a', data: 1, ext: {history: {epoch: 'F', offset: -1}}}), true,
        'not a position: delivered, nothing kept');
    assert.deepEqual(positions.all(), {'/a': {epoch: 'F', offset: 1}, '/b': {epoch: 'E', offset: 1}});
});

test('Positions: a reply gives a position only where the client has none in its epoch', () => {
    const positions = new Positions();
    positions.accept({channel: '/a', data: 1, ext: {history: {epoch: 'E', offset: 5}}});
    positions.accept({channel: '/b', data: 1, ext: {history: {epoch: 'E', offset: 5}}});
    positions.accept({channel: '/c', data: 1, ext: {history: {epoch: 'E', offset: 9}}});
    positions.accept({channel: '/e', data: 1, ext: {history: {epoch: 'E', offset: 4}}});
    const outcomes = positions.replied({channel: '/meta/subscribe', successful: true, subscription: '/*', ext: {recover: {
        '/a': {epoch: 'E', offset: 8, recovered: true}, // 6 to 8 follow: 5 stays
        '/b': {epoch: 'G', offset: 1, recovered: false}, // a new stream: from 1
        '/c': {epoch: 'E', offset: 7}, // already past it
        '/d': {epoch: 'E', offset: 3}, // a first position
        '/e': {epoch: 'E', offset: 6, recovered: false}, // 5 and 6 may be on their way (another subscription)
        '/f': {recovered: false}, // the server could not read its history
    }}});
    assert.deepEqual(positions.all(), {'/a': {epoch: 'E', offset: 5}, '/b': {epoch: 'G', offset: 1},
        '/c': {epoch: 'E', offset: 9}, '/d': {epoch: 'E', offset: 3}, '/e': {epoch: 'E', offset: 4}});
    assert.deepEqual(outcomes.map(o => [o.channel, o.recovered, o.epoch, o.offset]),
        [['/a', true, 'E', 8], ['/b', false, 'G', 1], ['/e', false, 'E', 6], ['/f', false, null, null]]);
    assert.deepEqual(positions.replied({channel: '/meta/subscribe', successful: false, ext: {recover: {
        '/a': {epoch: 'X', offset: 1, recovered: false}}}}), [], 'an unsuccessful reply changes nothing');
    assert.deepEqual(positions.get('/a'), {epoch: 'E', offset: 5});
});

test('Positions: past MAX_CHANNELS the channel seen least recently is forgotten', () => {
    const positions = new Positions();
    for (let i = 0; i <= Positions.MAX_CHANNELS; i++) {
        positions.accept({channel: '/c' + i, data: 1, ext: {history: {epoch: 'E', offset: 1}}});
    }
    assert.equal(Object.keys(positions.all()).length, Positions.MAX_CHANNELS);
    assert.equal(positions.get('/c0'), null);
    assert.deepEqual(positions.get('/c' + Positions.MAX_CHANNELS), {epoch: 'E', offset: 1});
});
