package io.weft.server.stress;

import io.weft.bayeux.Message;
import io.weft.bayeux.MessageDecodeException;
import io.weft.server.spi.InMemoryTransport;
import io.weft.server.testing.Json;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A WebSocket client: one socket per session, which it may close and replace to resume the same session (the frames
 * the old socket had not read are lost). Replies come back in frames with pushed deliveries; the client sorts them.
 */
final class SocketStressClient extends StressClient {
    private final InMemoryTransport transport;
    private InMemoryTransport.Socket socket;
    private boolean used;
    /** The session this socket was opened for has ended. */
    private boolean stale;
    /** The id of the outstanding /meta/connect, or null. */
    private Object connectId;
    private long connectSince;
    /** Replies to requests, by id, taken from frames while waiting for something else. */
    private final Map<Object, Map<String, Object>> replies = new HashMap<>();

    SocketStressClient(InMemoryTransport transport, String name, Role role, boolean acks, long seed, Stage stage) {
        super(name, role, acks, seed, stage);
        this.transport = transport;
    }

    @Override
    protected String connectionType() {
        return "websocket";
    }

    @Override
    protected void newSession() {
        if (socket == null || used) {
            reopen();
        }
        used = true;
    }

    /**
     * What still arrives on this socket belongs to the session that ended: replies to requests in flight are taken,
     * anything else is ignored, and the next session gets a new socket.
     */
    @Override
    protected void sessionEnded() {
        stale = true;
        connectId = null;
    }

    private void reopen() {
        if (socket != null) {
            socket.close();
        }
        socket = transport.open(browser);
        stale = false;
        connectId = null;
        replies.clear();
    }

    private void send(Map<String, Object> message) {
        try {
            socket.send(Json.write(List.of(message)));
        } catch (MessageDecodeException x) {
            throw new IllegalStateException("the server could not decode " + message, x);
        }
    }

    @Override
    protected Map<String, Object> request(Map<String, Object> message) {
        Object id = message.get(Message.ID);
        send(message);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(REPLY_WAIT_MILLIS);
        while (!replies.containsKey(id)) {
            if (System.nanoTime() > deadline) {
                ledger.problem(name + ": no reply within " + REPLY_WAIT_MILLIS + " ms to " + message);
                return null;
            }
            read(10);
        }
        Map<String, Object> reply = replies.remove(id);
        checkForm(reply);
        return reply;
    }

    /** Reads the frames that arrive within {@code millis} (at least those already there), sorting their messages. */
    private void read(long millis) {
        String frame;
        try {
            frame = socket.frames().poll(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(x);
        }
        while (frame != null) {
            sort(Json.array(frame));
            frame = socket.frames().poll();
        }
    }

    private void sort(List<Map<String, Object>> messages) {
        List<Map<String, Object>> taken = new ArrayList<>();
        for (Map<String, Object> message : messages) {
            Object id = message.get(Message.ID);
            boolean reply = message.containsKey(Message.SUCCESSFUL) && id != null;
            if (reply && id.equals(connectId)) {
                connectId = null;
                taken.add(message);
            } else if (reply && !"/meta/connect".equals(message.get(Message.CHANNEL))) {
                replies.put(id, message);
            } else if (!stale) {
                taken.add(message);
            }
        }
        take(taken);
    }

    @Override
    protected void pump() {
        read(0);
        if (clientId != null && connectId == null) {
            Map<String, Object> connect = connectMessage(false);
            connectId = connect.get(Message.ID);
            connectSince = System.nanoTime();
            send(connect);
        } else if (connectId != null
                && TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - connectSince) > REPLY_WAIT_MILLIS) {
            ledger.problem(name + ": a /meta/connect of " + clientId + " held for more than " + REPLY_WAIT_MILLIS
                    + " ms (timeout " + stage.timeout() + ")");
            drop();
        }
    }

    @Override
    protected void awaitConnect(long millis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (connectId != null && System.nanoTime() < deadline) {
            read(10);
        }
    }

    @Override
    protected boolean connecting() {
        return connectId != null;
    }

    /** The socket breaks: a new one resumes the session with its next /meta/connect. */
    @Override
    protected void drop() {
        reopen();
    }

    @Override
    protected void idle(long millis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        do {
            read(Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        } while (System.nanoTime() < deadline);
    }

    @Override
    protected void close() {
        if (socket != null) {
            socket.close();
        }
    }
}
