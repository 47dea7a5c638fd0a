// The official CometD JavaScript client in the chat: the same services and channels as chat.js, through the
// official API (subscribe, remoteCall, publish). Test-only.
import {CometD} from 'cometd';

const params = new URLSearchParams(location.search);
const room = params.get('room');
const name = params.get('name');
const status = document.getElementById('status');

function show(state) {
    status.dataset.state = state;
    status.textContent = state;
}

function append(data) {
    const item = document.createElement('li');
    item.className = data.type;
    item.dataset.user = data.user;
    item.textContent = data.type === 'chat' ? data.user + ': ' + data.text : data.user + ' ' + data.type;
    document.getElementById('messages').append(item);
}

const cometd = new CometD();
cometd.configure({url: new URL('/cometd', location.href).href, logLevel: 'warn'});
if (params.get('transport') === 'long-polling') {
    cometd.unregisterTransport('websocket');
}

cometd.handshake(handshake => {
    if (!handshake.successful) {
        show('handshake failed: ' + handshake.error);
        return;
    }
    cometd.subscribe('/chat/' + room, message => append(message.data), {}, () => {
        cometd.subscribe('/members/' + room, message => {
            document.getElementById('members').replaceChildren(...message.data.members.map(member => {
                const item = document.createElement('li');
                item.textContent = member;
                return item;
            }));
        }, {}, () => {
            cometd.remoteCall('chat/join', {room, name}, 5000, reply => {
                status.dataset.transport = cometd.getTransport().type;
                show(reply.successful && !reply.data.error ? 'joined' : 'join failed: ' + JSON.stringify(reply));
            });
        });
    });
});

// The test calls this to speak.
window.officialSay = text => cometd.publish('/chat/' + room, {text});
