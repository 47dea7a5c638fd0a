package io.weft.load.floor;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The floor server's Bayeux: canned replies, one list of members per channel, and each publish written to them as the
 * same bytes. Handshake, connect, subscribe, unsubscribe, disconnect and publishing to plain channels; no wildcards,
 * extensions, authorization, queues bounds or expiry (see {@link FloorServer}).
 */
final class FloorBayeux {
    /** How long a {@code /meta/connect} is held when nothing comes for its session. */
    static final long HOLD_NANOS = TimeUnit.SECONDS.toNanos(30);

    private static final JsonFactory JSON = new JsonFactory();
    private static final byte[] OPEN = {'['};

    private final Map<String, Client> clients = new ConcurrentHashMap<>();
    private final Map<String, List<Client>> channels = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();

    int sessions() {
        return clients.size();
    }

    /** A session: over websocket, bound to its connection; over long-polling, its held connect and waiting messages. */
    final class Client {
        final String id;
        final List<String> subscriptions = new CopyOnWriteArrayList<>();
        /** Over websocket: the connection; null over long-polling. */
        volatile FloorConn socket;
        // Guarded by this: the held connect, and (long-polling) what waits for the next one.
        private String heldConnectId;
        private long heldSince;
        private FloorConn heldExchange;
        private List<byte[]> heldReplies;
        private final List<byte[]> waiting = new ArrayList<>();

        Client(String id) {
            this.id = id;
        }

        void deliver(byte[] message, ByteBuffer frame) {
            FloorConn socket = this.socket;
            if (socket != null) {
                socket.write(frame.duplicate());
                return;
            }
            synchronized (this) {
                if (heldExchange == null) {
                    waiting.add(message);
                    return;
                }
                List<byte[]> replies = heldReplies;
                replies.add(message);
                answerHeld(replies);
            }
        }

        /** Answers the held long-poll connect with {@code before} and its own reply. Under this. */
        private void answerHeld(List<byte[]> before) {
            before.add(connectReply(heldConnectId));
            heldExchange.respond(200, "application/json;charset=UTF-8", array(before));
            heldExchange.holding = null;
            heldExchange = null;
            heldReplies = null;
            heldConnectId = null;
        }

        synchronized void tick(FloorConn on, long now) {
            if (heldConnectId == null || now - heldSince < HOLD_NANOS) {
                return;
            }
            if (heldExchange == on) {
                answerHeld(heldReplies);
            } else if (socket == on) {
                on.write(FloorConn.frame(array(List.of(connectReply(heldConnectId))), 1));
                heldConnectId = null;
            }
        }
    }

    /** A parsed batch element: the fields the floor reads; {@code data} as the raw JSON it arrived as. */
    private record Incoming(String channel, String id, String clientId, String subscription, boolean noWait,
            byte[] data) {
    }

    void webSocketBatch(FloorConn conn, byte[] bytes, int offset, int length) {
        List<byte[]> replies = new ArrayList<>(2);
        for (Incoming message : parse(bytes, offset, length)) {
            Client client = handle(conn, message, replies);
            if (client != null) { // a connect
                client.socket = conn;
                conn.client = client;
                if (message.noWait()) {
                    replies.add(connectReply(message.id()));
                } else {
                    synchronized (client) {
                        if (client.heldConnectId != null) { // a newer connect answers the older one
                            replies.add(connectReply(client.heldConnectId));
                        }
                        client.heldConnectId = message.id();
                        client.heldSince = System.nanoTime();
                    }
                }
            }
        }
        if (!replies.isEmpty()) {
            conn.write(FloorConn.frame(array(replies), 1));
        }
    }

    void httpBatch(FloorConn conn, byte[] bytes, int offset, int length) {
        List<byte[]> replies = new ArrayList<>(2);
        Client connecting = null;
        Incoming connect = null;
        for (Incoming message : parse(bytes, offset, length)) {
            Client client = handle(conn, message, replies);
            if (client != null) {
                connecting = client;
                connect = message;
            }
        }
        if (connecting != null) {
            synchronized (connecting) {
                if (connecting.heldExchange != null) { // a newer connect answers the older one
                    connecting.answerHeld(connecting.heldReplies);
                }
                if (connect.noWait() || !connecting.waiting.isEmpty()) {
                    replies.addAll(0, connecting.waiting);
                    connecting.waiting.clear();
                    replies.add(connectReply(connect.id()));
                } else {
                    connecting.heldExchange = conn;
                    conn.holding = connecting;
                    connecting.heldReplies = replies;
                    connecting.heldConnectId = connect.id();
                    connecting.heldSince = System.nanoTime();
                    return;
                }
            }
        }
        conn.respond(200, "application/json;charset=UTF-8", array(replies));
    }

    /** Handles one message, adding its reply; returns its session for a {@code /meta/connect}, whose reply waits. */
    private Client handle(FloorConn conn, Incoming message, List<byte[]> replies) {
        String channel = message.channel();
        if (channel == null) {
            replies.add(reply(message, "\"successful\":false,\"error\":\"400::channel_missing\""));
            return null;
        }
        if (channel.equals("/meta/handshake")) {
            Client client = new Client("f" + Long.toString(ids.incrementAndGet(), 36));
            clients.put(client.id, client);
            if (conn.isWebSocket()) {
                client.socket = conn;
                conn.client = client;
            }
            replies.add(reply(message, "\"successful\":true,\"version\":\"1.0\",\"clientId\":\"" + client.id
                    + "\",\"supportedConnectionTypes\":[\"websocket\",\"long-polling\"],"
                    + "\"advice\":{\"reconnect\":\"retry\",\"interval\":0,\"timeout\":30000}"));
            return null;
        }
        Client client = message.clientId() == null ? null : clients.get(message.clientId());
        if (client == null) {
            replies.add(reply(message, "\"successful\":false,\"error\":\"402::session_unknown\","
                    + "\"advice\":{\"reconnect\":\"handshake\",\"interval\":0}"));
            return null;
        }
        switch (channel) {
            case "/meta/connect" -> {
                return client;
            }
            case "/meta/subscribe" -> {
                String subscription = message.subscription();
                channels.computeIfAbsent(subscription, name -> new CopyOnWriteArrayList<>()).add(client);
                client.subscriptions.add(subscription);
                replies.add(reply(message, "\"successful\":true,\"subscription\":\"" + subscription + "\""));
            }
            case "/meta/unsubscribe" -> {
                String subscription = message.subscription();
                List<Client> members = channels.get(subscription);
                if (members != null) {
                    members.remove(client);
                }
                client.subscriptions.remove(subscription);
                replies.add(reply(message, "\"successful\":true,\"subscription\":\"" + subscription + "\""));
            }
            case "/meta/disconnect" -> {
                forget(client);
                replies.add(reply(message, "\"successful\":true"));
            }
            default -> {
                replies.add(reply(message, "\"successful\":true"));
                publish(channel, message.data());
            }
        }
        return null;
    }

    /** Writes one publish to every member of its channel: the message encoded once, and its websocket frame once. */
    private void publish(String channel, byte[] data) {
        List<Client> members = channels.get(channel);
        if (members == null || members.isEmpty()) {
            return;
        }
        ByteArrayOutputStream message = new ByteArrayOutputStream(data.length + channel.length() + 24);
        message.writeBytes("{\"data\":".getBytes(StandardCharsets.US_ASCII));
        message.writeBytes(data);
        message.writeBytes((",\"channel\":\"" + channel + "\"}").getBytes(StandardCharsets.UTF_8));
        byte[] bytes = message.toByteArray();
        ByteBuffer frame = FloorConn.frame(array(List.of(bytes)), 1);
        for (Client member : members) {
            member.deliver(bytes, frame);
        }
    }

    void tick(FloorConn conn, long now) {
        Client client = conn.isWebSocket() ? conn.client : conn.holding;
        if (client != null) {
            client.tick(conn, now);
        }
    }

    void closed(FloorConn conn) {
        Client client = conn.client;
        if (client != null && client.socket == conn) {
            forget(client); // a websocket session lives as long as its connection, here
        }
        Client holding = conn.holding;
        if (holding != null) {
            synchronized (holding) {
                if (holding.heldExchange == conn) { // what comes next waits for the session's next connect
                    holding.heldExchange = null;
                    holding.heldReplies = null;
                    holding.heldConnectId = null;
                    conn.holding = null;
                }
            }
        }
    }

    private void forget(Client client) {
        clients.remove(client.id);
        for (String subscription : client.subscriptions) {
            List<Client> members = channels.get(subscription);
            if (members != null) {
                members.remove(client);
            }
        }
        client.subscriptions.clear();
    }

    private static byte[] connectReply(String id) {
        return ("{" + (id == null ? "" : "\"id\":" + id + ",") + "\"channel\":\"/meta/connect\",\"successful\":true,"
                + "\"advice\":{\"reconnect\":\"retry\",\"interval\":0,\"timeout\":30000}}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] reply(Incoming message, String fields) {
        return ("{" + (message.id() == null ? "" : "\"id\":" + message.id() + ",")
                + (message.channel() == null ? "" : "\"channel\":\"" + message.channel() + "\",") + fields + "}")
                .getBytes(StandardCharsets.UTF_8);
    }

    /** {@code [a,b,...]}. */
    private static byte[] array(List<byte[]> messages) {
        int length = 2 + Math.max(0, messages.size() - 1);
        for (byte[] message : messages) {
            length += message.length;
        }
        ByteBuffer out = ByteBuffer.allocate(length).put(OPEN);
        for (int i = 0; i < messages.size(); i++) {
            if (i > 0) {
                out.put((byte) ',');
            }
            out.put(messages.get(i));
        }
        return out.put((byte) ']').array();
    }

    /** The batch's messages; a batch that is not JSON yields what was read before the fault. */
    private static List<Incoming> parse(byte[] bytes, int offset, int length) {
        byte[] json = Arrays.copyOfRange(bytes, offset, offset + length);
        List<Incoming> messages = new ArrayList<>(2);
        try (JsonParser parser = JSON.createParser(json)) {
            JsonToken token = parser.nextToken();
            boolean array = token == JsonToken.START_ARRAY;
            if (array) {
                token = parser.nextToken();
            }
            while (token == JsonToken.START_OBJECT) {
                messages.add(message(parser, json));
                token = array ? parser.nextToken() : null;
            }
        } catch (IOException x) {
            // what was read is answered; the rest is not the load tool's
        }
        return messages;
    }

    private static Incoming message(JsonParser parser, byte[] json) throws IOException {
        String channel = null;
        String id = null;
        String clientId = null;
        String subscription = null;
        boolean noWait = false;
        byte[] data = null;
        String field;
        while ((field = parser.nextFieldName()) != null) {
            JsonToken value = parser.nextToken();
            switch (field) {
                case "channel" -> channel = parser.getText();
                case "clientId" -> clientId = parser.getText();
                case "subscription" -> subscription = parser.getText();
                case "id" -> id = value == JsonToken.VALUE_STRING ? "\"" + parser.getText() + "\"" : parser.getText();
                case "advice" -> noWait = timeoutZero(parser);
                case "data" -> {
                    int start = (int) parser.currentTokenLocation().getByteOffset();
                    if (value.isStructStart()) {
                        parser.skipChildren();
                    } else {
                        parser.getText(); // reads the whole value
                    }
                    int end = (int) parser.currentLocation().getByteOffset();
                    data = Arrays.copyOfRange(json, start, end);
                }
                default -> parser.skipChildren();
            }
        }
        return new Incoming(channel, id, clientId, subscription, noWait, data == null ? "null".getBytes(StandardCharsets.US_ASCII) : data);
    }

    private static boolean timeoutZero(JsonParser parser) throws IOException {
        if (parser.currentToken() != JsonToken.START_OBJECT) {
            parser.skipChildren();
            return false;
        }
        boolean zero = false;
        String field;
        while ((field = parser.nextFieldName()) != null) {
            JsonToken value = parser.nextToken();
            if (field.equals("timeout") && value.isNumeric()) {
                zero = parser.getLongValue() == 0;
            } else {
                parser.skipChildren();
            }
        }
        return zero;
    }
}
