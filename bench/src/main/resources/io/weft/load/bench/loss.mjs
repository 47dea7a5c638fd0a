// The subscribers and the publisher of a loss run (LossRun, bench/recovery.sh): official CometD JavaScript clients
// (npm cometd 9.0.0 in Node, through cometd-nodejs-client 2.0.0, which brings ws) and Weft's own weft.js, run from a
// folder whose node_modules holds those. Two processes, one per role, so that the subscribers' work never delays the
// publisher (an official client):
//
//   node loss.mjs role=subscribers front=URL transport=websocket|long-polling subscribers=N channels=20 prefix=/loss
//                 [clients=cometd|weft|mixed] [weft=PATH] [recovery=PATH] [max-seconds=900]
//   node loss.mjs role=publisher publish=URL channels=20 rate=200 prefix=/loss [max-seconds=900]
//
// Subscriber i subscribes to PREFIX/(i % channels) through `front` (the balancer), again after every handshake, and
// prints READY once all have; WARMED once each received one of the warm messages the publisher (on `publish`: a node no
// fault touches) sends on every channel from its READY until GO on its stdin. Then the publisher publishes to channel
// k % channels the k-th message, numbered per channel ({seq, t}), `rate` a second (printing PUBLISHING <epoch ms>),
// until STOP, and prints PUBLISHED {json}: how many, the last number per channel and those its node did not
// acknowledge. The subscribers take on stdin PUBLISHING <epoch ms>, FAULT <epoch ms> <label> (when a fault was made,
// for the time each subscriber took to be back) and END <the PUBLISHED json>, then print REPORT {json}: what each
// subscriber lost, got twice or got out of order, in all and for each kind of client (`byClient`). Each process exits
// after its last line; PROGRESS lines on the way.
//
// `clients`: which client each subscriber is. `cometd`: all the official client; `weft`: all weft.js (`weft=PATH`,
// its file); `mixed` (default): the k-th subscriber of each channel (subscriber i is the (i / channels)-th of channel
// i % channels) is weft.js when channel + k is odd, so that either kind has half the subscribers and, from 2 * channels
// subscribers on, every channel has both. Both kinds use the run's transport only.
//
// `recovery=PATH`: weft-recovery.js, registered on every official client as 'weft-recovery', and weft.js's own
// recovery (`recover: true`, positions in memory); without it weft.js runs with `recover: false`, as the official
// client runs without the extension. Each subscribe either could not recover (`recovered: false`) is counted.
import {adapt} from 'cometd-nodejs-client';
import {CometD} from 'cometd';
import {WebSocket} from 'ws';
import {pathToFileURL} from 'node:url';
import readline from 'node:readline';

const args = Object.fromEntries(process.argv.slice(2).map(arg => [arg.substring(0, arg.indexOf('=')),
    arg.substring(arg.indexOf('=') + 1)]));
const front = args.front;
const publishUrl = args.publish;
const transport = args.transport || 'websocket';
const count = Number(args.subscribers || 100);
const channels = Number(args.channels || 20);
const rate = Number(args.rate || 200);
const prefix = args.prefix || '/loss';
const maxSeconds = Number(args['max-seconds'] || 900);
const clients = args.clients || 'mixed';
const KINDS = ['cometd', 'weft'];
if (!['cometd', 'weft', 'mixed'].includes(clients)) {
    fail('clients is cometd, weft or mixed, not ' + clients);
}

const started = Date.now();
setTimeout(() => fail('still running after ' + maxSeconds + ' s'), maxSeconds * 1000).unref();

function fail(why) {
    console.log('FAIL ' + why);
    process.exit(1);
}

function say(line) {
    console.log(line);
}

/** Which client subscriber `index` is (see `clients` above). */
function kindOf(index) {
    if (clients !== 'mixed') {
        return clients;
    }
    return (index % channels + Math.floor(index / channels)) % 2 === 1 ? 'weft' : 'cometd';
}

// Every long-polling subscriber is a browser of its own: its own cookies (the BAYEUX_BROWSER cookie, HAProxy's
// WEFT_NODE), as a tab of its own browser would have. A jar maps a cookie's name to its `name=value`.
function keep(jar, setCookie) {
    const pair = setCookie.split(';')[0].trim();
    const equal = pair.indexOf('=');
    if (equal > 0) {
        jar.set(pair.substring(0, equal), pair);
    }
}

// cometd-nodejs-client keeps one jar for the whole process unless told otherwise; its hooks get the transport's
// context on the way out and only the request's URL on the way back, so the URL leads back to the context.
const contextOf = new WeakMap();
adapt({
    cookies: {
        retrieveCookies(context, uri, callback) {
            const jar = context && context.cookieStore;
            if (jar) {
                contextOf.set(uri, context);
            }
            callback(null, jar ? [...jar.values()] : []);
        },
        storeCookie(uri, header, callback) {
            const context = contextOf.get(uri);
            if (context) {
                keep(context.cookieStore, header);
            }
            callback();
        },
    },
});

// weft.js's: Node's fetch keeps no cookies, so each subscriber's goes through a jar of its own (weft.js's `fetch`).
function fetchWithCookies() {
    const jar = new Map();
    return async (url, init) => {
        const headers = {...init.headers};
        if (jar.size > 0) {
            headers.Cookie = [...jar.values()].join('; ');
        }
        const response = await fetch(url, {...init, headers});
        response.headers.getSetCookie().forEach(header => keep(jar, header));
        return response;
    };
}

function only(cometd, type) {
    for (const other of cometd.getTransportTypes()) {
        if (other !== type) {
            cometd.unregisterTransport(other);
        }
    }
    if (cometd.getTransportTypes().join() !== type) {
        fail('the client has no ' + type + ' transport');
    }
    const chosen = cometd.findTransport(type);
    chosen.context = {cookieStore: new Map()};
}

function client(url, type, more = {}) {
    const cometd = new CometD();
    cometd.configure({url, logLevel: process.env.COMETD_LOG || 'warn', ...more});
    only(cometd, type);
    return cometd;
}

// The recovery extension for the official client: weft-recovery.js exports WeftRecoveryExtension (an ES module that
// imports weft.js beside it; LossRun copies both into a folder of ES modules).
async function recoveryExtension(path) {
    const module = await import(pathToFileURL(path).href);
    const Extension = module.WeftRecoveryExtension;
    if (typeof Extension !== 'function') {
        fail('no WeftRecoveryExtension in ' + path + ': it exports ' + Object.keys(module));
    }
    return onRecovery => new Extension({onRecovery});
}

// weft.js: its BayeuxClient (an ES module, copied by LossRun into the same folder as weft-recovery.js).
async function weftClient(path) {
    const module = await import(pathToFileURL(path).href);
    if (typeof module.BayeuxClient !== 'function') {
        fail('no BayeuxClient in ' + path + ': it exports ' + Object.keys(module));
    }
    return module.BayeuxClient;
}

/** One subscriber: its client (`kind`), and what it counted. */
class Subscriber {
    constructor(index) {
        this.index = index;
        this.kind = kindOf(index);
        this.channel = index % channels;
        this.seen = new Uint8Array(1024);
        this.received = 0;
        this.duplicated = 0;
        this.outOfOrder = 0;
        this.highest = 0;
        this.handshakes = [];
        this.backAt = [];
        this.subscribedOnce = false;
        this.warm = false;
        this.notRecovered = 0;
        this.lastArrival = 0;
        this.longestSilence = 0;
    }

    /** Starts its client; resolves once it first subscribed. */
    start(made) {
        return this.kind === 'weft' ? this.startWeft(made.BayeuxClient) : this.startCometD(made.newExtension);
    }

    handshook() {
        this.handshakes.push(Date.now());
        this.backAt.push(0);
    }

    recovered(outcome) {
        if (!outcome.recovered) {
            this.notRecovered++;
        }
    }

    /** The official client subscribes in its handshake listener, so again after every handshake. */
    startCometD(newExtension) {
        this.cometd = client(front, transport);
        if (newExtension) {
            this.cometd.registerExtension('weft-recovery', newExtension(outcome => this.recovered(outcome)));
        }
        this.cometd.addListener('/meta/handshake', reply => {
            if (reply.successful) {
                this.handshook();
                this.subscribe();
            }
        });
        return new Promise(resolve => {
            this.onFirstSubscribe = resolve;
            this.cometd.handshake();
        });
    }

    /** weft.js subscribes once and makes its subscriptions again by itself after each handshake. */
    async startWeft(BayeuxClient) {
        const options = {transports: [transport], recover: Boolean(args.recovery)};
        if (transport === 'websocket') {
            options.WebSocket = WebSocket;
        } else {
            options.fetch = fetchWithCookies();
        }
        this.weft = new BayeuxClient(front, options);
        // the 'handshake' event comes before any reply to the subscriptions the new session makes again
        this.weft.addListener('handshake', () => this.handshook());
        this.weft.addListener('recovery', outcome => this.recovered(outcome));
        await this.weft.handshake();
        await this.weft.subscribe(prefix + '/' + this.channel, message => this.deliver(message.data));
        this.subscribedOnce = true;
    }

    /** Ends its session; resolves when done. */
    disconnect() {
        if (this.weft) {
            return this.weft.disconnect();
        }
        return new Promise(done => this.cometd.disconnect(done));
    }

    subscribe() {
        const channel = prefix + '/' + this.channel;
        this.cometd.subscribe(channel, message => this.deliver(message.data), reply => {
            if (reply.successful) {
                if (!this.subscribedOnce) {
                    this.subscribedOnce = true;
                    this.onFirstSubscribe();
                }
            }
        });
    }

    deliver(data) {
        if (data.warm) {
            this.warm = true;
            return;
        }
        const now = Date.now();
        if (publishing.since) {
            this.longestSilence = Math.max(this.longestSilence, now - Math.max(this.lastArrival, publishing.since));
        }
        this.lastArrival = now;
        const last = this.backAt.length - 1;
        if (last >= 0 && this.backAt[last] === 0) {
            this.backAt[last] = now;
        }
        const seq = data.seq;
        while (seq >= this.seen.length) {
            const bigger = new Uint8Array(this.seen.length * 2);
            bigger.set(this.seen);
            this.seen = bigger;
        }
        if (this.seen[seq]) {
            this.duplicated++;
            return;
        }
        this.seen[seq] = 1;
        this.received++;
        if (seq < this.highest) {
            this.outOfOrder++;
        }
        this.highest = Math.max(this.highest, seq);
    }
}

// The publisher's side: per channel, the last number given and the numbers not acknowledged.
const publishing = {since: 0, sent: 0, pending: 0, failed: 0, acknowledged: 0};
const numbers = new Array(channels).fill(0);
const unacknowledged = Array.from({length: channels}, () => []);

function publishOne(publisher) {
    const channel = publishing.sent++ % channels;
    const seq = ++numbers[channel];
    publishing.pending++;
    publisher.publish(prefix + '/' + channel, {seq, t: Date.now()}, reply => {
        publishing.pending--;
        if (reply.successful) {
            publishing.acknowledged++;
        } else {
            publishing.failed++;
            unacknowledged[channel].push(seq);
        }
    });
}

function sleep(millis) {
    return new Promise(resolve => setTimeout(resolve, millis));
}

async function until(condition, millis, what) {
    const deadline = Date.now() + millis;
    while (!condition()) {
        if (Date.now() > deadline) {
            fail((typeof what === 'function' ? what() : what) + ' within ' + millis + ' ms');
        }
        await sleep(20);
    }
}

// Lines on stdin: the subscribers' FAULT, PUBLISHING and END, the publisher's GO and STOP.
const faults = [];
const commands = {go: false, stop: false, published: null};
readline.createInterface({input: process.stdin}).on('line', line => {
    const words = line.trim().split(/\s+/);
    if (words[0] === 'FAULT') {
        faults.push({at: Number(words[1]), label: words.slice(2).join(' ')});
    } else if (words[0] === 'PUBLISHING') {
        publishing.since = Number(words[1]);
    } else if (words[0] === 'END') {
        commands.published = JSON.parse(line.trim().substring(4));
    } else if (words[0] === 'GO') {
        commands.go = true;
    } else if (words[0] === 'STOP') {
        commands.stop = true;
    }
});

function percentile(values, p) {
    if (values.length === 0) {
        return null;
    }
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

// For each fault: the subscribers that handshook again after it (before the next one), and how long after the fault
// the last of their new sessions delivered its first message.
function faultReport(subscribers) {
    return faults.map((fault, i) => {
        const end = i + 1 < faults.length ? faults[i + 1].at : Infinity;
        const backs = [];
        let interrupted = 0;
        let neverBack = 0;
        for (const s of subscribers) {
            let last = -1;
            s.handshakes.forEach((at, h) => {
                if (at >= fault.at && at < end) {
                    last = h;
                }
            });
            if (last < 0) {
                continue;
            }
            interrupted++;
            if (s.backAt[last] > 0) {
                backs.push((s.backAt[last] - fault.at) / 1000);
            } else {
                neverBack++;
            }
        }
        return {label: fault.label, at: fault.at, interrupted, neverBack,
            backMaxS: backs.length ? Math.max(...backs) : null, backP50S: percentile(backs, 0.5)};
    });
}

// What subscribers of each channel are owed: every number the publisher gave but those its node did not acknowledge.
function owedOf(published) {
    return published.last.map((last, channel) => {
        const owed = new Uint8Array(last + 1).fill(1);
        owed[0] = 0;
        for (const seq of published.unacknowledged[channel]) {
            owed[seq] = 0;
        }
        return owed;
    });
}

/** The report: what all the subscribers counted, and `byClient` the same for each kind of client that ran. */
function report(subscribers, published) {
    const owedByChannel = owedOf(published);
    const byClient = {};
    for (const kind of KINDS) {
        const ofKind = subscribers.filter(s => s.kind === kind);
        if (ofKind.length > 0) {
            byClient[kind] = counts(ofKind, published, owedByChannel);
        }
    }
    return {clients, ...counts(subscribers, published, owedByChannel), byClient};
}

/** What `subscribers` counted, against what each channel is owed. */
function counts(subscribers, published, owedByChannel) {
    let expected = 0;
    let received = 0;
    let lost = 0;
    let duplicated = 0;
    let outOfOrder = 0;
    let subscribersLost = 0;
    let lostEachMin = null;
    let lostEachMax = 0;
    let rehandshakes = 0;
    let interruptedTwice = 0;
    let notRecovered = 0;
    let longestSilence = 0;
    let lostUninterrupted = 0;
    for (const s of subscribers) {
        const owed = owedByChannel[s.channel];
        let missing = 0;
        for (let seq = 1; seq < owed.length; seq++) {
            if (owed[seq]) {
                expected++;
                if (seq >= s.seen.length || !s.seen[seq]) {
                    missing++;
                }
            }
        }
        received += s.received;
        lost += missing;
        duplicated += s.duplicated;
        outOfOrder += s.outOfOrder;
        if (s.handshakes.length === 1) {
            lostUninterrupted += missing;
        }
        if (missing > 0) {
            subscribersLost++;
            lostEachMin = lostEachMin === null ? missing : Math.min(lostEachMin, missing);
            lostEachMax = Math.max(lostEachMax, missing);
        }
        const again = s.handshakes.length - 1;
        rehandshakes += again;
        interruptedTwice += again >= 2 ? 1 : 0;
        notRecovered += s.notRecovered;
        longestSilence = Math.max(longestSilence, s.longestSilence);
    }
    const byFault = faultReport(subscribers);
    const backs = byFault.map(f => f.backMaxS).filter(b => b !== null);
    return {
        transport, subscribers: subscribers.length, channels, rate,
        published: published.sent, acknowledged: published.acknowledged, publishFailed: published.failed,
        publishedSeconds: published.seconds, expected, received, lost, lostUninterrupted, duplicated, outOfOrder,
        subscribersLost,
        lostEachMin: lostEachMin === null ? 0 : lostEachMin, lostEachMax, rehandshakes,
        interrupted: subscribers.filter(s => s.handshakes.length > 1).length, interruptedTwice,
        notRecovered, longestSilenceS: longestSilence / 1000, backS: backs.length ? Math.max(...backs) : null,
        faults: byFault,
    };
}

async function subscribe() {
    const subscribers = Array.from({length: count}, (_, i) => new Subscriber(i));
    const uses = kind => subscribers.some(s => s.kind === kind);
    if (uses('weft') && !args.weft) {
        fail('weft.js subscribers need weft=PATH');
    }
    const made = {
        newExtension: args.recovery && uses('cometd') ? await recoveryExtension(args.recovery) : null,
        BayeuxClient: uses('weft') ? await weftClient(args.weft) : null,
    };
    // In steps of 25: a handshake storm is not what is measured.
    const subscribing = setTimeout(() => fail('only ' + subscribers.filter(s => s.subscribedOnce).length + ' of '
        + count + ' subscribed within 90 s'), 90000);
    for (let i = 0; i < count; i += 25) {
        await Promise.all(subscribers.slice(i, i + 25).map(s => s.start(made)));
    }
    clearTimeout(subscribing);
    say('READY ' + count + ' subscribed in ' + (Date.now() - started) + ' ms ('
        + KINDS.map(kind => kind + ' ' + subscribers.filter(s => s.kind === kind).length).join(', ') + ')');
    // Every node subscribes to a channel at Redis when its first subscriber does: the publisher sends warm messages
    // until each subscriber has one, so that the numbered ones start on a cluster that carries them everywhere.
    await until(() => subscribers.every(s => s.warm), 60000, () => subscribers.filter(s => s.warm).length + ' of '
        + count + ' subscribers received a warm message');
    say('WARMED');
    const progress = setInterval(() => {
        const back = subscribers.filter(s => s.handshakes.length > 1).length;
        const received = subscribers.reduce((sum, s) => sum + s.received, 0);
        say('PROGRESS received=' + received + ' handshook_again=' + back);
    }, 2000);
    await until(() => commands.published !== null, maxSeconds * 1000, 'END on stdin');
    const published = commands.published;

    // Everything that will come has come once each subscriber has its channel's last number, or nothing arrived for
    // 3 s (what is missing by then is lost), at most 20 s.
    const deadline = Date.now() + 20000;
    const complete = s => s.seen[published.last[s.channel]] === 1;
    while (Date.now() < deadline && !subscribers.every(complete)) {
        const newest = Math.max(...subscribers.map(s => s.lastArrival));
        if (Date.now() - newest > 3000) {
            break;
        }
        await sleep(50);
    }
    await sleep(500); // late duplicates
    clearInterval(progress);
    say('REPORT ' + JSON.stringify(report(subscribers, published)));
    await Promise.race([
        Promise.all(subscribers.map(s => s.disconnect().catch(() => { }))),
        sleep(3000),
    ]);
    process.exit(0);
}

// A process of its own, so that the subscribers' work never delays the publisher's schedule or its replies.
async function publish() {
    // An answer late on a busy machine is not a failed publish: CometD would close the socket after maxNetworkDelay.
    const publisher = client(publishUrl, 'websocket', {maxNetworkDelay: 60000});
    const handshook = await new Promise(resolve => publisher.handshake(resolve));
    if (!handshook.successful) {
        fail('the publisher could not handshake: ' + JSON.stringify(handshook.error || handshook.failure));
    }
    say('READY');
    const warming = setInterval(() => {
        for (let c = 0; c < channels; c++) {
            publisher.publish(prefix + '/' + c, {warm: true});
        }
    }, 250);
    await until(() => commands.go, 120000, 'GO on stdin');
    clearInterval(warming);
    await sleep(300); // warm messages still on their way

    publishing.since = Date.now();
    say('PUBLISHING ' + publishing.since);
    const origin = performance.now();
    const ticking = setInterval(() => {
        const due = Math.floor((performance.now() - origin) * rate / 1000);
        while (publishing.sent < due) {
            publishOne(publisher);
        }
    }, 5);
    const progress = setInterval(() => say('PROGRESS published=' + publishing.sent + ' acknowledged='
        + publishing.acknowledged + ' failed=' + publishing.failed), 2000);
    await until(() => commands.stop, maxSeconds * 1000, 'STOP on stdin');
    clearInterval(ticking);
    const seconds = (performance.now() - origin) / 1000;
    await until(() => publishing.pending === 0, 70000, 'every publish answered');
    clearInterval(progress);
    say('PUBLISHED ' + JSON.stringify({sent: publishing.sent, acknowledged: publishing.acknowledged,
        failed: publishing.failed, seconds, last: numbers, unacknowledged}));
    await Promise.race([new Promise(done => publisher.disconnect(done)), sleep(3000)]);
    process.exit(0);
}

(args.role === 'publisher' ? publish() : subscribe()).catch(failure => fail(failure && failure.stack ? failure.stack : String(failure)));
