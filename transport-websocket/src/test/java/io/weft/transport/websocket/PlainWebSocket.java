package io.weft.transport.websocket;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * A WebSocket client on a plain {@link Socket}, for what a real client library will not do: write frames without ever
 * reading, with a receive buffer as small as the test wants. Frames are written whole, one write each; reading is
 * explicit ({@link #readFrame()}), so a test that does not call it is a peer that does not read.
 */
final class PlainWebSocket implements AutoCloseable {
    static final int CONTINUATION = 0x0;
    static final int TEXT = 0x1;
    static final int CLOSE = 0x8;
    static final int PING = 0x9;
    static final int PONG = 0xA;
    private static final String ACCEPT_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

    private final Socket socket;
    private final OutputStream out;
    private final DataInputStream in;

    /** One frame from the server (servers do not mask). */
    record Frame(int opcode, byte[] payload) {
        String text() {
            return new String(payload, StandardCharsets.UTF_8);
        }

        /** The status code of a close frame, or -1 if it carries none. */
        int closeCode() {
            return payload.length < 2 ? -1 : ((payload[0] & 0xFF) << 8) | (payload[1] & 0xFF);
        }

        String closeReason() {
            return payload.length <= 2 ? "" : new String(payload, 2, payload.length - 2, StandardCharsets.UTF_8);
        }
    }

    private final AtomicInteger sent = new AtomicInteger();

    private PlainWebSocket(Socket socket) throws IOException {
        this.socket = socket;
        this.out = socket.getOutputStream();
        this.in = new DataInputStream(socket.getInputStream());
    }

    /**
     * Connects and upgrades, with at most {@code buffer} bytes of socket receive and send buffers (0: the system's), so
     * that a peer that stops reading, or a server that does, is felt early.
     */
    static PlainWebSocket connect(URI ws, int buffer) throws IOException {
        Socket socket = new Socket();
        if (buffer > 0) {
            socket.setReceiveBufferSize(buffer); // before connecting, so that the TCP window is negotiated small
            socket.setSendBufferSize(buffer);
        }
        socket.connect(new InetSocketAddress(ws.getHost(), ws.getPort()), 5_000);
        socket.setSoTimeout(10_000);
        PlainWebSocket client = new PlainWebSocket(socket);
        client.upgrade(ws);
        return client;
    }

    private void upgrade(URI ws) throws IOException {
        byte[] nonce = new byte[16];
        ThreadLocalRandom.current().nextBytes(nonce);
        String key = Base64.getEncoder().encodeToString(nonce);
        String request = "GET " + ws.getRawPath() + " HTTP/1.1\r\n"
                + "Host: " + ws.getHost() + ":" + ws.getPort() + "\r\n"
                + "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: " + key + "\r\nSec-WebSocket-Version: 13\r\n\r\n";
        out.write(request.getBytes(StandardCharsets.US_ASCII));
        out.flush();
        String head = readHead(in);
        if (!head.startsWith("HTTP/1.1 101") || !head.contains(accept(key))) {
            throw new IOException("upgrade refused: " + head);
        }
    }

    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("closed during the upgrade: " + head);
            }
            head.write(b);
            matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        return head.toString(StandardCharsets.US_ASCII);
    }

    private static String accept(String key) {
        try {
            byte[] sha1 = MessageDigest.getInstance("SHA-1")
                    .digest((key + ACCEPT_GUID).getBytes(StandardCharsets.US_ASCII));
            return Base64.getEncoder().encodeToString(sha1);
        } catch (NoSuchAlgorithmException x) {
            throw new IllegalStateException(x);
        }
    }

    void sendText(String text) throws IOException {
        send(TEXT, text.getBytes(StandardCharsets.UTF_8));
    }

    void sendPing(byte[] payload) throws IOException {
        send(PING, payload);
    }

    /** Writes one masked, final frame in one write; blocks while the server is not reading. */
    void send(int opcode, byte[] payload) throws IOException {
        send(opcode, payload, true);
    }

    /** Writes one masked frame, final or not (a fragment of a message), in one write. */
    synchronized void send(int opcode, byte[] payload, boolean fin) throws IOException {
        int length = payload.length;
        int header = length < 126 ? 2 : length <= 0xFFFF ? 4 : 10;
        ByteBuffer frame = ByteBuffer.allocate(header + 4 + length);
        frame.put((byte) ((fin ? 0x80 : 0) | opcode));
        if (length < 126) {
            frame.put((byte) (0x80 | length));
        } else if (length <= 0xFFFF) {
            frame.put((byte) (0x80 | 126)).putShort((short) length);
        } else {
            frame.put((byte) (0x80 | 127)).putLong(length);
        }
        byte[] mask = new byte[4];
        ThreadLocalRandom.current().nextBytes(mask);
        frame.put(mask);
        for (int i = 0; i < length; i++) {
            frame.put((byte) (payload[i] ^ mask[i % 4]));
        }
        out.write(frame.array());
    }

    /**
     * Writes {@code count} text frames, the i-th being {@code frame.apply(i)}, on a thread of its own (its writes block
     * while the server does not read); the thread ends when all are written or the socket fails.
     */
    Thread sendInBackground(int count, IntFunction<String> frame) {
        return background("text sender", count, i -> sendText(frame.apply(i)));
    }

    /** As {@link #sendInBackground}, for pings carrying {@code payloadSize} bytes each. */
    Thread pingInBackground(int count, int payloadSize) {
        byte[] payload = new byte[payloadSize];
        return background("ping sender", count, i -> sendPing(payload));
    }

    private interface Send {
        void send(int i) throws IOException;
    }

    /** How many frames the background sender has written so far. */
    int sent() {
        return sent.get();
    }

    private Thread background(String name, int count, Send send) {
        Thread sender = new Thread(() -> {
            try {
                for (int i = 0; i < count; i++) {
                    send.send(i);
                    sent.incrementAndGet();
                }
            } catch (IOException x) {
                // the test closed the socket, or the server did: the sender's job is over
            }
        }, name);
        sender.setDaemon(true);
        sender.start();
        return sender;
    }

    /** The next frame from the server, waiting up to the socket's timeout (10 s). */
    Frame readFrame() throws IOException {
        int first = in.readUnsignedByte();
        int second = in.readUnsignedByte();
        long length = second & 0x7F;
        if (length == 126) {
            length = in.readUnsignedShort();
        } else if (length == 127) {
            length = in.readLong();
        }
        if ((second & 0x80) != 0 || length > 64 * 1024 * 1024) {
            throw new IOException("unexpected frame header: " + first + " " + second + " length " + length);
        }
        byte[] payload = new byte[(int) length];
        in.readFully(payload);
        return new Frame(first & 0x0F, payload);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
