package io.weft.transport.websocket;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.transport.longpoll.LongPollingServlet;
import io.weft.transport.websocket.examples.WarListener;
import java.net.URI;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.ee11.websocket.jakarta.server.config.JakartaWebSocketServletContainerInitializer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * Weft as a web application on Jetty's ee11 Servlet container (127.0.0.1, port 0), wired as {@link TomcatServer}
 * wires it in Tomcat: the module README's listener ({@link WarListener}: the Bayeux server in the context, websocket
 * mounted through Jetty's Jakarta {@code ServerContainer}) and {@link LongPollingServlet} on {@code /cometd/*},
 * asynchronous, finding the server in the context.
 */
final class JettyWebApp implements BayeuxHost {
    private final Server jetty;
    private final ServletContextHandler context;

    private JettyWebApp(ServerOptions options) throws Exception {
        jetty = new Server();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        jetty.addConnector(connector);
        context = new ServletContextHandler("/");
        JakartaWebSocketServletContainerInitializer.configure(context, null);
        context.addEventListener(new WarListener(options));
        ServletHolder polling = new ServletHolder(LongPollingServlet.class);
        polling.setAsyncSupported(true);
        polling.setInitOrder(1);
        context.addServlet(polling, "/cometd/*");
        jetty.setHandler(context);
        jetty.start();
    }

    static JettyWebApp start(ServerOptions options) throws Exception {
        return new JettyWebApp(options);
    }

    @Override
    public BayeuxServer bayeux() {
        return (BayeuxServer) context.getServletContext().getAttribute(LongPollingServlet.BAYEUX_SERVER_ATTRIBUTE);
    }

    private int port() {
        return ((ServerConnector) jetty.getConnectors()[0]).getLocalPort();
    }

    @Override
    public URI wsUri() {
        return URI.create("ws://127.0.0.1:" + port() + "/cometd");
    }

    @Override
    public URI httpUri() {
        return URI.create("http://127.0.0.1:" + port() + "/cometd");
    }

    @Override
    public void close() throws Exception {
        jetty.stop();
    }
}
