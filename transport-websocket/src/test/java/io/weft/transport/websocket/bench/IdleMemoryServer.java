package io.weft.transport.websocket.bench;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.transport.websocket.WebSocketHandler;
import io.weft.transport.netty.WeftNetty;
import io.weft.transport.websocket.WebSocketTransport;
import io.weft.transport.websocket.examples.WarListener;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.util.function.IntSupplier;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.websocket.jakarta.server.JakartaWebSocketServerContainer;
import org.eclipse.jetty.ee11.websocket.jakarta.server.config.JakartaWebSocketServletContainerInitializer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The server JVM of {@link IdleMemoryBenchmark}: a Weft server with default options, websocket mounted as the README
 * shows (embedded, or with argument {@code servlet} the WAR mount on an ee11 Servlet context, or with {@code netty}
 * transport-netty's mount), on 127.0.0.1 and an ephemeral port. Prints {@code PORT <n>}, then answers commands on stdin:
 * {@code gc} prints {@code HEAP <bytes used after full GCs> SESSIONS <n> SOCKETS <n>}, {@code count} the same
 * without {@code HEAP} and without collecting; {@code quit} stops.
 */
public final class IdleMemoryServer {
    private IdleMemoryServer() {
    }

    /** The Netty mount (transport-netty's {@code WeftNetty}) on 127.0.0.1 and an ephemeral port. */
    private static void netty() throws Exception {
        BayeuxServer bayeux = BayeuxServer.create(unboundedPerAddress());
        WeftNetty netty = WeftNetty.on(bayeux).host("127.0.0.1").port(0).backlog(1024).start();
        System.out.println("PORT " + netty.port());
        System.out.flush();
        commands(bayeux, netty::openSockets);
        netty.close();
        bayeux.close();
    }

    /** Answers {@code count} and {@code gc} until {@code quit}. */
    private static void commands(BayeuxServer bayeux, IntSupplier sockets) throws IOException, InterruptedException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null && !line.equals("quit"); line = in.readLine()) {
            if (line.equals("count")) {
                System.out.println("SESSIONS " + bayeux.getSessions().size() + " SOCKETS "
                        + sockets.getAsInt());
                System.out.flush();
            } else if (line.equals("gc")) {
                long used = usedAfterFullGc();
                System.out.println("HEAP " + used + " SESSIONS " + bayeux.getSessions().size() + " SOCKETS "
                        + sockets.getAsInt());
                System.out.flush();
            }
        }
    }

    /** The defaults, but every client comes from 127.0.0.1: the per-address bound (1000) would refuse most. */
    private static ServerOptions unboundedPerAddress() {
        return ServerOptions.builder().maxSessionsPerAddress(Integer.MAX_VALUE)
                .maxConnectionsPerAddress(Integer.MAX_VALUE).build();
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("netty")) {
            netty();
            return;
        }
        boolean servlet = args.length > 0 && args[0].equals("servlet");
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setAcceptQueueSize(1024);
        server.addConnector(connector);
        BayeuxServer bayeux;
        IntSupplier sockets;
        if (servlet) {
            // The WAR mount: a Servlet context whose listener mounts websocket through Jetty's Jakarta container.
            ServletContextHandler context = new ServletContextHandler("/");
            JakartaWebSocketServletContainerInitializer.configure(context, null);
            context.addEventListener(new WarListener(unboundedPerAddress()));
            server.setHandler(context);
            server.start();
            bayeux = (BayeuxServer) context.getServletContext().getAttribute(BayeuxServer.class.getName());
            sockets = () -> JakartaWebSocketServerContainer.getContainer(context.getServletContext()).getOpenSessions().size();
        } else {
            bayeux = BayeuxServer.create(unboundedPerAddress());
            WebSocketHandler webSocket = WebSocketTransport.install(bayeux, server, "/cometd/*");
            server.setHandler(webSocket);
            server.start();
            sockets = webSocket::openSockets;
        }
        System.out.println("PORT " + connector.getLocalPort());
        System.out.flush();

        commands(bayeux, sockets);
        server.stop();
        bayeux.close();
    }

    /** Heap in use after full collections, the lowest of a few (a collection may still find garbage to free). */
    static long usedAfterFullGc() throws InterruptedException {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long lowest = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(200);
            lowest = Math.min(lowest, memory.getHeapMemoryUsage().getUsed());
        }
        return lowest;
    }
}
