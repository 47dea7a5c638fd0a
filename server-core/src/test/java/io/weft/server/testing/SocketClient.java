package io.weft.server.testing;

import io.weft.bayeux.MessageDecodeException;
import io.weft.server.spi.InMemoryTransport;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A scripted Bayeux client over an in-memory WebSocket: frames of raw JSON in, parsed frames out. */
public final class SocketClient {
    private final InMemoryTransport.Socket socket;
    private String clientId;
    private long bytesTaken;

    public SocketClient(InMemoryTransport transport, String browserId) {
        this.socket = transport.open(browserId);
    }

    public InMemoryTransport.Socket socket() {
        return socket;
    }

    public String clientId() {
        return clientId;
    }

    public void useClientId(String clientId) {
        this.clientId = clientId;
    }

    public void send(String frame) {
        try {
            socket.send(frame);
        } catch (MessageDecodeException x) {
            throw new AssertionError(x);
        }
    }

    /** The next frame the server wrote, parsed; fails if none comes within 5 s. */
    public List<Map<String, Object>> next() {
        try {
            String frame = socket.nextFrame(5);
            if (frame == null) {
                throw new AssertionError("no frame within 5 s");
            }
            bytesTaken += utf8(frame);
            return Json.array(frame);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw new AssertionError(x);
        }
    }

    /** Every frame written so far, parsed and flattened into messages. */
    public List<Map<String, Object>> drain() {
        List<Map<String, Object>> messages = new ArrayList<>();
        String frame;
        while ((frame = socket.frames().poll()) != null) {
            bytesTaken += utf8(frame);
            messages.addAll(Json.array(frame));
        }
        return messages;
    }

    /** The bytes of every frame the server wrote to this socket, taken or not. */
    public long bytesReceived() {
        long waiting = 0;
        for (String frame : socket.frames()) {
            waiting += utf8(frame);
        }
        return bytesTaken + waiting;
    }

    private static int utf8(String frame) {
        return frame.getBytes(StandardCharsets.UTF_8).length;
    }

    public Map<String, Object> handshake() {
        send("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"websocket\"]}]");
        Map<String, Object> reply = next().get(0);
        clientId = (String) reply.get("clientId");
        return reply;
    }

    public void connect() {
        send("[{\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\",\"clientId\":\"" + clientId + "\"}]");
    }

    public void connectNow() {
        send("[{\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\",\"clientId\":\"" + clientId
                + "\",\"advice\":{\"timeout\":0}}]");
    }

    public void subscribe(String channel) {
        send("[{\"channel\":\"/meta/subscribe\",\"subscription\":\"" + channel + "\",\"clientId\":\"" + clientId
                + "\"}]");
    }

    public void publish(String channel, String dataJson) {
        send("[{\"channel\":\"" + channel + "\",\"data\":" + dataJson + ",\"clientId\":\"" + clientId + "\"}]");
    }
}
