package io.weft.examples.chat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback TCP relay in front of a server, for a browser to reach it through: every byte passes at once, both ways,
 * but for a WebSocket upgrade's {@code 101} response, which it holds back {@code delayMillis} before passing it on, as
 * a slow network path would. That is how a browser on its first visit gets its HTTP handshake's reply before its
 * socket's 101 (the first-visit race of docs/protocol.md, "Browsers"). Two threads per relayed connection; closing the
 * relay closes every connection.
 */
final class UpgradeDelayingRelay implements AutoCloseable {
    private static final byte[] SWITCHING = "HTTP/1.1 101".getBytes(StandardCharsets.US_ASCII);

    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final long delayMillis;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final AtomicInteger delayed = new AtomicInteger();
    private volatile boolean closed;

    /** Relays 127.0.0.1:{@link #port()} to 127.0.0.1:{@code targetPort}, holding back each 101 {@code delayMillis}. */
    UpgradeDelayingRelay(int targetPort, long delayMillis) throws IOException {
        this.target = new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort);
        this.delayMillis = delayMillis;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "relay-acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return listener.getLocalPort();
    }

    /** How many 101 responses were held back so far. */
    int delayedUpgrades() {
        return delayed.get();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket browser = listener.accept();
                Socket server = new Socket();
                sockets.add(browser);
                sockets.add(server);
                server.connect(target, 5000);
                pump(browser, server, false, "relay-up");
                pump(server, browser, true, "relay-down");
            } catch (IOException x) {
                // the relay is closing, or the server refused: the browser's connection is closed below
            }
        }
    }

    private void pump(Socket from, Socket to, boolean holdUpgrades, String name) {
        Thread pump = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            boolean first = true;
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    if (first && holdUpgrades && startsWith(buffer, read, SWITCHING)) {
                        delayed.incrementAndGet();
                        // The network's latency this relay plays: nothing waits on it for an outcome.
                        TimeUnit.MILLISECONDS.sleep(delayMillis);
                    }
                    first = false;
                    out.write(buffer, 0, read);
                    out.flush();
                }
            } catch (IOException | InterruptedException x) {
                // one side closed: the other goes too
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, name);
        pump.setDaemon(true);
        pump.start();
    }

    private static boolean startsWith(byte[] buffer, int length, byte[] prefix) {
        if (length < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (buffer[i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    private void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException x) {
            // already closed
        }
        sockets.remove(socket);
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        for (Socket socket : sockets) {
            closeQuietly(socket);
        }
    }
}
