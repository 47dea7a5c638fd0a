package io.weft.load.floor;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The floor of the performance benchmarks (issue 18): what this machine charges to carry the chat load when the server
 * does as little as a Bayeux server can. Plain NIO, one selector thread per core, no framework: it answers handshakes,
 * subscribes and connects with canned replies, keeps a room's members in a list, and writes each publish to them as
 * the same bytes (a websocket frame built once per publish, or a long-poll response holding it), so that what the
 * load costs it is the kernel, the sockets and a JSON scan, and nothing of a real server's generality: no channel tree
 * or wildcards, no extensions, no security, no bounded queues, no session expiry, one path, no JSONP.
 *
 * <p>It speaks enough Bayeux for the load tool's clients (the library client over websocket and long-polling, and the
 * lean websocket client); it is a measuring instrument, not a server: it takes loopback connections only, for the
 * bench scripts.
 *
 * <pre>java -cp &lt;bench's classpath&gt; io.weft.load.floor.FloorServer --port=0</pre>
 * prints {@code READY port=<n>} once listening and stops on SIGINT/SIGTERM.
 */
@Command(name = "FloorServer", mixinStandardHelpOptions = true, sortOptions = false,
        description = "The benchmarks' floor: the chat load carried by plain NIO with canned Bayeux replies.")
public final class FloorServer implements Callable<Integer>, AutoCloseable {
    @Option(names = "--port", defaultValue = "8080", description = "Port to listen on; 0 picks a free one [${DEFAULT-VALUE}].")
    int port;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Address to bind [${DEFAULT-VALUE}].")
    String host;

    @Option(names = "--threads", defaultValue = "0",
            description = "Selector threads; 0: one per core [${DEFAULT-VALUE}].")
    int threads;

    private final FloorBayeux bayeux = new FloorBayeux();
    private final List<FloorLoop> loops = new ArrayList<>();
    private ServerSocketChannel acceptor;
    private Thread acceptThread;
    private volatile boolean closed;

    public static void main(String[] args) {
        System.exit(new CommandLine(new FloorServer()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        start();
        System.out.println("READY port=" + port());
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            close();
            stopped.countDown();
        }, "floor-shutdown"));
        stopped.await();
        return 0;
    }

    /** Starts listening on {@code host:port}; {@link #port()} is the port bound. */
    public FloorServer start(String host, int port, int threads) throws IOException {
        this.host = host;
        this.port = port;
        this.threads = threads;
        return start();
    }

    private FloorServer start() throws IOException {
        int count = threads > 0 ? threads : Runtime.getRuntime().availableProcessors();
        for (int i = 0; i < count; i++) {
            FloorLoop loop = new FloorLoop(i, bayeux);
            loops.add(loop);
            loop.start();
        }
        acceptor = ServerSocketChannel.open();
        acceptor.bind(new InetSocketAddress(host, port), 1024);
        acceptThread = new Thread(this::accept, "floor-accept");
        acceptThread.setDaemon(true);
        acceptThread.start();
        return this;
    }

    public int port() {
        return acceptor.socket().getLocalPort();
    }

    /** The sessions handshaken and not disconnected. */
    public int sessions() {
        return bayeux.sessions();
    }

    private void accept() {
        int next = 0;
        try (Selector selector = Selector.open()) {
            acceptor.configureBlocking(false);
            acceptor.register(selector, SelectionKey.OP_ACCEPT);
            while (!closed) {
                selector.select(500);
                selector.selectedKeys().clear();
                SocketChannel socket;
                while ((socket = acceptor.accept()) != null) {
                    if (socket.getRemoteAddress() instanceof InetSocketAddress remote
                            && remote.getAddress().isLoopbackAddress()) {
                        loops.get(next++ % loops.size()).adopt(socket);
                    } else {
                        FloorLoop.closeQuietly(socket); // a measuring instrument for this machine's own load
                    }
                }
            }
        } catch (IOException x) {
            if (!closed) {
                System.err.println("floor: accepting failed: " + x);
            }
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            acceptor.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        for (FloorLoop loop : loops) {
            loop.close();
        }
    }
}
