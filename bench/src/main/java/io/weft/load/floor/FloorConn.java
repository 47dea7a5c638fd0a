package io.weft.load.floor;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.Base64;

/**
 * One connection of the floor server: HTTP/1.1 requests until it upgrades to a websocket, then websocket frames. Reads
 * happen on its loop's thread; {@link #write(ByteBuffer)} may be called from any thread (a publish on another
 * connection), and what the socket does not take at once waits for the loop to flush it.
 */
final class FloorConn {
    private static final int MAX_INPUT = 1 << 20;
    private static final long MAX_PENDING_BYTES = 16L << 20;
    private static final String WEBSOCKET_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

    private final SocketChannel socket;
    private final SelectionKey key;
    private final FloorLoop loop;
    private final FloorBayeux bayeux;
    private ByteBuffer in = ByteBuffer.allocate(8192);
    private final ArrayDeque<ByteBuffer> out = new ArrayDeque<>();
    private long pendingBytes;
    private boolean webSocket;
    private volatile boolean closed;
    /** The session this websocket carries (set by its handshake); null over HTTP. */
    volatile FloorBayeux.Client client;
    /** Over HTTP: the session whose {@code /meta/connect} this connection's request is, while it is held. */
    volatile FloorBayeux.Client holding;

    FloorConn(SocketChannel socket, SelectionKey key, FloorLoop loop, FloorBayeux bayeux) {
        this.socket = socket;
        this.key = key;
        this.loop = loop;
        this.bayeux = bayeux;
    }

    boolean isWebSocket() {
        return webSocket;
    }

    void read() {
        try {
            int read = socket.read(in);
            if (read < 0) {
                close();
                return;
            }
            boolean progress = true;
            while (progress && !closed) {
                progress = webSocket ? frame() : request();
            }
            if (!in.hasRemaining()) {
                if (in.capacity() >= MAX_INPUT) {
                    close(); // a request or frame past 1 MB: not the load tool's
                    return;
                }
                in = ByteBuffer.allocate(in.capacity() * 2).put(in.flip());
            }
        } catch (IOException x) {
            close();
        }
    }

    /** Handles one complete HTTP request at the start of the input, if there is one. */
    private boolean request() {
        byte[] bytes = in.array();
        int end = indexOfHeadersEnd(bytes, in.position());
        if (end < 0) {
            return false;
        }
        String head = new String(bytes, 0, end, StandardCharsets.ISO_8859_1);
        int length = 0;
        String webSocketKey = null;
        int line = head.indexOf("\r\n");
        while (line >= 0) {
            int start = line + 2;
            int next = head.indexOf("\r\n", start);
            int stop = next < 0 ? head.length() : next;
            if (head.regionMatches(true, start, "content-length:", 0, 15)) {
                length = Integer.parseInt(head.substring(start + 15, stop).trim());
            } else if (head.regionMatches(true, start, "sec-websocket-key:", 0, 18)) {
                webSocketKey = head.substring(start + 18, stop).trim();
            }
            line = next;
        }
        int bodyStart = end + 4;
        if (in.position() < bodyStart + length) {
            return false;
        }
        if (webSocketKey != null) {
            webSocket = true;
            write(ByteBuffer.wrap(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Accept: " + accept(webSocketKey) + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1)));
        } else if (head.startsWith("POST ")) {
            bayeux.httpBatch(this, bytes, bodyStart, length);
        } else {
            respond(404, "text/plain", "the floor server answers Bayeux POSTs and websocket upgrades only\n"
                    .getBytes(StandardCharsets.UTF_8));
        }
        consume(bodyStart + length);
        return true;
    }

    private static int indexOfHeadersEnd(byte[] bytes, int limit) {
        for (int i = 0; i + 3 < limit; i++) {
            if (bytes[i] == '\r' && bytes[i + 1] == '\n' && bytes[i + 2] == '\r' && bytes[i + 3] == '\n') {
                return i;
            }
        }
        return -1;
    }

    private static String accept(String key) {
        try {
            byte[] sha1 = MessageDigest.getInstance("SHA-1")
                    .digest((key + WEBSOCKET_GUID).getBytes(StandardCharsets.ISO_8859_1));
            return Base64.getEncoder().encodeToString(sha1);
        } catch (NoSuchAlgorithmException x) {
            throw new IllegalStateException("every JDK has SHA-1", x);
        }
    }

    /** Handles one complete client frame at the start of the input, if there is one. */
    private boolean frame() {
        int available = in.position();
        if (available < 2) {
            return false;
        }
        byte[] bytes = in.array();
        int opcode = bytes[0] & 0x0F;
        long length = bytes[1] & 0x7F;
        int header = 2;
        if (length == 126) {
            if (available < 4) {
                return false;
            }
            length = ((bytes[2] & 0xFF) << 8) | (bytes[3] & 0xFF);
            header = 4;
        } else if (length == 127) {
            if (available < 10) {
                return false;
            }
            length = ByteBuffer.wrap(bytes, 2, 8).getLong();
            header = 10;
        }
        if (length > MAX_INPUT) {
            close();
            return false;
        }
        int masked = (bytes[1] & 0x80) != 0 ? 4 : 0;
        int total = header + masked + (int) length;
        if (available < total) {
            return false;
        }
        int payload = header + masked;
        if (masked != 0) {
            for (int i = 0; i < length; i++) {
                bytes[payload + i] ^= bytes[header + (i & 3)];
            }
        }
        switch (opcode) {
            case 1 -> bayeux.webSocketBatch(this, bytes, payload, (int) length);
            case 8 -> {
                write(ByteBuffer.wrap(new byte[] {(byte) 0x88, 0}));
                close();
                return false;
            }
            case 9 -> {
                byte[] pong = new byte[(int) length];
                System.arraycopy(bytes, payload, pong, 0, pong.length);
                write(frame(pong, 0xA));
            }
            case 10 -> { }
            default -> {
                close(); // fragments and binary frames: not the load tool's
                return false;
            }
        }
        consume(total);
        return true;
    }

    private void consume(int count) {
        in.flip().position(count);
        in.compact();
    }

    /** A server frame of {@code payload}: unmasked, so the same bytes go to every connection. */
    static ByteBuffer frame(byte[] payload, int opcode) {
        int length = payload.length;
        int header = length < 126 ? 2 : length < 65536 ? 4 : 10;
        ByteBuffer frame = ByteBuffer.allocate(header + length);
        frame.put((byte) (0x80 | opcode));
        if (length < 126) {
            frame.put((byte) length);
        } else if (length < 65536) {
            frame.put((byte) 126).putShort((short) length);
        } else {
            frame.put((byte) 127).putLong(length);
        }
        return frame.put(payload).flip();
    }

    void respond(int status, String contentType, byte[] body) {
        byte[] head = ("HTTP/1.1 " + status + (status == 200 ? " OK" : " Not Found") + "\r\nContent-Type: " + contentType
                + "\r\nContent-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
        write(ByteBuffer.allocate(head.length + body.length).put(head).put(body).flip());
    }

    /** Writes {@code data} (this call's own buffer or duplicate), now or, for what the socket does not take, later. */
    void write(ByteBuffer data) {
        synchronized (this) {
            if (closed) {
                return;
            }
            if (out.isEmpty()) {
                try {
                    socket.write(data);
                } catch (IOException x) {
                    loop.execute(this::close);
                    return;
                }
                if (!data.hasRemaining()) {
                    return;
                }
            }
            pendingBytes += data.remaining();
            if (pendingBytes > MAX_PENDING_BYTES) {
                loop.execute(this::close); // a reader this far behind is not measuring anything
                return;
            }
            out.add(data);
            if (out.size() == 1) {
                key.interestOps(key.interestOps() | SelectionKey.OP_WRITE);
                key.selector().wakeup();
            }
        }
    }

    void flush() {
        synchronized (this) {
            try {
                ByteBuffer head;
                while ((head = out.peek()) != null) {
                    int before = head.remaining();
                    socket.write(head);
                    pendingBytes -= before - head.remaining();
                    if (head.hasRemaining()) {
                        return;
                    }
                    out.poll();
                }
                if (key.isValid()) {
                    key.interestOps(key.interestOps() & ~SelectionKey.OP_WRITE);
                }
            } catch (IOException x) {
                close();
            }
        }
    }

    void tick(long now) {
        bayeux.tick(this, now);
    }

    void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            out.clear();
        }
        key.cancel();
        FloorLoop.closeQuietly(socket);
        bayeux.closed(this);
    }
}
