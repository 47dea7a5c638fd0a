// A Bayeux server that is the test. Each batch a client sends waits until the test takes it (`next`) and answers it
// (`answer`); a /meta/disconnect is answered at once. `new FakeServer()` stands in for `fetch`, so that weft.js's
// long-polling transport sends here; `FakeServer.xhrSend` does the same for the official CometD client's. Used by the
// tests of this folder, run by `node --test` (WeftJsNodeTest).

export class FakeServer {
    #pending = [];
    #wakeups = [];
    #realFetch = globalThis.fetch;

    constructor() {
        globalThis.fetch = (url, init) => this.#fetch(init);
    }

    /** Gives `fetch` back. */
    close() {
        globalThis.fetch = this.#realFetch;
    }

    #fetch(init) {
        return new Promise((resolve, reject) => {
            const cancel = this.#receive(JSON.parse(init.body), messages => resolve(response(messages)));
            if (init.signal) {
                init.signal.addEventListener('abort', () => {
                    cancel();
                    reject(init.signal.reason || new Error('aborted'));
                });
            }
        });
    }

    /**
     * For a subclass of CometD's LongPollingTransport: the batch of `packet` goes to this server, the answer to
     * `packet.onSuccess`; returns the stand-in for the XMLHttpRequest, which `abort()` fails.
     */
    xhrSend(packet) {
        let done = false;
        const cancel = this.#receive(JSON.parse(packet.body), messages => {
            if (!done) {
                done = true;
                setTimeout(() => packet.onSuccess(JSON.stringify(messages)), 0);
            }
        });
        return {
            readyState: 1,
            status: 200,
            abort() {
                if (!done) {
                    done = true;
                    cancel();
                    this.status = 0;
                    packet.onError('abort');
                }
            },
        };
    }

    /**
     * A stand-in for the WebSocket constructor (weft.js's `WebSocket` option) whose sockets talk to this server: each
     * frame sent is a batch, each answer a frame back. The class's `urls` lists the URLs its sockets were opened on.
     */
    webSocket() {
        const server = this;
        const urls = [];
        return class FakeSocket {
            static urls = urls;

            constructor(url) {
                urls.push(url);
                this.readyState = 0;
                setTimeout(() => {
                    this.readyState = 1;
                    this.onopen();
                }, 0);
            }

            send(text) {
                server.#receive(JSON.parse(text), messages => {
                    if (this.readyState === 1) {
                        this.onmessage({data: JSON.stringify(messages)});
                    }
                });
            }

            close(code = 1000) {
                if (this.readyState !== 3) {
                    this.readyState = 3;
                    setTimeout(() => this.onclose({code}), 0);
                }
            }
        };
    }

    /** A batch arrives: queued for the test; returns what takes it back out (its request was cancelled). */
    #receive(batch, answer) {
        const request = {batch, message: batch[0], answer: (...messages) => answer(messages)};
        if (request.message.channel === '/meta/disconnect') {
            request.answer({channel: '/meta/disconnect', id: request.message.id, successful: true});
            return () => { };
        }
        this.#pending.push(request);
        this.#wakeups.splice(0).forEach(wake => wake());
        return () => {
            const index = this.#pending.indexOf(request);
            if (index >= 0) {
                this.#pending.splice(index, 1);
            }
        };
    }

    /**
     * The next request whose (first) message is on `channel`, taken from those waiting (the others stay); fails after
     * `timeoutMs`.
     */
    async next(channel, timeoutMs = 5000) {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
            const index = this.#pending.findIndex(request => request.message.channel === channel);
            if (index >= 0) {
                return this.#pending.splice(index, 1)[0];
            }
            const left = deadline - Date.now();
            if (left <= 0) {
                throw new Error('no ' + channel + ' within ' + timeoutMs + ' ms; waiting: '
                    + JSON.stringify(this.#pending.map(request => request.batch)));
            }
            await new Promise(resolve => {
                const timer = setTimeout(resolve, left);
                this.#wakeups.push(() => {
                    clearTimeout(timer);
                    resolve();
                });
            });
        }
    }

    /**
     * Handshakes a client as `clientId`, offering `connectionTypes`: the handshake and the first connect answered.
     */
    async handshake(clientId, connectionTypes = ['long-polling']) {
        const handshake = await this.next('/meta/handshake');
        handshake.answer({
            channel: '/meta/handshake', id: handshake.message.id, successful: true, clientId, version: '1.0',
            supportedConnectionTypes: connectionTypes, advice: {reconnect: 'retry', interval: 0, timeout: 20000},
        });
        const connect = await this.next('/meta/connect');
        connect.answer(ok(connect.message));
    }

    /** Ends the session the held connect belongs to: the client is told to handshake again. */
    async forget() {
        const connect = await this.next('/meta/connect');
        connect.answer({
            channel: '/meta/connect', id: connect.message.id, successful: false, error: '402::session_unknown',
            advice: {reconnect: 'handshake', interval: 0},
        });
    }
}

/** A successful reply to `request`, with `fields` added. */
export function ok(request, fields = {}) {
    return {channel: request.channel, id: request.id, successful: true, ...fields};
}

/** A message delivered on `channel` at `offset` of `epoch`. */
export function delivered(channel, epoch, offset, data = {n: offset}) {
    return {channel, data, ext: {history: {epoch, offset}}};
}

/** Resolves once `condition()` is true; fails, saying `what`, after `timeoutMs`. */
export async function until(condition, what, timeoutMs = 5000) {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
        if (Date.now() > deadline) {
            throw new Error('timed out waiting for ' + what);
        }
        await new Promise(resolve => setTimeout(resolve, 5));
    }
}

function response(messages) {
    return {
        ok: true,
        status: 200,
        json: async () => messages,
        text: async () => JSON.stringify(messages),
    };
}
