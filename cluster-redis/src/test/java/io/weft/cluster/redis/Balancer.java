package io.weft.cluster.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP balancer in miniature, for tests: every connection goes to the first backend that takes it (so a browser stays
 * on one node, as affinity would keep it), bytes piped both ways. A backend whose process died refuses connections,
 * and new ones go to the next; {@link #kill} takes out one that still runs, resetting its clients' connections.
 */
final class Balancer implements AutoCloseable {
    private final ServerSocket listener;
    private final List<Integer> backends;
    private final Set<Integer> dead = ConcurrentHashMap.newKeySet();
    private final Map<Socket, Integer> open = new ConcurrentHashMap<>();

    Balancer(List<Integer> backendPorts) throws IOException {
        this.backends = List.copyOf(backendPorts);
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread accepting = new Thread(this::accept, "balancer-accept");
        accepting.setDaemon(true);
        accepting.start();
    }

    int port() {
        return listener.getLocalPort();
    }

    /**
     * Sends no new connection to the backend on {@code port}, leaving its open ones alone: what a balancer does once a
     * node's {@code /health} answers 503.
     */
    void stopRouting(int port) {
        dead.add(port);
    }

    /** Resets every connection to the backend on {@code port}; later ones go elsewhere. */
    void kill(int port) {
        dead.add(port);
        open.forEach((socket, backend) -> {
            if (backend == port) {
                reset(socket);
            }
        });
    }

    @Override
    public void close() throws IOException {
        listener.close();
        open.keySet().forEach(Balancer::reset);
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                connect(client);
            } catch (IOException x) {
                // closed
            }
        }
    }

    /** Pipes {@code client} to the first backend alive that takes the connection; resets it if none does. */
    private void connect(Socket client) {
        for (int backend : backends) {
            if (dead.contains(backend)) {
                continue;
            }
            Socket server = new Socket();
            try {
                server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), backend), 2000);
            } catch (IOException refused) {
                reset(server);
                continue; // a dead process: its port refuses
            }
            open.put(client, backend);
            open.put(server, backend);
            pipe(client, server);
            pipe(server, client);
            return;
        }
        reset(client);
    }

    private void pipe(Socket from, Socket to) {
        Thread pump = new Thread(() -> {
            byte[] buffer = new byte[8192];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, read);
                    out.flush();
                }
            } catch (IOException closed) {
                // either side went away
            } finally {
                open.remove(from);
                open.remove(to);
                reset(from);
                reset(to);
            }
        }, "balancer-pipe");
        pump.setDaemon(true);
        pump.start();
    }

    private static void reset(Socket socket) {
        try {
            socket.setSoLinger(true, 0);
            socket.close();
        } catch (IOException ignored) {
            // closed already
        }
    }
}
