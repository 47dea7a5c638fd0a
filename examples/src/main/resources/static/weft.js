// Weft's browser client: a small Bayeux 1.0 client as an ES module, with no dependencies.
//
//   import {BayeuxClient} from './weft.js';
//   const client = new BayeuxClient('/cometd');
//   await client.handshake();                       // or handshake({ext: {token}}) for the server's policy
//   await client.subscribe('/chat/lobby', message => console.log(message.data));
//   await client.publish('/chat/lobby', {text: 'hello'});
//
// What it does: handshake; the /meta/connect loop that follows the server's advice (timeout, interval, reconnect);
// websocket, falling back to eventsource (a Server-Sent Events stream, uplink by POST) and then to long-polling when
// the one before cannot be opened; subscribe (wildcards included) and
// publish; a new handshake when the server has forgotten the session, with every subscription made again;
// recovery on channels that keep history (each subscription made again asks for what was missed, and no message
// reaches the page twice); and, as an option, the acknowledgement extension (no message lost across reconnects).
// See docs/browser-client.md.
//
// Threads: none. Everything runs on the page's event loop; callbacks are called from it and should return quickly.

const META_HANDSHAKE = '/meta/handshake';
const META_CONNECT = '/meta/connect';
const META_SUBSCRIBE = '/meta/subscribe';
const META_UNSUBSCRIBE = '/meta/unsubscribe';
const META_DISCONNECT = '/meta/disconnect';

/** The connection types this client speaks, in its default order of preference. */
export const TRANSPORTS = Object.freeze(['websocket', 'eventsource', 'long-polling']);

/**
 * An HTTP answer other than 2xx: `status` is its status, `message` `HTTP <status>` and the first line of its body
 * (`HTTP 403: origin not allowed: https://chat.example.com`).
 */
export class HttpError extends Error {
    constructor(status, body) {
        const line = String(body || '').trim().split('\n')[0].slice(0, 200);
        super('HTTP ' + status + (line ? ': ' + line : ''));
        this.name = 'HttpError';
        this.status = status;
    }
}

/** A request the server refused: `reply` is its reply, `message` the reply's `error` (`402::session_unknown`...). */
export class BayeuxError extends Error {
    constructor(reply) {
        super(reply && reply.error ? String(reply.error) : 'request failed');
        this.name = 'BayeuxError';
        this.reply = reply;
    }
}

/**
 * Whether a subscription pattern covers a channel: `/a/*` covers `/a/b` (one segment), `/a/**` covers `/a/b` and
 * `/a/b/c` (any depth), anything else only itself.
 */
export function channelMatches(pattern, channel) {
    if (pattern === channel) {
        return true;
    }
    const p = pattern.split('/');
    const c = channel.split('/');
    const last = p[p.length - 1];
    if (last !== '*' && last !== '**') {
        return false;
    }
    const prefix = p.length - 1;
    if (last === '*' ? c.length !== p.length : c.length <= prefix) {
        return false;
    }
    for (let i = 0; i < prefix; i++) {
        if (p[i] !== c[i]) {
            return false;
        }
    }
    return true;
}

/** At most this many channels' positions go in one subscribe's `ext.recover` (the server's `maxRecoverChannels`). */
export const MAX_RECOVER_CHANNELS = 64;

/** `{epoch, offset}` from a value the server sent (`ext.history`, an entry of `ext.recover`), or null if it is none. */
function positionOf(value) {
    if (value === null || typeof value !== 'object') {
        return null;
    }
    const {epoch, offset} = value;
    if (typeof epoch !== 'string' || epoch.length === 0 || epoch.length > 64
            || !Number.isSafeInteger(offset) || offset < 0) {
        return null;
    }
    return {epoch, offset};
}

/**
 * The storage the `positions` option names: null for `'memory'`, the page's `sessionStorage` for `'session'` (null
 * where there is none), or the object given when it has `getItem` and `setItem`.
 */
export function storageOf(positions) {
    if (positions === 'memory' || positions === undefined || positions === null) {
        return null;
    }
    if (positions === 'session') {
        try {
            return globalThis.sessionStorage || null;
        } catch (x) {
            return null; // storage refused (a sandboxed frame)
        }
    }
    if (typeof positions === 'object' && typeof positions.getItem === 'function'
            && typeof positions.setItem === 'function') {
        return positions;
    }
    throw new TypeError("positions must be 'memory', 'session' or a Storage, not " + positions);
}

/**
 * Where a client is in each channel that keeps history (docs/protocol.md, "History and recovery"): the last position
 * `{epoch, offset}` it saw there, from the messages delivered (`ext.history`) and from subscribe replies
 * (`ext.recover`). It gives what a subscribe sends to recover (`recoverFor`), tells a message the client already had
 * from a new one (`accept`), and reads a subscribe reply (`replied`). BayeuxClient keeps one; `weft-recovery.js` keeps
 * one for the official CometD client.
 *
 * `storage`, if given, is a Web Storage (`sessionStorage`) the positions are kept in under `key`, so that a reloaded
 * page starts from them: read at construction, written a moment after they change and at once by `save()`.
 */
export class Positions {
    /** The most channels whose positions are kept; past it, those seen least recently are forgotten. */
    static MAX_CHANNELS = 1000;

    #positions = new Map(); // channel -> {epoch, offset}, least recently changed first
    #storage;
    #key;
    #saveTimer = null;

    constructor(storage = null, key = 'weft.positions') {
        this.#storage = storage;
        this.#key = key;
        if (storage) {
            try {
                const stored = JSON.parse(storage.getItem(key) || '{}');
                for (const [channel, value] of Object.entries(stored)) {
                    const position = positionOf(value);
                    if (position && channel.startsWith('/')) {
                        this.#set(channel, position);
                    }
                }
            } catch (x) {
                // nothing usable stored: start without positions
            }
        }
    }

    /** The position kept for `channel`, `{epoch, offset}`, or null. */
    get(channel) {
        const position = this.#positions.get(channel);
        return position ? {...position} : null;
    }

    /** Every position kept, `{channel: {epoch, offset}}`. */
    all() {
        const all = {};
        for (const [channel, position] of this.#positions) {
            all[channel] = {...position};
        }
        return all;
    }

    /**
     * What a subscribe to `subscription` sends in `ext.recover`: the position of the channel itself, or for a wildcard
     * those of the channels under it (the most recently seen, at most MAX_RECOVER_CHANNELS); null when there is none.
     */
    recoverFor(subscription) {
        const recover = {};
        let count = 0;
        if (!subscription.endsWith('*')) {
            const position = this.#positions.get(subscription);
            if (position) {
                recover[subscription] = {...position};
                count++;
            }
        } else {
            const channels = [...this.#positions.keys()];
            for (let i = channels.length - 1; i >= 0 && count < MAX_RECOVER_CHANNELS; i--) {
                if (channelMatches(subscription, channels[i])) {
                    recover[channels[i]] = {...this.#positions.get(channels[i])};
                    count++;
                }
            }
        }
        return count > 0 ? recover : null;
    }

    /**
     * A message delivered: false if the client already had it (its epoch is the one kept for its channel and its
     * offset is not above the one kept), else true, its position kept. A message without a position is accepted.
     */
    accept(message) {
        const position = positionOf(message.ext && message.ext.history);
        if (!position) {
            return true;
        }
        const kept = this.#positions.get(message.channel);
        if (kept && kept.epoch === position.epoch && position.offset <= kept.offset) {
            return false;
        }
        this.#changed(message.channel, position);
        return true;
    }

    /**
     * A successful subscribe reply: keeps the positions its `ext.recover` gives where the client has none in that
     * epoch, and returns, for each channel it answers a recovery for, `{channel, subscription, recovered, epoch,
     * offset}` (the channel's position now; both null when the server could not read its history).
     *
     * A reply's position, the channel's latest, never moves on a position kept in its epoch: what is delivered after
     * it moves that on. When recovered, what was missed follows (or came already), and would be taken for
     * duplicates; when the session already had the channel through another subscription, what is on its way would.
     * A position of no use (behind what the server still has) costs nothing: the next recovery says it is too old.
     */
    replied(reply) {
        const outcomes = [];
        const entries = reply.ext && reply.ext.recover;
        if (!reply.successful || entries === null || typeof entries !== 'object') {
            return outcomes;
        }
        for (const [channel, value] of Object.entries(entries)) {
            if (value === null || typeof value !== 'object' || !channel.startsWith('/')) {
                continue;
            }
            const position = positionOf(value);
            const kept = this.#positions.get(channel);
            if (position && value.recovered !== true && !(kept && kept.epoch === position.epoch)) {
                this.#changed(channel, position);
            }
            if (typeof value.recovered === 'boolean') {
                outcomes.push({channel, subscription: reply.subscription, recovered: value.recovered,
                    epoch: position ? position.epoch : null, offset: position ? position.offset : null});
            }
        }
        return outcomes;
    }

    /** Forgets the positions of the channels `keep(channel)` says no to (after an unsubscribe). */
    retain(keep) {
        let removed = false;
        for (const channel of [...this.#positions.keys()]) {
            if (!keep(channel)) {
                this.#positions.delete(channel);
                removed = true;
            }
        }
        if (removed) {
            this.#scheduleSave();
        }
    }

    /** Writes the positions to the storage now (a page being hidden). */
    save() {
        clearTimeout(this.#saveTimer);
        this.#saveTimer = null;
        if (this.#storage) {
            try {
                this.#storage.setItem(this.#key, JSON.stringify(this.all()));
            } catch (x) {
                // storage full or refused: the positions stay in memory
            }
        }
    }

    #changed(channel, position) {
        this.#set(channel, position);
        this.#scheduleSave();
    }

    #set(channel, position) {
        this.#positions.delete(channel); // last in the map: the most recently seen
        this.#positions.set(channel, position);
        if (this.#positions.size > Positions.MAX_CHANNELS) {
            this.#positions.delete(this.#positions.keys().next().value);
        }
    }

    #scheduleSave() {
        if (this.#storage && this.#saveTimer === null) {
            this.#saveTimer = setTimeout(() => this.save(), 200);
        }
    }
}

/**
 * HTTP long-polling: each batch is one POST whose response body holds the replies and any queued messages, sent with
 * `fetcher` (the page's `fetch` unless the `fetch` option gave another).
 */
class LongPollingTransport {
    constructor(url, onMessages, fetcher) {
        this.name = 'long-polling';
        this.url = url;
        this.onMessages = onMessages;
        this.fetcher = fetcher;
        this.inFlight = new Set();
    }

    /** Sends a batch; resolves once the response's messages were handed to `onMessages`, rejects on failure. */
    async send(messages, timeoutMs, keepalive = false) {
        const controller = new AbortController();
        const timer = setTimeout(() => controller.abort(new Error('no response within ' + timeoutMs + ' ms')),
            timeoutMs);
        this.inFlight.add(controller);
        try {
            const response = await this.fetcher(this.url, {
                method: 'POST',
                headers: {'Content-Type': 'application/json;charset=UTF-8'},
                body: JSON.stringify(messages),
                credentials: 'include',
                cache: 'no-store',
                signal: controller.signal,
                keepalive,
            });
            if (!response.ok) {
                throw new HttpError(response.status, await response.text().catch(() => ''));
            }
            const body = await response.json();
            this.onMessages(Array.isArray(body) ? body : [body]);
        } finally {
            clearTimeout(timer);
            this.inFlight.delete(controller);
        }
    }

    /** Aborts every request in flight (a held /meta/connect included). */
    close() {
        for (const controller of this.inFlight) {
            controller.abort(new Error('closed'));
        }
        this.inFlight.clear();
    }
}

/**
 * Eventsource: the session's messages come down one Server-Sent Events stream (`GET url?clientId=...`, opened with
 * the first /meta/connect and reopened by the browser itself, with Last-Event-ID, when the network cuts it); every
 * batch goes up by POST as on long-polling. A /meta/connect's reply arrives on the stream, the others in the POST's
 * answer: a batch is done when every message of it has its reply, whichever way it came. `everOpened` tells a stream
 * that cannot pass (a proxy that buffers it, a server that does not offer it) from one that broke later.
 */
class EventSourceTransport {
    constructor(url, onMessages, fetcher) {
        this.name = 'eventsource';
        this.url = url;
        this.onMessages = onMessages;
        this.everOpened = false;
        this.source = null;
        this.clientId = null;
        this.openWaiters = [];
        this.waiting = new Map(); // message id -> {resolve, reject, timer}
        this.poster = new LongPollingTransport(url, messages => this.#received(messages), fetcher);
    }

    static available() {
        return typeof globalThis.EventSource === 'function';
    }

    /** Resolves once the stream of `clientId` is open: at once if it is, else at its next `open`. */
    open(clientId) {
        if (this.source && this.clientId === clientId && this.source.readyState !== EventSource.CLOSED) {
            return this.source.readyState === EventSource.OPEN ? Promise.resolve() : this.#nextOpen();
        }
        this.#closeSource(new Error('a stream for another session'));
        const url = new URL(this.url);
        url.searchParams.set('clientId', clientId);
        const source = new EventSource(url.href, {withCredentials: true});
        this.source = source;
        this.clientId = clientId;
        let opens = 0;
        source.onopen = () => {
            this.everOpened = true;
            if (opens++ > 0) {
                // The browser reopened a stream the network cut: the connect held on the old one is gone.
                this.#failConnects(new Error('the stream was reopened'));
            }
            const waiters = this.openWaiters;
            this.openWaiters = [];
            waiters.forEach(waiter => waiter.resolve());
        };
        source.onerror = () => {
            if (source.readyState === EventSource.CLOSED) {
                this.#closeSource(new Error('the stream could not be opened'));
            } else {
                this.#failConnects(new Error('the stream was cut; reconnecting'));
            }
        };
        source.onmessage = event => {
            let messages;
            try {
                const parsed = JSON.parse(event.data);
                messages = Array.isArray(parsed) ? parsed : [parsed];
            } catch (x) {
                return;
            }
            for (const message of messages) {
                if (message && message.channel === META_CONNECT && message.successful === false
                        && message.id === undefined) {
                    // The server knows no session for this stream: stop the browser reopening it; the client's own
                    // requests are told the same and handshake again.
                    this.#closeSource(new Error('no session for this stream'));
                }
            }
            this.#received(messages);
        };
        return this.#nextOpen();
    }

    #nextOpen() {
        return new Promise((resolve, reject) => this.openWaiters.push({resolve, reject}));
    }

    /** Sends a batch; resolves when the replies to all its messages have been handed to `onMessages`. */
    async send(messages, timeoutMs, keepalive = false) {
        const connect = messages.find(message => message.channel === META_CONNECT);
        if (connect) {
            let timer;
            const timedOut = new Promise((resolve, reject) => {
                timer = setTimeout(() => reject(new Error('the stream did not open within ' + timeoutMs + ' ms')),
                    timeoutMs);
            });
            try {
                await Promise.race([this.open(connect.clientId), timedOut]);
            } finally {
                clearTimeout(timer);
            }
        }
        const replies = messages.map(message => new Promise((resolve, reject) => {
            const timer = setTimeout(() => {
                this.waiting.delete(message.id);
                reject(new Error('no reply within ' + timeoutMs + ' ms'));
            }, timeoutMs);
            this.waiting.set(message.id, {resolve, reject, timer, connect: message.channel === META_CONNECT});
        }));
        replies.forEach(reply => reply.catch(() => { })); // the first failure is the one reported
        await this.poster.send(messages, timeoutMs, keepalive);
        await Promise.all(replies);
    }

    #received(messages) {
        this.onMessages(messages);
        for (const message of messages) {
            const waiter = message && 'successful' in message ? this.waiting.get(message.id) : undefined;
            if (waiter) {
                this.waiting.delete(message.id);
                clearTimeout(waiter.timer);
                waiter.resolve();
            }
        }
    }

    #failConnects(error) {
        for (const [id, waiter] of this.waiting) {
            if (waiter.connect) {
                this.waiting.delete(id);
                clearTimeout(waiter.timer);
                waiter.reject(error);
            }
        }
    }

    #closeSource(error) {
        if (this.source) {
            this.source.close();
            this.source = null;
            this.clientId = null;
        }
        const waiters = this.openWaiters;
        this.openWaiters = [];
        waiters.forEach(waiter => waiter.reject(error));
        this.#failConnects(error);
    }

    close() {
        this.#closeSource(new Error('closed'));
        for (const waiter of this.waiting.values()) {
            clearTimeout(waiter.timer);
            waiter.reject(new Error('closed'));
        }
        this.waiting.clear();
        this.poster.close();
    }
}

/** `WebSocket.OPEN`, the same for the page's WebSocket and for one given as the `WebSocket` option. */
const SOCKET_OPEN = 1;

/**
 * Websocket: one socket, opened when first needed and again after it closes. Each batch is one text frame; replies
 * and pushed messages arrive in frames of their own. `everOpened` tells a websocket that cannot pass (a proxy, a
 * server without it) from one that broke later. `Socket` is the page's `WebSocket` unless the `WebSocket` option gave
 * another.
 */
class WebSocketTransport {
    constructor(url, onMessages, Socket) {
        this.name = 'websocket';
        this.url = url.replace(/^http/, 'ws');
        this.onMessages = onMessages;
        this.Socket = Socket;
        this.everOpened = false;
        this.socket = null;
        this.opening = null;
        this.waiting = new Map(); // message id -> {resolve, reject, timer}
    }

    open() {
        if (this.socket && this.socket.readyState === SOCKET_OPEN) {
            return Promise.resolve(this.socket);
        }
        if (this.opening) {
            return this.opening;
        }
        this.opening = new Promise((resolve, reject) => {
            const socket = new this.Socket(this.url);
            let opened = false;
            socket.onopen = () => {
                opened = true;
                this.everOpened = true;
                this.socket = socket;
                this.opening = null;
                resolve(socket);
            };
            socket.onmessage = event => this.#received(event.data);
            // the close that follows an error says what happened; without a listener, Node's `ws` throws the error
            socket.onerror = () => { };
            socket.onclose = event => {
                if (!opened) {
                    this.opening = null;
                    reject(new Error('websocket could not be opened (' + event.code + ')'));
                    return;
                }
                if (this.socket === socket) {
                    this.socket = null;
                }
                this.#failAll(new Error('websocket closed (' + event.code + ')'));
            };
        });
        return this.opening;
    }

    /** Sends a batch; resolves when the replies to all its messages have been handed to `onMessages`. */
    async send(messages, timeoutMs) {
        const socket = await this.open();
        const replies = messages.map(message => new Promise((resolve, reject) => {
            const timer = setTimeout(() => {
                this.waiting.delete(message.id);
                reject(new Error('no reply within ' + timeoutMs + ' ms'));
                socket.close(4000, 'reply timeout'); // a socket that lost a reply is not trusted further
            }, timeoutMs);
            this.waiting.set(message.id, {resolve, reject, timer});
        }));
        socket.send(JSON.stringify(messages));
        await Promise.all(replies);
    }

    /** Sends a batch without waiting for replies (a disconnect from a page being closed). */
    sendAndForget(messages) {
        if (this.socket && this.socket.readyState === SOCKET_OPEN) {
            this.socket.send(JSON.stringify(messages));
        }
    }

    #received(text) {
        let messages;
        try {
            const parsed = JSON.parse(text);
            messages = Array.isArray(parsed) ? parsed : [parsed];
        } catch (x) {
            return; // not Bayeux; nothing to do with it
        }
        this.onMessages(messages);
        for (const message of messages) {
            const waiter = 'successful' in message ? this.waiting.get(message.id) : undefined;
            if (waiter) {
                this.waiting.delete(message.id);
                clearTimeout(waiter.timer);
                waiter.resolve();
            }
        }
    }

    #failAll(error) {
        for (const waiter of this.waiting.values()) {
            clearTimeout(waiter.timer);
            waiter.reject(error);
        }
        this.waiting.clear();
    }

    close() {
        const socket = this.socket;
        this.socket = null;
        if (socket) {
            socket.close(1000, 'closed by the client');
        }
        this.#failAll(new Error('closed'));
    }
}

/**
 * A Bayeux client. Create one per page (per server), call `handshake()`, then `subscribe` and `publish`.
 *
 * Options:
 * - `transports`: connection types in order of preference, default `['websocket', 'eventsource', 'long-polling']`;
 *   give one, `['eventsource']` for example, to force it (tests do), or `['long-polling']` to keep off the others;
 * - `ack`: ask for the acknowledgement extension (the server must have it installed), default false;
 * - `maxNetworkDelay`: ms a reply may take beyond what the server may hold it, default 10000;
 * - `backoffIncrement`, `maxBackoff`: ms added to the wait before each retry after a failure, and its cap (1000, 30000);
 * - `recover`: keep a position in each channel that keeps history, ask for what was missed with each subscribe, and
 *   drop a message already received (see `Positions`), default true;
 * - `positions`: where the positions are kept: `'memory'` (default), `'session'` (the page's `sessionStorage`, so that
 *   a reloaded page recovers too) or any object with `getItem` and `setItem`; `positionsKey`: the storage key, default
 *   `'weft.positions ' + url`;
 * - `fetch`: the function long-polling and eventsource send their POSTs with, called as `fetch(url, init)`; default
 *   the page's `fetch`. Outside a browser, one that keeps cookies (Node's does not) makes the client a browser of its
 *   own, with its own `BAYEUX_BROWSER` and load balancer cookies;
 * - `WebSocket`: the WebSocket constructor, default the page's; outside a browser, one with the same API (Node's `ws`
 *   package), where there is no global one.
 *
 * Events, with `addListener(event, callback)`: `state` (the new state: `disconnected`, `handshaking`, `refused` (the
 * server refused the handshake: `refusal` says why and whether the client tries again), `connecting`, `connected`,
 * `unconnected` (the connection is lost and being retried), `disconnecting`), `handshake` (each successful handshake
 * reply, with `{rehandshake: true}` after the first), `refused` (each refusal, with the `refusal`), `failure` (an error
 * being retried), `message` (every message received, for debugging), `recovery` (a subscribe that asked to recover a
 * channel was answered: `{channel, subscription, recovered, epoch, offset}`; `recovered` false means what was missed
 * is lost, and the page should reload its state; `epoch`, `offset` are the channel's position now).
 */
export class BayeuxClient {
    #url;
    #options;
    #transports;
    #transport = null;
    #state = 'disconnected';
    #clientId = null;
    #nextId = 0;
    #pending = new Map(); // id -> {resolve, reject}
    #subscriptions = new Map(); // channel -> {callbacks: Set, confirmed: boolean}
    #listeners = new Map(); // event -> Set
    #advice = {reconnect: 'retry', interval: 0, timeout: 60000};
    #backoff = 0;
    #timer = null;
    #handshakes = 0;
    #handshakeExt = null;
    #refusal = null;
    #firstConnect = true;
    #ackEnabled = false;
    #lastAck = 0;
    #positions = null; // a Positions when recovering
    #ready;
    #resolveReady;
    #rejectReady;

    constructor(url, options = {}) {
        this.#url = new URL(url, globalThis.location ? globalThis.location.href : undefined).href;
        this.#options = {
            transports: TRANSPORTS,
            ack: false,
            maxNetworkDelay: 10000,
            backoffIncrement: 1000,
            maxBackoff: 30000,
            recover: true,
            positions: 'memory',
            positionsKey: undefined,
            fetch: (input, init) => globalThis.fetch(input, init), // looked up at each call: the page's, now
            WebSocket: globalThis.WebSocket,
            ...options,
        };
        if (this.#options.recover) {
            this.#positions = new Positions(storageOf(this.#options.positions),
                this.#options.positionsKey || 'weft.positions ' + this.#url);
            if (this.#options.positions !== 'memory' && globalThis.addEventListener) {
                globalThis.addEventListener('pagehide', () => this.#positions.save());
            }
        }
        const receive = messages => this.#receive(messages);
        const {fetch: fetcher, WebSocket: Socket} = this.#options;
        this.#transports = this.#options.transports
            .filter(name => name !== 'websocket' || typeof Socket === 'function')
            .filter(name => name !== 'eventsource' || EventSourceTransport.available())
            .map(name => {
                if (name === 'websocket') {
                    return new WebSocketTransport(this.#url, receive, Socket);
                }
                if (name === 'eventsource') {
                    return new EventSourceTransport(this.#url, receive, fetcher);
                }
                if (name === 'long-polling') {
                    return new LongPollingTransport(this.#url, receive, fetcher);
                }
                throw new Error('unknown transport: ' + name);
            });
        if (this.#transports.length === 0) {
            throw new Error('no usable transport among ' + this.#options.transports.join(', '));
        }
        this.#resetReady();
    }

    /** The current state (see the class comment). */
    get state() {
        return this.#state;
    }

    /** The session's clientId, or null when not handshaken. */
    get clientId() {
        return this.#clientId;
    }

    /** The connection type in use: `websocket`, `eventsource` or `long-polling`. */
    get transport() {
        return (this.#transport || this.#transports[0]).name;
    }

    /**
     * Why the server refused the last handshake, until one succeeds: `{reason, status, error, reply, retrying}`.
     * `reason` is the Bayeux error (`403::handshake_denied`, `429:maxSessionsPerAddress:limit_exceeded`,
     * `503::server_closing`) or the HTTP answer (`HTTP 403: origin not allowed: ...`); `status` the HTTP status (403,
     * 429, 503...) when the refusal was one; `error` and `reply` the Bayeux error and reply when it was one;
     * `retrying` whether the client tries again (false once the server said `reconnect: none`). Null otherwise.
     */
    get refusal() {
        return this.#refusal;
    }

    /** Whether the server agreed to the acknowledgement extension. */
    get ackEnabled() {
        return this.#ackEnabled;
    }

    /**
     * The position kept for `channel` (a channel that keeps history): `{epoch, offset}` of the last message received
     * there or of the last subscribe reply; null when there is none or `recover` is off.
     */
    position(channel) {
        return this.#positions ? this.#positions.get(channel) : null;
    }

    addListener(event, callback) {
        if (!this.#listeners.has(event)) {
            this.#listeners.set(event, new Set());
        }
        this.#listeners.get(event).add(callback);
    }

    removeListener(event, callback) {
        const set = this.#listeners.get(event);
        if (set) {
            set.delete(callback);
        }
    }

    /**
     * Handshakes and starts the connect loop. Resolves with the first successful handshake reply; rejects if the
     * server refuses with advice `reconnect: none`. Failures the client can retry (the network) are retried.
     *
     * `fields.ext`, if given, goes in the handshake's `ext` (a token for the server's security policy:
     * `client.handshake({ext: {token}})`), and in every handshake this client makes again after it.
     */
    handshake(fields = {}) {
        if (fields.ext !== undefined) {
            if (fields.ext === null || typeof fields.ext !== 'object' || Array.isArray(fields.ext)) {
                throw new TypeError('handshake ext must be an object');
            }
            this.#handshakeExt = {...fields.ext};
        }
        if (this.#state === 'disconnected' || (this.#state === 'refused' && !this.#refusal.retrying)) {
            this.#refusal = null;
            this.#transport = null;
            this.#startHandshake();
        }
        return this.#ready;
    }

    /**
     * Subscribes `callback` to `channel` (wildcards `*` and `**` allowed); it is called with each message received
     * there. Resolves with a subscription to pass to `unsubscribe`, once the server confirmed it. The subscription
     * is made again by itself after a new handshake.
     */
    async subscribe(channel, callback) {
        let entry = this.#subscriptions.get(channel);
        const first = !entry;
        if (first) {
            entry = {callbacks: new Set(), confirmed: false, again: false};
            this.#subscriptions.set(channel, entry);
        }
        entry.callbacks.add(callback);
        const subscription = {channel, callback};
        if (first || !entry.confirmed) {
            try {
                await this.#sendWhenReady(() => this.#subscribeMessage(channel));
                entry.confirmed = true;
            } catch (x) {
                entry.callbacks.delete(callback);
                if (entry.callbacks.size === 0 && this.#subscriptions.get(channel) === entry) {
                    this.#subscriptions.delete(channel);
                }
                throw x;
            }
        }
        return subscription;
    }

    /** Removes a subscription; the server is told when the channel's last callback goes. */
    async unsubscribe(subscription) {
        const entry = this.#subscriptions.get(subscription.channel);
        if (!entry || !entry.callbacks.delete(subscription.callback) || entry.callbacks.size > 0) {
            return;
        }
        this.#subscriptions.delete(subscription.channel);
        if (this.#positions) {
            // subscribing again later starts afresh: what was published meanwhile is not missed, it was not wanted
            this.#positions.retain(channel => [...this.#subscriptions.keys()]
                .some(pattern => channelMatches(pattern, channel)));
        }
        if (this.#clientId) {
            await this.#send({channel: META_UNSUBSCRIBE, subscription: subscription.channel});
        }
    }

    /**
     * Publishes `data` to `channel`. Resolves with the server's reply (for a `/service/` channel its `data` is the
     * service's answer); rejects with a BayeuxError if the server refused it.
     */
    publish(channel, data) {
        return this.#sendWhenReady({channel, data});
    }

    /** Ends the session: tells the server, stops the connect loop, closes the connections. */
    async disconnect() {
        if (this.#state === 'disconnected') {
            return;
        }
        const clientId = this.#clientId;
        const transport = this.#transport;
        this.#refusal = null;
        this.#setState('disconnecting');
        clearTimeout(this.#timer);
        try {
            if (clientId && transport) {
                const message = {channel: META_DISCONNECT, clientId, id: String(++this.#nextId)};
                if (transport instanceof WebSocketTransport) {
                    transport.sendAndForget([message]);
                } else {
                    await transport.send([message], this.#options.maxNetworkDelay, true);
                }
            }
        } catch (x) {
            // the session expires on the server anyway
        } finally {
            this.#stop(new Error('disconnected'));
            if (this.#positions) {
                this.#positions.save();
            }
        }
    }

    // ---- handshake and the connect loop ----

    #startHandshake() {
        clearTimeout(this.#timer);
        this.#clientId = null;
        this.#ackEnabled = false;
        this.#lastAck = 0;
        this.#firstConnect = true;
        for (const entry of this.#subscriptions.values()) {
            // what the old session had is made again after the handshake; a first subscribe still waiting
            // for the handshake sends itself
            entry.again = entry.again || entry.confirmed;
            entry.confirmed = false;
        }
        if (!this.#transport) {
            this.#transport = this.#transports[0];
        }
        this.#setState(this.#refusal ? 'refused' : 'handshaking'); // trying again after a refusal is still refused
        const message = {
            channel: META_HANDSHAKE,
            version: '1.0',
            minimumVersion: '1.0',
            supportedConnectionTypes: this.#transports.map(t => t.name),
            advice: {timeout: 60000, interval: 0},
        };
        if (this.#handshakeExt || this.#options.ack) {
            message.ext = {...this.#handshakeExt};
            if (this.#options.ack) {
                message.ext.ack = true;
            }
        }
        const transport = this.#transport;
        this.#request(transport, message, this.#options.maxNetworkDelay)
            .then(reply => this.#handshakeReplied(reply), failure => this.#handshakeFailed(transport, failure));
    }

    #handshakeReplied(reply) {
        if (this.#state !== 'handshaking' && this.#state !== 'refused') {
            return;
        }
        this.#updateAdvice(reply);
        if (!reply.successful) {
            const error = reply.error ? String(reply.error) : 'handshake refused';
            const retrying = this.#advice.reconnect !== 'none';
            this.#refused({reason: error, status: undefined, error, reply, retrying});
            if (retrying) {
                this.#retry(() => this.#startHandshake());
            }
            return;
        }
        this.#refusal = null;
        this.#clientId = reply.clientId;
        this.#ackEnabled = Boolean(this.#options.ack && reply.ext && reply.ext.ack === true);
        this.#backoff = 0;
        const offered = reply.supportedConnectionTypes || [];
        // From the transport the handshake went on: one the client fell back from stays behind it.
        const from = Math.max(0, this.#transports.indexOf(this.#transport));
        const chosen = this.#transports.slice(from).find(t => offered.includes(t.name))
            || this.#transports.find(t => offered.includes(t.name));
        if (!chosen) {
            this.#stop(new Error('the server offers none of ' + this.#transports.map(t => t.name).join(', ')));
            return;
        }
        if (chosen !== this.#transport) {
            this.#transport.close();
            this.#transport = chosen;
        }
        this.#setState('connecting');
        const rehandshake = this.#handshakes++ > 0;
        this.#resubscribe();
        this.#resolveReady(reply);
        this.#emit('handshake', reply, {rehandshake});
        this.#connect();
    }

    #handshakeFailed(transport, failure) {
        if (this.#state !== 'handshaking' && this.#state !== 'refused') {
            return;
        }
        const index = this.#transports.indexOf(transport);
        if (transport instanceof WebSocketTransport && !transport.everOpened && index < this.#transports.length - 1) {
            // websocket cannot pass here (a proxy, a server without it): fall back at once
            this.#transport = this.#transports[index + 1];
            this.#startHandshake();
            return;
        }
        if (failure instanceof HttpError) {
            // the server answered, and not with Bayeux: an origin it does not allow (403), a bound a proxy or the
            // connector keeps (429), a server stopping (503), a wrong URL (404)
            this.#refused({reason: failure.message, status: failure.status, error: undefined, reply: undefined,
                retrying: true});
        }
        this.#emit('failure', failure);
        this.#retry(() => this.#startHandshake());
    }

    /** Shows a refused handshake in the state and the `refused` event; stops the client when it must not retry. */
    #refused(refusal) {
        this.#refusal = Object.freeze(refusal);
        if (refusal.retrying) {
            this.#setState('refused');
        } else {
            this.#stop(refusal.reply ? new BayeuxError(refusal.reply) : new Error(refusal.reason), 'refused');
        }
        this.#emit('refused', this.#refusal);
    }

    #connect() {
        if (this.#state !== 'connecting' && this.#state !== 'connected' && this.#state !== 'unconnected') {
            return;
        }
        const message = {channel: META_CONNECT, clientId: this.#clientId, connectionType: this.#transport.name};
        if (this.#firstConnect) {
            message.advice = {timeout: 0}; // answered at once: the session is up before the first held connect
        }
        if (this.#ackEnabled) {
            message.ext = {ack: this.#lastAck};
        }
        const timeout = (this.#firstConnect ? 0 : this.#advice.timeout) + this.#options.maxNetworkDelay;
        const clientId = this.#clientId;
        this.#request(this.#transport, message, timeout).then(
            reply => clientId === this.#clientId && this.#connectReplied(reply),
            failure => clientId === this.#clientId && this.#connectFailed(failure));
    }

    #connectReplied(reply) {
        this.#updateAdvice(reply);
        if (reply.successful) {
            this.#firstConnect = false;
            this.#backoff = 0;
            if (this.#ackEnabled && reply.ext && typeof reply.ext.ack === 'number') {
                this.#lastAck = reply.ext.ack;
            }
            this.#setState('connected');
            clearTimeout(this.#timer);
            this.#timer = setTimeout(() => this.#connect(), this.#advice.interval);
            return;
        }
        switch (this.#advice.reconnect) {
            case 'handshake':
                this.#resetReady();
                this.#startHandshake();
                break;
            case 'none':
                this.#stop(new BayeuxError(reply));
                break;
            default:
                this.#setState('unconnected');
                this.#retry(() => this.#connect());
        }
    }

    #connectFailed(failure) {
        if (this.#state === 'disconnecting' || this.#state === 'disconnected') {
            return;
        }
        const transport = this.#transport;
        const index = this.#transports.indexOf(transport);
        if (transport instanceof EventSourceTransport && !transport.everOpened
                && index < this.#transports.length - 1) {
            // the stream cannot pass here (a proxy that buffers it): the same session goes on with the next transport
            transport.close();
            this.#transport = this.#transports[index + 1];
            this.#firstConnect = true;
            this.#emit('failure', failure);
            this.#connect();
            return;
        }
        this.#setState('unconnected');
        this.#emit('failure', failure);
        this.#retry(() => this.#connect());
    }

    #retry(action) {
        this.#backoff = Math.min(this.#backoff + this.#options.backoffIncrement, this.#options.maxBackoff);
        clearTimeout(this.#timer);
        this.#timer = setTimeout(action, this.#advice.interval + this.#backoff);
    }

    #resubscribe() {
        for (const [channel, entry] of this.#subscriptions) {
            if (entry.again && entry.callbacks.size > 0) {
                entry.again = false;
                this.#send(this.#subscribeMessage(channel))
                    .then(() => { entry.confirmed = true; }, failure => this.#emit('failure', failure));
            }
        }
    }

    /** A subscribe to `channel`, with the positions to recover from when there are some. */
    #subscribeMessage(channel) {
        const message = {channel: META_SUBSCRIBE, subscription: channel};
        const recover = this.#positions && this.#positions.recoverFor(channel);
        if (recover) {
            message.ext = {recover};
        }
        return message;
    }

    #updateAdvice(reply) {
        if (reply.advice) {
            this.#advice = {...this.#advice, ...reply.advice};
        }
    }

    #stop(reason, finalState = 'disconnected') {
        clearTimeout(this.#timer);
        for (const transport of this.#transports) {
            transport.close();
        }
        for (const pending of this.#pending.values()) {
            pending.reject(reason);
        }
        this.#pending.clear();
        this.#clientId = null;
        this.#rejectReady(reason);
        this.#resetReady();
        this.#setState(finalState);
    }

    // ---- requests and replies ----

    /**
     * Sends once handshaken (waiting for the handshake if one is under way); resolves with a successful reply.
     * `message` may be a function that makes it, called once the handshake is done.
     */
    async #sendWhenReady(message) {
        if (this.#state === 'disconnected' || this.#state === 'disconnecting'
                || (this.#state === 'refused' && !this.#refusal.retrying)) {
            throw new Error('not handshaken: call handshake() first');
        }
        await this.#ready;
        return this.#send(typeof message === 'function' ? message() : message);
    }

    async #send(message) {
        const reply = await this.#request(this.#transport, {...message, clientId: this.#clientId},
            this.#options.maxNetworkDelay);
        this.#updateAdvice(reply);
        if (!reply.successful) {
            throw new BayeuxError(reply);
        }
        return reply;
    }

    /** Sends one message; resolves with its reply, successful or not; rejects when the transport failed. */
    #request(transport, message, timeoutMs) {
        const id = String(++this.#nextId);
        message.id = id;
        return new Promise((resolve, reject) => {
            this.#pending.set(id, {resolve, reject});
            transport.send([message], timeoutMs).then(
                () => this.#settle(id, null, new Error('no reply to ' + message.channel)),
                failure => this.#settle(id, null, failure));
        });
    }

    #settle(id, reply, failure) {
        const pending = this.#pending.get(id);
        if (!pending) {
            return;
        }
        this.#pending.delete(id);
        if (failure) {
            pending.reject(failure);
        } else {
            pending.resolve(reply);
        }
    }

    /** Messages from either transport, in the order they came: replies settle requests, others go to subscribers. */
    #receive(messages) {
        for (const message of messages) {
            if (!message || typeof message.channel !== 'string') {
                continue;
            }
            this.#emit('message', message);
            if ('successful' in message) {
                if (this.#positions && message.channel === META_SUBSCRIBE) {
                    for (const outcome of this.#positions.replied(message)) {
                        this.#emit('recovery', outcome);
                    }
                }
                this.#settle(message.id, message, null);
            } else if (!this.#positions || this.#positions.accept(message)) {
                this.#deliver(message);
            }
        }
    }

    #deliver(message) {
        for (const [pattern, entry] of this.#subscriptions) {
            if (channelMatches(pattern, message.channel)) {
                for (const callback of [...entry.callbacks]) {
                    try {
                        callback(message);
                    } catch (x) {
                        console.error('a subscriber of ' + pattern + ' failed', x);
                    }
                }
            }
        }
    }

    // ---- small helpers ----

    #resetReady() {
        this.#ready = new Promise((resolve, reject) => {
            this.#resolveReady = resolve;
            this.#rejectReady = reject;
        });
        this.#ready.catch(() => { }); // a rejection nobody waited for is not an error
    }

    #setState(state) {
        if (this.#state !== state) {
            this.#state = state;
            this.#emit('state', state);
        }
    }

    #emit(event, ...args) {
        const set = this.#listeners.get(event);
        if (set) {
            for (const callback of [...set]) {
                try {
                    callback(...args);
                } catch (x) {
                    console.error('a listener of ' + event + ' failed', x);
                }
            }
        }
    }
}
