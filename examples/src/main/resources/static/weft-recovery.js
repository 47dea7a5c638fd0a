// Recovery for the official CometD JavaScript client (npm `cometd`) on a Weft server whose channels keep history
// (docs/protocol.md, "History and recovery"): an extension that keeps a position in each such channel, asks for what
// was missed with every subscribe, and drops a message the application already had.
//
//   import {CometD} from 'cometd';
//   import {WeftRecoveryExtension} from './weft-recovery.js';
//   const cometd = new CometD();
//   cometd.registerExtension('weft-recovery', new WeftRecoveryExtension({
//       onRecovery: ({channel, recovered}) => recovered || reloadStateOf(channel),
//   }));
//   cometd.configure({url: '/cometd'});
//   cometd.addListener('/meta/handshake', reply => {   // CometD forgets its subscriptions at every handshake:
//       if (reply.successful) {                         // subscribe in a handshake listener, and each subscribe
//           cometd.subscribe('/chat/lobby', onChat);    // after a new handshake recovers what the old session missed
//       }
//   });
//   cometd.handshake();
//
// It imports the position keeping from weft.js, which is served beside it. See docs/browser-client.md.
//
// Threads: none. It runs inside the CometD client's calls, on the page's event loop.

import {Positions, channelMatches, storageOf} from './weft.js';

/**
 * A CometD extension (`registerExtension(name, extension)`): `outgoing` adds `ext.recover` to each `/meta/subscribe`
 * with the positions kept for its channel (for a wildcard, for the channels under it); `incoming` keeps the positions
 * delivered messages and subscribe replies carry, drops a message whose position is not past the one kept (so the
 * application never sees one twice, with CometD's ack extension too), and tells `onRecovery` the outcome of each
 * recovery.
 *
 * Options:
 * - `onRecovery({channel, subscription, recovered, epoch, offset})`: called for each channel a subscribe asked to
 *   recover, before the subscribe's own callback; `recovered` false means what was missed is lost (the application
 *   reloads its state); `epoch` and `offset` are the channel's position now. The subscribe reply itself carries the
 *   same in `ext.recover[channel]`;
 * - `positions`: `'memory'` (default), `'session'` (`sessionStorage`: a reloaded page recovers too) or any object with
 *   `getItem` and `setItem`; `positionsKey`: the storage key, default `'weft.positions ' + the CometD URL`.
 *
 * A successful `/meta/unsubscribe` forgets the positions of the channels that no subscription left covers: subscribing
 * again later starts afresh.
 */
export class WeftRecoveryExtension {
    #options;
    #positions = null;
    #cometd = null;
    #subscribed = new Set(); // what this session subscribed to, as the server confirmed
    #onPageHide = () => this.#positions && this.#positions.save();

    constructor(options = {}) {
        this.#options = {positions: 'memory', positionsKey: undefined, onRecovery: undefined, ...options};
        storageOf(this.#options.positions); // a wrong option fails here, not at the first message
        if (this.#options.onRecovery !== undefined && typeof this.#options.onRecovery !== 'function') {
            throw new TypeError('onRecovery must be a function');
        }
    }

    /** CometD calls this when the extension is registered. */
    registered(name, cometd) {
        this.#cometd = cometd;
    }

    /** CometD calls this when the extension is unregistered: the positions are saved. */
    unregistered() {
        if (this.#positions) {
            this.#positions.save();
        }
        if (globalThis.removeEventListener) {
            globalThis.removeEventListener('pagehide', this.#onPageHide);
        }
        this.#cometd = null;
    }

    /** The position kept for `channel`: `{epoch, offset}`, or null. */
    position(channel) {
        return this.#kept().get(channel);
    }

    outgoing(message) {
        if (message.channel === '/meta/handshake') {
            this.#subscribed.clear(); // a new session: the application subscribes again, and the replies say to what
        } else if (message.channel === '/meta/subscribe') {
            const recover = {};
            let any = false;
            for (const subscription of subscriptionsOf(message)) {
                const positions = this.#kept().recoverFor(subscription);
                if (positions) {
                    Object.assign(recover, positions);
                    any = true;
                }
            }
            if (any) {
                message.ext = {...message.ext, recover};
            }
        }
        return message;
    }

    incoming(message) {
        const channel = message.channel;
        if (typeof channel !== 'string') {
            return message;
        }
        if (channel === '/meta/subscribe') {
            if (message.successful) {
                subscriptionsOf(message).forEach(subscription => this.#subscribed.add(subscription));
            }
            for (const outcome of this.#kept().replied(message)) {
                this.#recovery(outcome);
            }
        } else if (channel === '/meta/unsubscribe') {
            if (message.successful) {
                subscriptionsOf(message).forEach(subscription => this.#subscribed.delete(subscription));
                const left = [...this.#subscribed];
                this.#kept().retain(kept => left.some(pattern => channelMatches(pattern, kept)));
            }
        } else if (!channel.startsWith('/meta/') && message.successful === undefined && message.data !== undefined) {
            if (!this.#kept().accept(message)) {
                return null; // already delivered: CometD drops a message an extension returns null for
            }
        }
        return message;
    }

    /** The positions, created at first use: the CometD URL (the default key) is known only once configured. */
    #kept() {
        if (!this.#positions) {
            const url = this.#cometd && this.#cometd.getURL ? this.#cometd.getURL() : '';
            this.#positions = new Positions(storageOf(this.#options.positions),
                this.#options.positionsKey || 'weft.positions ' + url);
            if (this.#options.positions !== 'memory' && globalThis.addEventListener) {
                globalThis.addEventListener('pagehide', this.#onPageHide);
            }
        }
        return this.#positions;
    }

    #recovery(outcome) {
        if (this.#options.onRecovery) {
            try {
                this.#options.onRecovery(outcome);
            } catch (x) {
                console.error('onRecovery failed', x);
            }
        }
    }
}

/** The channels a subscribe or unsubscribe (or its reply) names: one, or a list. */
function subscriptionsOf(message) {
    return [].concat(message.subscription).filter(subscription => typeof subscription === 'string');
}
