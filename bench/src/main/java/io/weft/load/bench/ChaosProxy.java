package io.weft.load.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on loopback that forwards to one target and, every {@code cutMillis}, cuts one live connection picked at
 * random (both of its sockets closed at once, as a dropped network path would be): the fault injector of the
 * {@code proxy} fault run. Two threads per connection; for the few hundred connections of a fault run.
 */
final class ChaosProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final Set<Pair> live = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService cutter = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "cutter"));
    private final SplittableRandom random = new SplittableRandom(7);
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong cuts = new AtomicLong();
    private volatile boolean cutting;
    private volatile boolean closed;

    /** Both sockets of one proxied connection. */
    private record Pair(Socket client, Socket server) {
        void close() {
            quietly(client);
            quietly(server);
        }
    }

    ChaosProxy(InetSocketAddress target, long cutMillis) throws IOException {
        this.target = target;
        this.listener = new ServerSocket(0, 1024, InetAddress.getLoopbackAddress());
        daemon(this::accept, "proxy-accept").start();
        cutter.scheduleAtFixedRate(this::cutOne, cutMillis, cutMillis, TimeUnit.MILLISECONDS);
    }

    int port() {
        return listener.getLocalPort();
    }

    /** Whether connections are being cut (off until a run starts). */
    void cutting(boolean on) {
        cutting = on;
    }

    long cuts() {
        return cuts.get();
    }

    long accepted() {
        return accepted.get();
    }

    private void cutOne() {
        if (!cutting) {
            return;
        }
        List<Pair> snapshot = new ArrayList<>(live);
        if (!snapshot.isEmpty()) {
            Pair victim = snapshot.get(random.nextInt(snapshot.size()));
            if (live.remove(victim)) {
                victim.close();
                cuts.incrementAndGet();
            }
        }
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket();
                server.connect(target, 5_000);
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                Pair pair = new Pair(client, server);
                live.add(pair);
                accepted.incrementAndGet();
                daemon(() -> pump(pair, client, server), "proxy-up").start();
                daemon(() -> pump(pair, server, client), "proxy-down").start();
            } catch (IOException x) {
                if (!closed) {
                    System.err.println("proxy: " + x);
                }
            }
        }
    }

    private void pump(Pair pair, Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int read;
            while ((read = in.read(buffer)) >= 0) {
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (IOException x) {
            // Cut, or closed by either end: the pair ends.
        } finally {
            live.remove(pair);
            pair.close();
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
            // Closing what is closing.
        }
    }

    @Override
    public void close() {
        closed = true;
        cutter.shutdownNow();
        try {
            listener.close();
        } catch (IOException ignored) {
            // Stopping.
        }
        live.forEach(Pair::close);
    }
}
