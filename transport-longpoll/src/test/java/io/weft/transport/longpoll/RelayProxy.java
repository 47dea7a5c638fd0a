package io.weft.transport.longpoll;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on loopback in front of one server, as the proxies between browsers and a server behave: it forwards
 * every byte as soon as it reads it (it buffers nothing), and, given an idle limit, cuts a connection (both sockets
 * closed at once) through which nothing has passed either way for that long, as corporate proxies and load balancers
 * do. Two threads per connection; for tests.
 */
final class RelayProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final long idleCutMillis;
    private final Set<Pair> live = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService watch = Executors.newSingleThreadScheduledExecutor(
            r -> daemon(r, "proxy-idle-watch"));
    private final AtomicLong cuts = new AtomicLong();
    private volatile boolean closed;

    /** Both sockets of one proxied connection, and when a byte last passed. */
    private static final class Pair {
        final Socket client;
        final Socket server;
        volatile long lastActive = System.nanoTime();

        Pair(Socket client, Socket server) {
            this.client = client;
            this.server = server;
        }

        void close() {
            quietly(client);
            quietly(server);
        }
    }

    /** @param idleCutMillis cut a connection idle this long; 0 never cuts */
    RelayProxy(URI target, long idleCutMillis) throws IOException {
        this.target = new InetSocketAddress(target.getHost(), target.getPort());
        this.idleCutMillis = idleCutMillis;
        this.listener = new ServerSocket(0, 64, InetAddress.getLoopbackAddress());
        daemon(this::accept, "proxy-accept").start();
        if (idleCutMillis > 0) {
            watch.scheduleAtFixedRate(this::cutIdle, 50, 50, TimeUnit.MILLISECONDS);
        }
    }

    /** {@code uri} with its host and port replaced by this proxy's. */
    URI front(URI uri) {
        return URI.create(uri.getScheme() + "://127.0.0.1:" + listener.getLocalPort() + uri.getRawPath());
    }

    /** How many connections were cut for being idle. */
    long cuts() {
        return cuts.get();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket();
                server.connect(target, 5000);
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                Pair pair = new Pair(client, server);
                live.add(pair);
                daemon(() -> pump(pair, client, server), "proxy-up").start();
                daemon(() -> pump(pair, server, client), "proxy-down").start();
            } catch (IOException x) {
                if (!closed) {
                    continue;
                }
                return;
            }
        }
    }

    private void pump(Pair pair, Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int read;
            while ((read = in.read(buffer)) >= 0) {
                pair.lastActive = System.nanoTime();
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (IOException x) {
            // cut, or closed by either end
        } finally {
            live.remove(pair);
            pair.close();
        }
    }

    private void cutIdle() {
        long now = System.nanoTime();
        for (Pair pair : live) {
            if (TimeUnit.NANOSECONDS.toMillis(now - pair.lastActive) >= idleCutMillis && live.remove(pair)) {
                cuts.incrementAndGet();
                pair.close();
            }
        }
    }

    private static Thread daemon(Runnable task, String name) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }

    private static void quietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        closed = true;
        watch.shutdownNow();
        quietly(listener);
        for (Pair pair : live) {
            pair.close();
        }
        live.clear();
    }

    private static void quietly(ServerSocket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
