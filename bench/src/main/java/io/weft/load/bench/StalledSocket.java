package io.weft.load.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A Bayeux websocket client that handshakes, subscribes and connects, reading the replies, and then stops reading
 * for good while it keeps its session alive with a {@code /meta/connect} now and then: a slow reader, the peer whose
 * messages pile up on the server (the {@code slow} fault). Written on a plain socket so that nothing reads for it.
 */
final class StalledSocket implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final SplittableRandom random = new SplittableRandom();
    private String clientId;

    private StalledSocket(URI uri, int receiveBuffer) throws IOException {
        socket = new Socket();
        socket.setReceiveBufferSize(receiveBuffer);
        socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 10_000);
        socket.setSoTimeout(10_000);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
        byte[] key = new byte[16];
        random.nextBytes(key);
        out.write(("GET " + uri.getPath() + " HTTP/1.1\r\nHost: " + uri.getHost() + ":" + uri.getPort()
                + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: "
                + Base64.getEncoder().encodeToString(key) + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        StringBuilder head = new StringBuilder();
        while (head.indexOf("\r\n\r\n") < 0) {
            head.append((char) in.readUnsignedByte());
        }
        if (!head.toString().startsWith("HTTP/1.1 101")) {
            throw new IOException("no upgrade: " + head);
        }
    }

    /** Opens a socket, handshakes, subscribes to {@code channel} and leaves a held connect, then reads no more. */
    static StalledSocket open(URI uri, String channel, int receiveBuffer) throws IOException {
        StalledSocket stalled = new StalledSocket(uri, receiveBuffer);
        Map<?, ?> handshake = stalled.call("{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"websocket\"]}", "/meta/handshake");
        stalled.clientId = (String) handshake.get("clientId");
        stalled.call("{\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\",\"advice\":{\"timeout\":0},"
                + "\"clientId\":\"" + stalled.clientId + "\"}", "/meta/connect");
        stalled.call("{\"channel\":\"/meta/subscribe\",\"subscription\":\"" + channel + "\",\"clientId\":\""
                + stalled.clientId + "\"}", "/meta/subscribe");
        stalled.keepAlive();
        return stalled;
    }

    /** A {@code /meta/connect} the server holds: the session stays alive, and nothing is read. */
    void keepAlive() throws IOException {
        send("[{\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\",\"clientId\":\"" + clientId + "\"}]");
    }

    private Map<?, ?> call(String message, String channel) throws IOException {
        send("[" + message + "]");
        while (true) {
            for (Object reply : JSON.readValue(readText(), List.class)) {
                if (reply instanceof Map<?, ?> map && channel.equals(map.get("channel"))) {
                    if (!Boolean.TRUE.equals(map.get("successful"))) {
                        throw new IOException("refused: " + map);
                    }
                    return map;
                }
            }
        }
    }

    private void send(String text) throws IOException {
        byte[] payload = text.getBytes(StandardCharsets.UTF_8);
        byte[] mask = new byte[4];
        random.nextBytes(mask);
        int header = payload.length < 126 ? 2 : 4;
        byte[] frame = new byte[header + 4 + payload.length];
        frame[0] = (byte) 0x81;
        if (payload.length < 126) {
            frame[1] = (byte) (0x80 | payload.length);
        } else {
            frame[1] = (byte) (0x80 | 126);
            frame[2] = (byte) (payload.length >> 8);
            frame[3] = (byte) payload.length;
        }
        System.arraycopy(mask, 0, frame, header, 4);
        for (int i = 0; i < payload.length; i++) {
            frame[header + 4 + i] = (byte) (payload[i] ^ mask[i & 3]);
        }
        synchronized (out) {
            out.write(frame);
            out.flush();
        }
    }

    private String readText() throws IOException {
        int first = in.readUnsignedByte();
        int second = in.readUnsignedByte();
        long length = second & 0x7f;
        if (length == 126) {
            length = in.readUnsignedShort();
        } else if (length == 127) {
            length = in.readLong();
        }
        byte[] payload = new byte[(int) length];
        in.readFully(payload);
        if ((first & 0x0f) != 1) {
            return readText();
        }
        return new String(payload, StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // Going anyway.
        }
    }
}
