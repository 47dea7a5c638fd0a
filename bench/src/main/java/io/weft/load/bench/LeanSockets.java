package io.weft.load.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The lean transport of the ladder ({@code --transport=lean-websocket}): a deliberately cheap websocket Bayeux client
 * pool on raw NIO sockets, one
 * selector thread, no object model. It handshakes, subscribes and keeps a {@code /meta/connect} going like any
 * client, publishes pre-formatted JSON, and finds each delivered chat message by scanning the frame for its
 * {@code "t":} field instead of decoding it. It exists so that the load generator costs several times less per
 * delivered message than the servers it drives: with the library client on one core, every server's saturation step
 * measured the client.
 *
 * <p>Speaks only what the three servers under test need: no extensions (no permessage-deflate), text frames, pings
 * answered. Frames it sends are masked with a zero key (allowed by RFC 6455, and free).
 */
final class LeanSockets implements ChatLoad {
    private static final byte[] CONNECT_CHANNEL = "\"/meta/connect\"".getBytes(StandardCharsets.US_ASCII);

    private final List<Conn> conns = new ArrayList<>();
    private final Selector selector;
    private final Arrivals arrivals;
    private final Thread reader;
    private volatile boolean running = true;

    private LeanSockets(Arrivals arrivals) throws IOException {
        this.arrivals = arrivals;
        this.selector = Selector.open();
        this.reader = new Thread(this::readLoop, "lean-reader");
        this.reader.setDaemon(true);
    }

    /**
     * Opens {@code count} clients, client {@code i} to {@code urls[i % urls.size()]}, subscribed to room
     * {@code i % rooms}; arrivals are reported on the selector thread.
     */
    static LeanSockets open(List<URI> urls, int count, int rooms, Arrivals arrivals) throws IOException {
        LeanSockets pool = new LeanSockets(arrivals);
        try {
            for (int i = 0; i < count; i++) {
                Conn conn = pool.handshake(urls.get(i % urls.size()), ChatLoad.channel(i % rooms));
                pool.conns.add(conn);
            }
            for (Conn conn : pool.conns) {
                conn.channel.configureBlocking(false);
                conn.channel.register(pool.selector, SelectionKey.OP_READ, conn);
            }
        } catch (IOException | RuntimeException x) {
            pool.close();
            throw x;
        }
        pool.reader.start();
        return pool;
    }

    /** Publishes {@code {"t": sentNanos, "p": padding}} to room {@code room} from client {@code member}. */
    @Override
    public void publish(int member, int room, long sentNanos, String padding) {
        Conn conn = conns.get(member);
        conn.send("[{\"channel\":\"" + ChatLoad.channel(room) + "\",\"clientId\":\"" + conn.clientId + "\",\"data\":{\"t\":" + sentNanos
                + ",\"p\":\"" + padding + "\"}}]");
    }

    private Conn handshake(URI url, String room) throws IOException {
        String scheme = url.getScheme().replace("http", "ws");
        if (!scheme.equals("ws")) {
            throw new IllegalArgumentException("lean client: plain ws/http only: " + url);
        }
        SocketChannel channel = SocketChannel.open();
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        channel.connect(new InetSocketAddress(url.getHost(), url.getPort()));
        byte[] nonce = new byte[16];
        ThreadLocalRandom.current().nextBytes(nonce);
        String request = "GET " + url.getRawPath() + " HTTP/1.1\r\nHost: " + url.getHost() + ":" + url.getPort()
                + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: "
                + Base64.getEncoder().encodeToString(nonce) + "\r\nSec-WebSocket-Version: 13\r\n\r\n";
        LeanScan.writeFully(channel, ByteBuffer.wrap(request.getBytes(StandardCharsets.US_ASCII)));
        Conn conn = new Conn(channel);
        String status = conn.readUpgradeResponse();
        if (!status.startsWith("HTTP/1.1 101")) {
            channel.close();
            throw new IOException("lean client: upgrade refused by " + url + ": " + status);
        }
        conn.send("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"minimumVersion\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"websocket\"],\"id\":\"1\"}]");
        String reply = conn.readTextBlocking();
        conn.clientId = LeanScan.field(reply, "clientId");
        if (conn.clientId == null || !reply.contains("\"successful\":true")) {
            channel.close();
            throw new IOException("lean client: handshake failed: " + reply);
        }
        conn.send("[{\"channel\":\"/meta/connect\",\"clientId\":\"" + conn.clientId
                + "\",\"connectionType\":\"websocket\",\"advice\":{\"timeout\":0},\"id\":\"2\"}]");
        conn.readTextBlocking();
        conn.send("[{\"channel\":\"/meta/subscribe\",\"clientId\":\"" + conn.clientId + "\",\"subscription\":\"" + room
                + "\",\"id\":\"3\"}]");
        String subscribed = conn.readTextBlocking();
        if (!subscribed.contains("\"successful\":true")) {
            channel.close();
            throw new IOException("lean client: subscribe failed: " + subscribed);
        }
        conn.sendConnect();
        return conn;
    }

    private void readLoop() {
        ByteBuffer buffer = ByteBuffer.allocateDirect(256 * 1024);
        while (running) {
            try {
                selector.select(100);
                for (SelectionKey key : selector.selectedKeys()) {
                    Conn conn = (Conn) key.attachment();
                    buffer.clear();
                    int read = conn.channel.read(buffer);
                    if (read < 0) {
                        key.cancel();
                        continue;
                    }
                    buffer.flip();
                    conn.onBytes(buffer, System.nanoTime());
                }
                selector.selectedKeys().clear();
            } catch (IOException x) {
                if (running) {
                    System.err.println("lean client: " + x);
                }
            }
        }
    }

    @Override
    public void close() {
        running = false;
        try {
            reader.join(TimeUnit.SECONDS.toMillis(2));
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        }
        for (Conn conn : conns) {
            try {
                conn.channel.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        try {
            selector.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    /** One websocket: its frame parser state (selector thread) and its writes (any thread, under its lock). */
    private final class Conn {
        final SocketChannel channel;
        String clientId;
        /** Bytes of an incomplete frame carried over to the next read. */
        private byte[] partial = new byte[0];

        Conn(SocketChannel channel) {
            this.channel = channel;
        }

        void sendConnect() {
            send("[{\"channel\":\"/meta/connect\",\"clientId\":\"" + clientId + "\",\"connectionType\":\"websocket\"}]");
        }

        /** Sends one masked text frame (zero mask key). */
        void send(String text) {
            byte[] payload = text.getBytes(StandardCharsets.UTF_8);
            ByteBuffer frame = ByteBuffer.allocate(payload.length + 14);
            frame.put((byte) 0x81);
            if (payload.length < 126) {
                frame.put((byte) (0x80 | payload.length));
            } else if (payload.length < 65536) {
                frame.put((byte) (0x80 | 126)).putShort((short) payload.length);
            } else {
                frame.put((byte) (0x80 | 127)).putLong(payload.length);
            }
            frame.putInt(0).put(payload).flip();
            write(frame);
        }

        /** Writes one whole frame; frames from the publishing thread and the selector thread never interleave. */
        private synchronized void write(ByteBuffer frame) {
            try {
                LeanScan.writeFully(channel, frame);
            } catch (IOException x) {
                throw new IllegalStateException("lean client: write failed: " + x.getMessage(), x);
            }
        }

        /** Reads the HTTP response to the upgrade, blocking, byte by byte up to the blank line; returns its status line. */
        String readUpgradeResponse() throws IOException {
            StringBuilder head = new StringBuilder();
            ByteBuffer one = ByteBuffer.allocate(1);
            while (!head.toString().endsWith("\r\n\r\n")) {
                one.clear();
                if (channel.read(one) < 0) {
                    throw new IOException("lean client: closed during the upgrade");
                }
                head.append((char) one.get(0));
            }
            return head.substring(0, head.indexOf("\r\n"));
        }

        /** Reads one whole text frame, blocking (setup only). */
        String readTextBlocking() throws IOException {
            ByteBuffer header = ByteBuffer.allocate(2);
            readFully(header);
            int opcode = header.get(0) & 0x0F;
            long length = header.get(1) & 0x7F;
            if (length == 126) {
                ByteBuffer ext = ByteBuffer.allocate(2);
                readFully(ext);
                length = ext.getShort(0) & 0xFFFF;
            } else if (length == 127) {
                ByteBuffer ext = ByteBuffer.allocate(8);
                readFully(ext);
                length = ext.getLong(0);
            }
            ByteBuffer payload = ByteBuffer.allocate((int) length);
            readFully(payload);
            if (opcode != 1) {
                throw new IOException("lean client: expected a text frame during setup, got opcode " + opcode);
            }
            return new String(payload.array(), StandardCharsets.UTF_8);
        }

        private void readFully(ByteBuffer buffer) throws IOException {
            while (buffer.hasRemaining()) {
                if (channel.read(buffer) < 0) {
                    throw new IOException("lean client: closed during setup");
                }
            }
        }

        /** Parses what was read (selector thread): whole frames now, the rest kept for the next read. */
        void onBytes(ByteBuffer read, long now) {
            byte[] bytes;
            int length;
            if (partial.length == 0) {
                bytes = new byte[read.remaining()];
                read.get(bytes);
                length = bytes.length;
            } else {
                bytes = new byte[partial.length + read.remaining()];
                System.arraycopy(partial, 0, bytes, 0, partial.length);
                read.get(bytes, partial.length, read.remaining());
                length = bytes.length;
            }
            int at = 0;
            while (length - at >= 2) {
                int opcode = bytes[at] & 0x0F;
                int header = 2;
                long payload = bytes[at + 1] & 0x7F;
                if (payload == 126) {
                    if (length - at < 4) {
                        break;
                    }
                    payload = ((bytes[at + 2] & 0xFF) << 8) | (bytes[at + 3] & 0xFF);
                    header = 4;
                } else if (payload == 127) {
                    if (length - at < 10) {
                        break;
                    }
                    payload = ByteBuffer.wrap(bytes, at + 2, 8).getLong();
                    header = 10;
                }
                if (length - at < header + payload) {
                    break;
                }
                int start = at + header;
                int end = (int) (start + payload);
                if (opcode == 1 || opcode == 0) {
                    onText(bytes, start, end, now);
                } else if (opcode == 9) {
                    sendPong(bytes, start, end);
                }
                at = end;
            }
            partial = at == length ? new byte[0] : Arrays.copyOfRange(bytes, at, length);
        }

        private void onText(byte[] bytes, int start, int end, long now) {
            if (LeanScan.arrivals(bytes, start, end, now, arrivals, CONNECT_CHANNEL)) {
                sendConnect();
            }
        }

        private void sendPong(byte[] bytes, int start, int end) {
            int length = end - start;
            if (length >= 126) {
                return;
            }
            ByteBuffer frame = ByteBuffer.allocate(length + 6);
            frame.put((byte) 0x8A).put((byte) (0x80 | length)).putInt(0).put(bytes, start, length).flip();
            try {
                write(frame);
            } catch (IllegalStateException x) {
                System.err.println("lean client: pong failed: " + x.getMessage());
            }
        }
    }

}
