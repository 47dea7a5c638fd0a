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
 * A TCP balancer in miniature, for tests: every connection goes to the first backend still alive (so a browser stays
 * on one node, as affinity would keep it), bytes piped both ways. {@link #kill} takes a backend out the way a crash
 * does for its clients: each of their connections is reset, and new ones go to the next backend.
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
                Integer backend = backends.stream().filter(port -> !dead.contains(port)).findFirst().orElse(null);
                if (backend == null) {
                    reset(client);
                    continue;
                }
                Socket server = new Socket();
                server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), backend), 2000);
                open.put(client, backend);
                open.put(server, backend);
                pipe(client, server);
                pipe(server, client);
            } catch (IOException x) {
                // closed, or a backend refused: the client sees its connection fail
            }
        }
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
