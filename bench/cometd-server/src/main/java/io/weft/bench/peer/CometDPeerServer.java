package io.weft.bench.peer;

import jakarta.servlet.ServletContext;
import java.util.Map;
import org.cometd.bayeux.server.BayeuxServer;
import org.cometd.server.BayeuxServerImpl;
import org.cometd.server.http.jakarta.CometDServlet;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.Context;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.websocket.server.WebSocketUpgradeHandler;

/**
 * CometD 9 on Jetty 12.1 for the benchmark scripts only: websocket (CometD's Jetty-native transport) and
 * long-polling (CometD's Servlet) on {@code /cometd}, with CometD's defaults apart from the settings Weft's load server
 * also uses (timeout 20 s, maxInterval 10 s). Prints {@code READY port=<n>} once listening; stops on SIGTERM.
 *
 * <pre>java -cp ... io.weft.bench.peer.CometDPeerServer [port] [maxThreads]</pre>
 */
public final class CometDPeerServer {
    private CometDPeerServer() {
    }

    public static void main(String[] args) throws Exception {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 0;
        int maxThreads = args.length > 1 ? Integer.parseInt(args[1]) : 256;

        QueuedThreadPool threads = new QueuedThreadPool(maxThreads);
        threads.setName("cometd-peer");
        Server jetty = new Server(threads);
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("0.0.0.0");
        connector.setPort(port);
        jetty.addConnector(connector);

        ServletContextHandler context = new ServletContextHandler("/");
        WebSocketUpgradeHandler upgrades = WebSocketUpgradeHandler.from(jetty, context);
        context.insertHandler(upgrades);
        ServletHolder cometd = new ServletHolder(CometDServlet.class);
        cometd.setAsyncSupported(true);
        cometd.setInitOrder(-1);
        context.addServlet(cometd, "/cometd/*");
        jetty.setHandler(context);
        jetty.setStopAtShutdown(true);
        jetty.start();

        BayeuxServerImpl bayeux = new BayeuxServerImpl();
        bayeux.setOptions(Map.of(
                BayeuxServerImpl.TRANSPORTS_OPTION, "org.cometd.server.websocket.jetty.JettyWebSocketTransport,"
                        + "org.cometd.server.http.JSONHttpTransport",
                "cometdURLMapping", "/cometd/*",
                "timeout", "20000",
                "maxInterval", "10000"));
        bayeux.setOption(Context.class.getName(), context.getContext());
        bayeux.setOption(ServletContext.class.getName(), context.getServletContext());
        bayeux.start();
        context.getServletContext().setAttribute(BayeuxServer.ATTRIBUTE, bayeux);

        System.out.println("READY port=" + connector.getLocalPort() + " transports=" + bayeux.getAllowedTransports());
        System.out.flush();
        jetty.join();
    }
}
