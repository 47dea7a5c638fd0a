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
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The lean long-polling transport of the ladder ({@code --transport=lean-long-polling}): what {@link LeanSockets} is
 * to websocket, for long-polling. Each client holds two HTTP/1.1 keep-alive connections, as a browser does: one for
 * its {@code /meta/connect} polls, one for its publishes. A poll is sent again as soon as the previous one is answered;
 * a publish made while the previous one is unanswered waits and leaves with the others that waited, in one batch (one
 * request in flight per connection, no pipelining). Responses are parsed just enough (status, {@code Content-Length}
 * or chunked, the {@code BAYEUX_BROWSER} cookie) and scanned for the chat messages' {@code "t":} fields; one selector
 * thread reads everything, and a connection the server closes is opened again.
 *
 * <p>Exists because with {@code io.weft.client} on its core, long-polling ladders measured the client: it was at
 * 74–95% of its core at 10,000 msgs/s (docs/benchmarks/README.md).
 */
final class LeanPolls implements ChatLoad {
    private static final byte[] CONNECT_CHANNEL = "\"/meta/connect\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DISCONNECT_CHANNEL = "\"/meta/disconnect\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RECONNECT_HANDSHAKE = "\"reconnect\":\"handshake\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CRLF_CRLF = "\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final int MAX_RESPONSE = 16 << 20;

    private final List<Client> clients = new ArrayList<>();
    private final Selector selector;
    private final Arrivals arrivals;
    private final Thread reader;
    private final AtomicLong failures = new AtomicLong();
    private volatile boolean running = true;
    /** Set by {@link #close()}: polls are answered (the sessions disconnect) and not sent again. */
    private volatile boolean closing;
    private volatile CountDownLatch disconnected = new CountDownLatch(0);

    private LeanPolls(Arrivals arrivals) throws IOException {
        this.arrivals = arrivals;
        this.selector = Selector.open();
        this.reader = new Thread(this::readLoop, "lean-polls");
        this.reader.setDaemon(true);
    }

    /**
     * Opens {@code count} clients, client {@code i} to {@code urls[i % urls.size()]}, subscribed to room
     * {@code i % rooms}, each with its first poll sent; arrivals are reported on the selector thread.
     */
    static LeanPolls open(List<URI> urls, int count, int rooms, Arrivals arrivals) throws IOException {
        LeanPolls pool = new LeanPolls(arrivals);
        try {
            for (int i = 0; i < count; i++) {
                pool.clients.add(pool.handshake(urls.get(i % urls.size()), ChatLoad.channel(i % rooms)));
            }
            for (Client client : pool.clients) {
                client.poll.register();
                client.pub.register();
            }
        } catch (IOException | RuntimeException x) {
            pool.close();
            throw x;
        }
        pool.reader.start();
        for (Client client : pool.clients) {
            client.sendConnect();
        }
        return pool;
    }

    private Client handshake(URI url, String room) throws IOException {
        if (!url.getScheme().equals("http")) {
            throw new IllegalArgumentException("lean client: plain http only: " + url);
        }
        Client client = new Client(url);
        Response shook = client.poll.exchange("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"minimumVersion\":\"1.0\",\"supportedConnectionTypes\":[\"long-polling\"],\"id\":\"1\"}]");
        String reply = shook.text();
        client.clientId = LeanScan.field(reply, "clientId");
        if (shook.status != 200 || client.clientId == null || !reply.contains("\"successful\":true")) {
            client.close();
            throw new IOException("lean client: handshake failed: " + shook.status + " " + reply);
        }
        client.poll.exchange("[{\"channel\":\"/meta/connect\",\"clientId\":\"" + client.clientId
                + "\",\"connectionType\":\"long-polling\",\"advice\":{\"timeout\":0},\"id\":\"2\"}]");
        Response subscribed = client.pub.exchange("[{\"channel\":\"/meta/subscribe\",\"clientId\":\"" + client.clientId
                + "\",\"subscription\":\"" + room + "\",\"id\":\"3\"}]");
        if (!subscribed.text().contains("\"successful\":true")) {
            client.close();
            throw new IOException("lean client: subscribe failed: " + subscribed.text());
        }
        return client;
    }

    /** Publishes {@code {"t": sentNanos, "p": padding}} to room {@code room} from client {@code member}. */
    @Override
    public void publish(int member, int room, long sentNanos, String padding) {
        Client client = clients.get(member);
        client.publish("{\"channel\":\"" + ChatLoad.channel(room) + "\",\"clientId\":\"" + client.clientId
                + "\",\"data\":{\"t\":" + sentNanos + ",\"p\":\"" + padding + "\"}}");
    }

    private void readLoop() {
        ByteBuffer buffer = ByteBuffer.allocateDirect(256 * 1024);
        while (running) {
            try {
                selector.select(100);
                for (SelectionKey key : selector.selectedKeys()) {
                    Http http = (Http) key.attachment();
                    buffer.clear();
                    int read;
                    try {
                        read = http.channel.read(buffer);
                    } catch (IOException x) {
                        read = -1;
                    }
                    if (read < 0) {
                        key.cancel();
                        http.reopen();
                        continue;
                    }
                    buffer.flip();
                    http.onBytes(buffer, System.nanoTime());
                }
                selector.selectedKeys().clear();
            } catch (IOException | RuntimeException x) {
                if (running) {
                    failed("lean client: " + x);
                }
            }
        }
    }

    /** A failure in the middle of the run: printed (the first few), counted; the ladder sees it as messages lost. */
    private void failed(String what) {
        if (failures.incrementAndGet() <= 10) {
            System.err.println(what);
        }
    }

    /** Disconnects every session (waiting at most 5 s for the replies, as a polite client does), then closes. */
    @Override
    public void close() {
        if (reader.isAlive()) {
            closing = true;
            disconnected = new CountDownLatch(clients.size());
            for (Client client : clients) {
                client.pub.send("[{\"channel\":\"/meta/disconnect\",\"clientId\":\"" + client.clientId + "\"}]");
            }
            try {
                if (!disconnected.await(5, TimeUnit.SECONDS)) {
                    failed("lean client: " + disconnected.getCount() + " disconnects unanswered after 5 s");
                }
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
            }
        }
        running = false;
        try {
            reader.join(TimeUnit.SECONDS.toMillis(2));
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        }
        for (Client client : clients) {
            client.close();
        }
        try {
            selector.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        if (failures.get() > 0) {
            System.err.println("lean client: " + failures.get() + " failures in all");
        }
    }

    /** One simulated client: its session, its poll connection and its publish connection. */
    private final class Client {
        final URI url;
        final Http poll;
        final Http pub;
        String clientId;
        /** The {@code BAYEUX_BROWSER} cookie the server set, sent back on every request; null until set. */
        volatile String cookie;
        /** Publishes waiting for the one in flight to be answered, as a batch's elements; under the client's lock. */
        private final StringBuilder waiting = new StringBuilder();
        private boolean publishing;

        Client(URI url) throws IOException {
            this.url = url;
            this.poll = new Http(this, true);
            this.pub = new Http(this, false);
        }

        void sendConnect() {
            poll.send("[{\"channel\":\"/meta/connect\",\"clientId\":\"" + clientId
                    + "\",\"connectionType\":\"long-polling\"}]");
        }

        synchronized void publish(String message) {
            if (publishing) {
                waiting.append(waiting.length() == 0 ? "" : ",").append(message);
                return;
            }
            publishing = true;
            pub.send("[" + message + "]");
        }

        /** The publish in flight was answered (or lost with its connection): the next batch leaves, if any. */
        synchronized void published() {
            if (waiting.length() == 0) {
                publishing = false;
                return;
            }
            String batch = "[" + waiting + "]";
            waiting.setLength(0);
            pub.send(batch);
        }

        void close() {
            poll.close();
            pub.close();
        }
    }

    /** An HTTP response as parsed: its status and body. */
    private record Response(int status, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /** One HTTP/1.1 connection of a client: one request at a time; its responses parsed on the selector thread. */
    private final class Http {
        private final Client client;
        private final boolean polls;
        private SocketChannel channel;
        private SelectionKey key;
        /** What was read and not yet parsed: {@code in[0, length)}. */
        private byte[] in = new byte[8192];
        private int length;

        Http(Client client, boolean polls) throws IOException {
            this.client = client;
            this.polls = polls;
            this.channel = connect(client.url);
        }

        void register() throws IOException {
            channel.configureBlocking(false);
            key = channel.register(selector, SelectionKey.OP_READ, this);
        }

        /** Setup only, blocking: sends a request and reads its response. */
        Response exchange(String body) throws IOException {
            send(body);
            ByteBuffer buffer = ByteBuffer.allocate(8192);
            while (true) {
                Response response = parse();
                if (response != null) {
                    return response;
                }
                buffer.clear();
                if (channel.read(buffer) < 0) {
                    throw new IOException("lean client: " + client.url + " closed the connection during setup");
                }
                append(buffer.flip());
            }
        }

        void send(String body) {
            byte[] json = body.getBytes(StandardCharsets.UTF_8);
            String cookie = client.cookie;
            String head = "POST " + client.url.getRawPath() + " HTTP/1.1\r\nHost: " + client.url.getHost() + ":"
                    + client.url.getPort() + "\r\nContent-Type: application/json;charset=UTF-8\r\nContent-Length: "
                    + json.length + (cookie == null ? "" : "\r\nCookie: BAYEUX_BROWSER=" + cookie) + "\r\n\r\n";
            byte[] headBytes = head.getBytes(StandardCharsets.US_ASCII);
            ByteBuffer request = ByteBuffer.allocate(headBytes.length + json.length).put(headBytes).put(json).flip();
            try {
                synchronized (this) {
                    LeanScan.writeFully(channel, request);
                }
            } catch (IOException x) {
                // the selector sees the connection end and opens it again; what this request carried is lost
                failed("lean client: a request to " + client.url + " failed: " + x.getMessage());
            }
        }

        /** Handles each whole response read so far: arrivals reported; the next poll, or the waiting publishes, sent. */
        void onBytes(ByteBuffer read, long now) {
            append(read);
            Response response;
            while ((response = parse()) != null) {
                if (response.status != 200) {
                    failed("lean client: HTTP " + response.status + " from " + client.url + ": " + response.text());
                }
                boolean replied = LeanScan.arrivals(response.body, 0, response.body.length, now, arrivals,
                        polls ? CONNECT_CHANNEL : DISCONNECT_CHANNEL);
                if (closing) {
                    if (replied && !polls) {
                        disconnected.countDown();
                    }
                } else if (polls) {
                    if (indexOf(response.body, 0, response.body.length, RECONNECT_HANDSHAKE) >= 0) {
                        failed("lean client: the server forgot session " + client.clientId + "; it polls no more");
                        continue;
                    }
                    if (!replied) {
                        failed("lean client: a poll's response without its /meta/connect reply: " + response.text());
                    }
                    client.sendConnect();
                } else {
                    client.published();
                }
            }
        }

        /** The server closed this connection: a new one, and the request it had in flight is sent no more. */
        void reopen() {
            if (!running || closing) {
                return;
            }
            length = 0;
            try {
                SocketChannel fresh = connect(client.url);
                synchronized (this) {
                    channel.close();
                    channel = fresh;
                }
                register();
            } catch (IOException x) {
                failed("lean client: cannot reconnect to " + client.url + ": " + x.getMessage());
                return;
            }
            if (polls) {
                client.sendConnect();
            } else {
                client.published();
            }
        }

        private void append(ByteBuffer read) {
            int count = read.remaining();
            if (length + count > in.length) {
                if (length + count > MAX_RESPONSE) {
                    throw new IllegalStateException("lean client: a response over 16 MB from " + client.url);
                }
                in = Arrays.copyOf(in, Math.max(in.length * 2, length + count));
            }
            read.get(in, length, count);
            length += count;
        }

        /** The first whole response of what was read, taken out of it; null while none is whole. */
        private Response parse() {
            int headEnd = indexOf(in, 0, length, CRLF_CRLF);
            if (headEnd < 0) {
                return null;
            }
            String head = new String(in, 0, headEnd, StandardCharsets.ISO_8859_1);
            int status = Integer.parseInt(head.substring(9, 12));
            long contentLength = -1;
            boolean chunked = false;
            for (String line : head.split("\r\n")) {
                String lower = line.toLowerCase(Locale.ROOT);
                if (lower.startsWith("content-length:")) {
                    contentLength = Long.parseLong(line.substring(15).trim());
                } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                    chunked = true;
                } else if (lower.startsWith("set-cookie:") && lower.contains("bayeux_browser=")) {
                    int at = lower.indexOf("bayeux_browser=") + 15;
                    int end = line.indexOf(';', at);
                    client.cookie = line.substring(at, end < 0 ? line.length() : end).trim();
                }
            }
            int bodyStart = headEnd + 4;
            byte[] body;
            int consumed;
            if (chunked) {
                ByteBuffer decoded = ByteBuffer.allocate(length - bodyStart);
                int at = bodyStart;
                while (true) {
                    int lineEnd = indexOf(in, at, length, CRLF_CRLF, 2);
                    if (lineEnd < 0) {
                        return null;
                    }
                    String size = new String(in, at, lineEnd - at, StandardCharsets.ISO_8859_1);
                    int semicolon = size.indexOf(';');
                    int chunk = Integer.parseInt((semicolon < 0 ? size : size.substring(0, semicolon)).trim(), 16);
                    at = lineEnd + 2;
                    if (chunk == 0) {
                        int trailerEnd = indexOf(in, lineEnd, length, CRLF_CRLF);
                        if (trailerEnd < 0) {
                            return null;
                        }
                        consumed = trailerEnd + 4;
                        break;
                    }
                    if (at + chunk + 2 > length) {
                        return null;
                    }
                    decoded.put(in, at, chunk);
                    at += chunk + 2;
                }
                body = Arrays.copyOf(decoded.array(), decoded.position());
            } else {
                int size = (int) Math.max(contentLength, 0);
                if (bodyStart + size > length) {
                    return null;
                }
                body = Arrays.copyOfRange(in, bodyStart, bodyStart + size);
                consumed = bodyStart + size;
            }
            System.arraycopy(in, consumed, in, 0, length - consumed);
            length -= consumed;
            return new Response(status, body);
        }

        void close() {
            try {
                channel.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }

    private static SocketChannel connect(URI url) throws IOException {
        SocketChannel channel = SocketChannel.open();
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        channel.connect(new InetSocketAddress(url.getHost(), url.getPort()));
        return channel;
    }

    private static int indexOf(byte[] bytes, int from, int to, byte[] what) {
        return indexOf(bytes, from, to, what, what.length);
    }

    /** Where the first {@code count} bytes of {@code what} occur in {@code bytes[from, to)}, or -1. */
    private static int indexOf(byte[] bytes, int from, int to, byte[] what, int count) {
        outer:
        for (int i = from; i + count <= to; i++) {
            for (int k = 0; k < count; k++) {
                if (bytes[i + k] != what[k]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
