package io.weft.load;

import io.weft.metrics.micrometer.MetricsHandler;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.Service;
import io.weft.server.ext.AcknowledgedMessagesExtension;
import io.weft.server.ext.TimesyncExtension;
import io.weft.transport.longpoll.LongPollingConnectors;
import io.weft.transport.websocket.WeftJetty;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The server side of the load test: Weft on embedded Jetty with websocket, long-polling and callback-polling on one
 * path, the ack and timesync extensions installed for the clients that ask, and two services the load client calls
 * around each run: {@code /service/load/start} and {@code /service/load/stop}, whose answer (and console output) is
 * the server's CPU, heap and GC during the run. Prints {@code READY port=<n>} once listening; stops on SIGINT/SIGTERM
 * or when {@code exit} is typed.
 *
 * <pre>mvn -Pserver exec:exec [-Dload.args="--port=8080"]</pre>
 */
@Command(name = "LoadServer", mixinStandardHelpOptions = true, sortOptions = false,
        description = "A Weft server for the load client: websocket, long-polling and callback-polling.")
public final class LoadServer implements Callable<Integer> {
    static final String START = "/service/load/start";
    static final String STOP = "/service/load/stop";

    @Option(names = "--port", defaultValue = "8080", description = "Port to listen on; 0 picks a free one [${DEFAULT-VALUE}].")
    int port;

    @Option(names = "--host", defaultValue = "0.0.0.0", description = "Address to bind [${DEFAULT-VALUE}].")
    String host;

    @Option(names = "--context", defaultValue = "/cometd", description = "The Bayeux path [${DEFAULT-VALUE}].")
    String context;

    @Option(names = "--max-threads", defaultValue = "256", description = "Jetty's thread pool size [${DEFAULT-VALUE}].")
    int maxThreads;

    @Option(names = "--timeout", defaultValue = "20000",
            description = "How long a /meta/connect is held, ms [${DEFAULT-VALUE}].")
    long timeout;

    @Option(names = "--max-sessions-per-address", defaultValue = "1000000",
            description = "Live sessions one client address may hold: a load run comes from one machine, so far more "
                    + "than a server facing the internet allows (its default is 1000) [${DEFAULT-VALUE}].")
    int maxSessionsPerAddress;

    public static void main(String[] args) {
        System.exit(new CommandLine(new LoadServer()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Running running = start(host, port, context, maxThreads,
                ServerOptions.builder().timeout(timeout).maxSessionsPerAddress(maxSessionsPerAddress).build(), System.out);
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            running.close();
            stopped.countDown();
        }, "load-server-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        System.out.println("READY port=" + running.port());
        System.out.println("Type 'exit' (or press Ctrl+C) to stop.");
        System.out.flush();
        Thread console = new Thread(() -> readConsole(running), "load-server-console");
        console.setDaemon(true);
        console.start();
        running.awaitClosed();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            stopped.await();
        }
        System.out.println("Server stopped");
        return 0;
    }

    /** Reads commands until {@code exit}; an input that ends (a script without a terminal) leaves the server up. */
    private static void readConsole(Running running) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if ("exit".equalsIgnoreCase(line.trim()) || "quit".equalsIgnoreCase(line.trim())) {
                    running.close();
                    return;
                }
            }
        } catch (Exception x) {
            // No console: keep serving until a signal stops the server.
        }
    }

    /** Starts a load server; the caller closes it. {@code port} 0 picks a free port. */
    public static Running start(String host, int port, String context, int maxThreads, ServerOptions options,
            PrintStream out) throws Exception {
        BayeuxServer bayeux = BayeuxServer.create(options);
        bayeux.addExtension(new AcknowledgedMessagesExtension());
        bayeux.addExtension(new TimesyncExtension());
        ServerMonitor monitor = new ServerMonitor();
        bayeux.addService(START, Service.of((from, request) -> {
            monitor.start();
            out.println();
            out.println("Run started by " + from.getId());
            return Map.of("started", true);
        }));
        bayeux.addService(STOP, Service.of((from, request) -> {
            Map<String, Object> report = monitor.stop();
            ServerMonitor.lines(report).forEach(out::println);
            out.flush();
            return report;
        }));

        QueuedThreadPool threads = new QueuedThreadPool(maxThreads);
        threads.setName("load-server");
        Server jetty = new Server(threads);
        // Parked long-polls cost ~7 KB each with these settings, ~110 KB with Jetty's defaults.
        ServerConnector connector = new ServerConnector(jetty,
                new HttpConnectionFactory(LongPollingConnectors.httpConfiguration()));
        connector.setHost(host);
        connector.setPort(port);
        jetty.addConnector(connector);
        WeftJetty.mount(jetty, bayeux, context);
        jetty.insertHandler(new MetricsHandler(bayeux)); // GET /metrics, /stats, /health, in front of Weft
        jetty.setStopAtShutdown(false);
        try {
            jetty.start();
        } catch (Exception x) {
            bayeux.close();
            throw x;
        }
        return new Running(jetty, bayeux, connector.getLocalPort());
    }

    /** A started load server. */
    public static final class Running implements AutoCloseable {
        private final Server jetty;
        private final BayeuxServer bayeux;
        private final int port;
        private final CountDownLatch closed = new CountDownLatch(1);

        Running(Server jetty, BayeuxServer bayeux, int port) {
            this.jetty = jetty;
            this.bayeux = bayeux;
            this.port = port;
        }

        public int port() {
            return port;
        }

        public BayeuxServer bayeux() {
            return bayeux;
        }

        void awaitClosed() throws InterruptedException {
            closed.await();
        }

        /** Stops Jetty, then the Bayeux server. */
        @Override
        public synchronized void close() {
            if (closed.getCount() == 0) {
                return;
            }
            try {
                jetty.stop();
            } catch (Exception x) {
                System.err.println("Stopping Jetty failed: " + x);
            } finally {
                bayeux.close();
                closed.countDown();
            }
        }
    }
}
