// The subscribers and the publisher of a loss run (LossRun, bench/recovery.sh): official CometD JavaScript clients
// (npm cometd 9.0.0 in Node, through cometd-nodejs-client 2.0.0), run from a folder whose node_modules holds both.
//
//   node loss.mjs front=URL publish=URL transport=websocket|long-polling subscribers=N channels=20 rate=200
//                 prefix=/loss [recovery=PATH] [max-seconds=600]
//
// Subscriber i subscribes to PREFIX/(i % channels) through `front` (the balancer), again after every handshake. Once
// every subscriber has one, the publisher (its own client, on `publish`: a node no fault touches) publishes to channel
// k % channels the k-th message, numbered per channel ({seq, t}), `rate` a second, until a line STOP on stdin. A line
// `FAULT <epoch ms> <label>` on stdin says when a fault was made, for the time each subscriber took to be back. The
// end: a line REPORT {json} (what each subscriber lost, got twice, got out of order, against what was published and
// acknowledged), then the process exits. Printed on the way: READY, PUBLISHING <epoch ms>, PROGRESS.
//
// `recovery=PATH`: weft-recovery.js, registered on every subscriber (never on the publisher) as 'weft-recovery'; each
// subscribe it could not recover (`recovered: false`) is counted.
import {adapt} from 'cometd-nodejs-client';
import {CometD} from 'cometd';
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
const maxSeconds = Number(args['max-seconds'] || 600);

const started = Date.now();
setTimeout(() => fail('still running after ' + maxSeconds + ' s'), maxSeconds * 1000).unref();

function fail(why) {
    console.log('FAIL ' + why);
    process.exit(1);
}

function say(line) {
    console.log(line);
}

// Every long-polling subscriber is a browser of its own: its own cookies (the BAYEUX_BROWSER cookie with the
// balancer's node prefix), as a tab of its own browser would have. cometd-nodejs-client keeps one jar for the whole
// process unless told otherwise; its hooks get the transport's context on the way out and only the request's URL
// on the way back, so the URL leads back to the context.
const contextOf = new WeakMap();
adapt({
    cookies: {
        retrieveCookies(context, uri, callback) {
            const jar = context && context.cookieStore;
            if (jar) {
                contextOf.set(uri, context);
            }
            callback(null, jar ? Object.values(jar) : []);
        },
        storeCookie(uri, header, callback) {
            const context = contextOf.get(uri);
            const pair = header.split(';')[0].trim();
            const equal = pair.indexOf('=');
            if (context && equal > 0) {
                context.cookieStore[pair.substring(0, equal)] = pair;
            }
            callback();
        },
    },
});

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
    chosen.context = {cookieStore: {}};
}

function client(url, type) {
    const cometd = new CometD();
    cometd.configure({url, logLevel: process.env.COMETD_LOG || 'warn'});
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

class Subscriber {
    constructor(index) {
        this.index = index;
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

    start(newExtension) {
        this.cometd = client(front, transport);
        if (newExtension) {
            this.cometd.registerExtension('weft-recovery', newExtension(outcome => {
                if (!outcome.recovered) {
                    this.notRecovered++;
                }
            }));
        }
        this.cometd.addListener('/meta/handshake', reply => {
            if (reply.successful) {
                this.handshakes.push(Date.now());
                this.backAt.push(0);
                this.subscribe();
            }
        });
        return new Promise(resolve => {
            this.onFirstSubscribe = resolve;
            this.cometd.handshake();
        });
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

// The publisher's side: per channel, the last number given and which were acknowledged.
const publishing = {since: 0, sent: 0, pending: 0, failed: 0, acknowledged: 0};
const numbers = new Array(channels).fill(0);
const acknowledged = Array.from({length: channels}, () => new Uint8Array(1024));

function acknowledge(channel, seq) {
    while (seq >= acknowledged[channel].length) {
        const bigger = new Uint8Array(acknowledged[channel].length * 2);
        bigger.set(acknowledged[channel]);
        acknowledged[channel] = bigger;
    }
    acknowledged[channel][seq] = 1;
}

function publishOne(publisher) {
    const channel = publishing.sent++ % channels;
    const seq = ++numbers[channel];
    publishing.pending++;
    publisher.publish(prefix + '/' + channel, {seq, t: Date.now()}, reply => {
        publishing.pending--;
        if (reply.successful) {
            publishing.acknowledged++;
            acknowledge(channel, seq);
        } else {
            publishing.failed++;
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
            fail(what + ' within ' + millis + ' ms');
        }
        await sleep(20);
    }
}

const faults = [];
let stopRequested = false;
readline.createInterface({input: process.stdin}).on('line', line => {
    const words = line.trim().split(/\s+/);
    if (words[0] === 'FAULT') {
        faults.push({at: Number(words[1]), label: words.slice(2).join(' ')});
    } else if (words[0] === 'STOP') {
        stopRequested = true;
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

function report(subscribers, publishedSeconds) {
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
        const owed = acknowledged[s.channel];
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
        published: publishing.sent, acknowledged: publishing.acknowledged, publishFailed: publishing.failed,
        publishedSeconds, expected, received, lost, lostUninterrupted, duplicated, outOfOrder, subscribersLost,
        lostEachMin: lostEachMin === null ? 0 : lostEachMin, lostEachMax, rehandshakes,
        interrupted: subscribers.filter(s => s.handshakes.length > 1).length, interruptedTwice,
        notRecovered, longestSilenceS: longestSilence / 1000, backS: backs.length ? Math.max(...backs) : null,
        faults: byFault,
    };
}

async function main() {
    const newExtension = args.recovery ? await recoveryExtension(args.recovery) : null;
    const subscribers = Array.from({length: count}, (_, i) => new Subscriber(i));
    // In steps of 25: a handshake storm is not what is measured.
    const subscribing = setTimeout(() => fail('only ' + subscribers.filter(s => s.subscribedOnce).length + ' of '
        + count + ' subscribed within 90 s'), 90000);
    for (let i = 0; i < count; i += 25) {
        await Promise.all(subscribers.slice(i, i + 25).map(s => s.start(newExtension)));
    }
    clearTimeout(subscribing);
    say('READY ' + count + ' subscribed in ' + (Date.now() - started) + ' ms');

    const publisher = client(publishUrl, 'websocket');
    const handshook = await new Promise(resolve => publisher.handshake(resolve));
    if (!handshook.successful) {
        fail('the publisher could not handshake: ' + JSON.stringify(handshook.error || handshook.failure));
    }
    // Every node subscribes to a channel at Redis when its first subscriber does: warm messages until each subscriber
    // has one, so that the numbered ones start on a cluster that carries them everywhere.
    const warming = setInterval(() => {
        for (let c = 0; c < channels; c++) {
            publisher.publish(prefix + '/' + c, {warm: true});
        }
    }, 250);
    await until(() => subscribers.every(s => s.warm), 30000, 'every subscriber received a warm message');
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
    const progress = setInterval(() => {
        const back = subscribers.filter(s => s.handshakes.length > 1).length;
        say('PROGRESS published=' + publishing.sent + ' acknowledged=' + publishing.acknowledged + ' handshook_again='
            + back);
    }, 2000);
    await until(() => stopRequested, maxSeconds * 1000, 'STOP on stdin');
    clearInterval(ticking);
    const publishedSeconds = (performance.now() - origin) / 1000;
    await until(() => publishing.pending === 0, 10000, 'every publish answered');

    // Everything that will come has come once each subscriber has its channel's last number, or nothing arrived for
    // 3 s (what is missing by then is lost), at most 20 s.
    const deadline = Date.now() + 20000;
    const complete = s => s.seen[numbers[s.channel]] === 1;
    while (Date.now() < deadline && !subscribers.every(complete)) {
        const newest = Math.max(...subscribers.map(s => s.lastArrival));
        if (Date.now() - newest > 3000) {
            break;
        }
        await sleep(50);
    }
    await sleep(500); // late duplicates
    clearInterval(progress);
    say('REPORT ' + JSON.stringify(report(subscribers, publishedSeconds)));
    await Promise.race([
        Promise.all([publisher, ...subscribers.map(s => s.cometd)].map(c => new Promise(done => c.disconnect(done)))),
        sleep(3000),
    ]);
    process.exit(0);
}

main().catch(failure => fail(failure && failure.stack ? failure.stack : String(failure)));
