package io.weft.examples.recovery;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A loopback TCP relay in front of a server whose network a test can cut: every byte passes at once both ways until
 * {@link #cut()}, which closes every relayed connection and, until {@link #restore()}, each new one as it opens (a
 * client sees its requests fail, as when its network is down). Two threads per relayed connection; closing the relay
 * closes everything.
 */
final class CuttableRelay implements AutoCloseable {
    private final ServerSocket listener;
    private volatile InetSocketAddress target;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile boolean cut;
    private volatile boolean closed;

    /** Relays 127.0.0.1:{@link #port()} to 127.0.0.1:{@code targetPort}. */
    CuttableRelay(int targetPort) throws IOException {
        this.target = new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort);
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        daemon(this::accept, "relay-accept").start();
    }

    int port() {
        return listener.getLocalPort();
    }

    /** Closes every connection, and refuses new ones until {@link #restore()}. */
    void cut() {
        cut = true;
        closeAll();
    }

    void restore() {
        cut = false;
    }

    /** Relays new connections to 127.0.0.1:{@code targetPort} from now on (as a balancer moves a dead node's). */
    void retarget(int targetPort) {
        target = new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort);
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException x) {
                continue; // closed, or one failed accept: the loop's condition decides
            }
            if (cut) {
                quietly(client);
                continue;
            }
            Socket server = new Socket();
            try {
                server.connect(target, 5000);
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
            } catch (IOException x) {
                quietly(client);
                quietly(server);
                continue;
            }
            sockets.add(client);
            sockets.add(server);
            if (cut) { // cut while this one was opening
                closeAll();
                continue;
            }
            daemon(() -> pump(client, server), "relay-up").start();
            daemon(() -> pump(server, client), "relay-down").start();
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int read;
            while ((read = in.read(buffer)) >= 0) {
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (IOException x) {
            // cut, or closed by either end
        } finally {
            sockets.remove(from);
            sockets.remove(to);
            quietly(from);
            quietly(to);
        }
    }

    private void closeAll() {
        for (Socket socket : sockets) {
            sockets.remove(socket);
            quietly(socket);
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
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        closeAll();
    }
}
