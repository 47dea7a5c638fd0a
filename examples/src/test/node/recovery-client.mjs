// A subscriber for RecoveryEndToEndTest: weft.js, or the official CometD client with weft-recovery.js, subscribed to
// one channel of a real Weft server, saying on stdout what happens, one line each:
//   READY <clientId>            subscribed
//   HANDSHAKE <clientId>        a handshake succeeded (the first, and each after the server forgot the session)
//   GOT <n>                     a message delivered to the application, its data {n}
//   RECOVERY <channel> <true|false> <epoch> <offset>
// It runs until its stdin ends, then disconnects and prints BYE.
//   node recovery-client.mjs weft|cometd URL CHANNEL websocket|long-polling [ack]
// Env: WS_MODULE (the `ws` package, weft.js's WebSocket in Node), COMETD_MODULE and COMETD_NODE_MODULE (the official
// client and its Node adapter): file URLs of their entry modules, which the test installs.

const [kind, url, channel, transport, ackArgument] = process.argv.slice(2);
const ack = ackArgument === 'ack';

function print(...words) {
    console.log(words.join(' '));
}

function whenStdinEnds() {
    return new Promise(resolve => {
        process.stdin.on('end', resolve);
        process.stdin.on('close', resolve);
        process.stdin.resume();
    });
}

async function weft() {
    if (transport === 'websocket') {
        const {WebSocket} = await import(process.env.WS_MODULE);
        // as a browser's: an error is an event followed by close, never thrown (ws throws one nobody listens to)
        globalThis.WebSocket = class extends WebSocket {
            constructor(...args) {
                super(...args);
                this.on('error', () => { });
            }
        };
    }
    const {BayeuxClient} = await import('../../main/resources/static/weft.js');
    const client = new BayeuxClient(url, {transports: [transport], ack, backoffIncrement: 100, maxBackoff: 500,
        maxNetworkDelay: 5000});
    client.addListener('handshake', reply => print('HANDSHAKE', reply.clientId));
    client.addListener('recovery', r => print('RECOVERY', r.channel, r.recovered, r.epoch, r.offset));
    await client.handshake();
    await client.subscribe(channel, message => print('GOT', message.data.n));
    print('READY', client.clientId);
    await whenStdinEnds();
    await client.disconnect();
}

async function cometd() {
    const {adapt} = await import(process.env.COMETD_NODE_MODULE);
    adapt(); // window.XMLHttpRequest (with cookies) and window.WebSocket, before the client looks for them
    const {CometD, AckExtension} = await import(process.env.COMETD_MODULE);
    const {WeftRecoveryExtension} = await import('../../main/resources/static/weft-recovery.js');
    const client = new CometD();
    for (const type of client.getTransportTypes()) {
        if (type !== transport) {
            client.unregisterTransport(type);
        }
    }
    if (ack) {
        client.registerExtension('ack', new AckExtension());
    }
    client.registerExtension('weft-recovery', new WeftRecoveryExtension({
        onRecovery: r => print('RECOVERY', r.channel, r.recovered, r.epoch, r.offset),
    }));
    client.configure({url, logLevel: 'warn', backoffIncrement: 100, maxBackoff: 500, maxNetworkDelay: 5000});
    let ready = false;
    client.addListener('/meta/handshake', reply => {
        if (!reply.successful) {
            return;
        }
        print('HANDSHAKE', reply.clientId);
        // CometD forgets its subscriptions at every handshake: subscribe here, and each subscribe recovers
        client.subscribe(channel, message => print('GOT', message.data.n), subscribed => {
            if (subscribed.successful && !ready) {
                ready = true;
                print('READY', client.getClientId());
            }
        });
    });
    client.handshake();
    await whenStdinEnds();
    await new Promise(resolve => client.disconnect(resolve));
}

const timer = setTimeout(() => {
    print('FAIL still running after 120 s');
    process.exit(2);
}, 120000);
timer.unref();

(kind === 'cometd' ? cometd() : weft()).then(() => {
    print('BYE');
    process.exit(0);
}, failure => {
    print('FAIL', failure && failure.stack ? failure.stack : String(failure));
    process.exit(1);
});
