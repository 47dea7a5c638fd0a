// The chat page: the user interface over Weft's browser client. Membership, join/leave notices and member lists
// are the server's (ChatRooms.java); this page subscribes, calls the services and shows what arrives.
import {BayeuxClient, TRANSPORTS} from './weft.js';

const params = new URLSearchParams(location.search);
const $ = id => document.getElementById(id);

let client = null;
let me = null;
let room = null;
let roomSubscriptions = [];
let lastFailure = null; // why the last try to reach the server failed, while it has not been reached

function transportsFromUrl() {
    const forced = params.get('transport');
    if (TRANSPORTS.includes(forced)) {
        return [forced];
    }
    return TRANSPORTS;
}

/** Why the page cannot connect, or null: the server's refusal, or the last failure while handshaking. */
function problem() {
    const state = client ? client.state : 'disconnected';
    if (state === 'refused') {
        return 'Could not connect: ' + client.refusal.reason + (client.refusal.retrying ? ' (trying again)' : '');
    }
    if (state === 'handshaking' && lastFailure) {
        return 'Could not connect: ' + lastFailure + ' (trying again)';
    }
    return null;
}

function showStatus() {
    const status = $('status');
    const state = client ? client.state : 'disconnected';
    status.dataset.state = state;
    status.dataset.transport = client && client.clientId ? client.transport : '';
    status.dataset.ack = String(Boolean(client && client.ackEnabled));
    status.dataset.reason = state === 'refused' ? client.refusal.reason : '';
    const shown = problem();
    status.textContent = shown || (state === 'connected' ? 'connected · ' + client.transport : state);
    if (!room && shown) { // still at the login form: say it there too, where the user waits
        $('login-error').textContent = shown;
        $('login-error').hidden = false;
    }
}

function addMessage(data) {
    const item = document.createElement('li');
    if (data.type === 'chat') {
        item.className = data.user === me ? 'chat mine' : 'chat';
        const user = document.createElement('span');
        user.className = 'user';
        user.textContent = data.user;
        const text = document.createElement('span');
        text.className = 'text';
        text.textContent = data.text;
        const time = document.createElement('time');
        time.textContent = new Date(data.time).toLocaleTimeString([], {hour: '2-digit', minute: '2-digit'});
        item.append(user, text, time);
    } else if (data.type === 'join' || data.type === 'leave') {
        item.className = 'notice ' + data.type;
        item.textContent = data.type === 'join'
            ? data.user + ' joined'
            : data.user + (data.reason === 'timed out' ? ' left (connection lost)'
                : data.reason === 'node lost' ? ' left (their server was lost)'
                : data.reason === 'node stopped' ? ' left (their server stopped)' : ' left');
    } else {
        return;
    }
    const list = $('messages');
    list.append(item);
    list.scrollTop = list.scrollHeight;
}

function showMembers(names) {
    $('members').replaceChildren(...names.map(name => {
        const item = document.createElement('li');
        item.textContent = name;
        return item;
    }));
}

async function refreshRooms() {
    const reply = await client.publish('/service/chat/rooms', {});
    const active = new Map((reply.data || []).map(entry => [entry.room, entry.members]));
    for (const suggested of ['lobby', 'java', 'random']) {
        if (!active.has(suggested)) {
            active.set(suggested, 0);
        }
    }
    $('rooms').replaceChildren(...[...active.keys()].sort().map(name => {
        const item = document.createElement('li');
        item.textContent = active.get(name) ? name + ' (' + active.get(name) + ')' : name;
        item.classList.toggle('current', name === room);
        item.addEventListener('click', () => name !== room && switchRoom(name));
        return item;
    }));
}

/** Subscribes to the room's channels, then asks the server to let us in; the server tells everybody. */
async function enter(name) {
    // tag::enter[]
    roomSubscriptions = [
        await client.subscribe('/chat/' + name, message => addMessage(message.data)),
        await client.subscribe('/members/' + name, message => showMembers(message.data.members)),
    ];
    const reply = await client.publish('/service/chat/join', {room: name, name: me}); // a service's answer
    if (reply.data.error) {
        throw new Error(reply.data.error);
    }
    // end::enter[]
    room = name;
    $('current-room').textContent = name;
    showMembers(reply.data.members);
    refreshRooms().catch(() => { });
}

async function leave() {
    if (!room) {
        return;
    }
    const left = room;
    room = null;
    await Promise.all(roomSubscriptions.map(s => client.unsubscribe(s)));
    roomSubscriptions = [];
    await client.publish('/service/chat/leave', {room: left});
}

async function switchRoom(name) {
    await leave();
    $('messages').replaceChildren();
    await enter(name);
}

async function login(event) {
    event.preventDefault();
    const error = $('login-error');
    error.hidden = true;
    me = $('name').value.trim();
    try {
        if (!client) {
            // tag::create[]
            client = new BayeuxClient(new URL('cometd', document.baseURI).href, {
                transports: transportsFromUrl(), // websocket, eventsource, long-polling, or the one forced in the URL
                ack: params.get('ack') === 'true' || params.get('ack') === '1',
                positions: 'session', // a reloaded tab gets back the lines its rooms had meanwhile (history)
            });
            // end::create[]
            client.addListener('state', state => {
                if (state === 'connecting' || state === 'connected') {
                    lastFailure = null;
                }
                showStatus();
            });
            client.addListener('refused', showStatus);
            client.addListener('failure', failure => {
                lastFailure = failure && failure.message ? failure.message : String(failure);
                showStatus();
            });
            client.addListener('handshake', (reply, {rehandshake}) => {
                lastFailure = null;
                $('login-error').hidden = true;
                showStatus();
                if (rehandshake && room) {
                    // the server forgot us (it restarted, or we were away too long); the client subscribes
                    // again by itself, and the room must hear that we are back
                    client.publish('/service/chat/join', {room, name: me})
                        .then(again => showMembers(again.data.members || []))
                        .catch(x => console.error('could not join again', x));
                }
            });
        }
        await client.handshake(); // at once if handshaken; again after a refusal the server said not to retry
        await enter($('room').value.trim());
        $('login-view').hidden = true;
        $('chat-view').hidden = false;
        $('text').focus();
    } catch (x) {
        error.textContent = client && client.state === 'refused' ? problem() : 'Could not join: ' + x.message;
        error.hidden = false;
    }
}

async function send(event) {
    event.preventDefault();
    const input = $('text');
    const text = input.value;
    if (!text.trim() || !room) {
        return;
    }
    input.value = '';
    try {
        await client.publish('/chat/' + room, {text});
    } catch (x) {
        input.value = text;
        console.error('not sent', x);
    }
}

$('login').addEventListener('submit', login);
$('composer').addEventListener('submit', send);
$('switch').addEventListener('submit', event => {
    event.preventDefault();
    const name = $('switch-room').value.trim();
    $('switch-room').value = '';
    if (name && name !== room) {
        switchRoom(name).catch(x => console.error('could not switch', x));
    }
});
if (params.get('name')) {
    $('name').value = params.get('name');
}
if (params.get('room')) {
    $('room').value = params.get('room');
}
// A closed tab leaves at once rather than when its session times out.
addEventListener('pagehide', () => client && client.disconnect());
