package io.weft.transport.websocket;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.transport.longpoll.LongPollingServlet;
import io.weft.transport.websocket.examples.WarListener;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.catalina.Context;
import org.apache.catalina.Wrapper;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.websocket.server.WsSci;

/**
 * Weft as a web application in a real Tomcat 11 (embedded, on 127.0.0.1 and port 0), wired as a WAR's {@code web.xml}
 * wires it: the module README's listener ({@link WarListener}: the Bayeux server in the context, websocket mounted
 * with {@code WebSocketServletMount}) and {@link LongPollingServlet} on {@code /cometd/*}, asynchronous, finding the
 * server in the context. Tomcat's own Jakarta WebSocket container ({@link WsSci}) serves the sockets.
 */
final class TomcatServer implements BayeuxHost {
    private final Path base;
    private final Tomcat tomcat;
    private final Context context;
    private final int port;

    private TomcatServer(Consumer<Context> application, Consumer<Connector> tune) throws Exception {
        this(null, application, tune);
    }

    /** @param options the Bayeux server's options, or null for the defaults as a WAR's declared listener has them */
    private TomcatServer(ServerOptions options, Consumer<Context> application, Consumer<Connector> tune)
            throws Exception {
        base = Files.createTempDirectory("weft-tomcat");
        tomcat = new Tomcat();
        tomcat.setBaseDir(base.toString());
        Connector connector = new Connector();
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        tune.accept(connector);
        tomcat.setConnector(connector);
        context = tomcat.addContext("", base.toString());
        context.addServletContainerInitializer(new WsSci(), null);
        if (options == null) {
            context.addApplicationListener(WarListener.class.getName());
        } else {
            // The listener with options of its own, run as a declared one runs (one added by code may not mount
            // endpoints): from an initializer after Tomcat's WsSci, which makes the websocket container.
            WarListener listener = new WarListener(options);
            context.addServletContainerInitializer((classes, servletContext) -> {
                listener.contextInitialized(new ServletContextEvent(servletContext));
                servletContext.addListener(new ServletContextListener() {
                    @Override
                    public void contextDestroyed(ServletContextEvent event) {
                        listener.contextDestroyed(event);
                    }
                });
            }, null);
        }
        Wrapper polling = Tomcat.addServlet(context, "bayeux", LongPollingServlet.class.getName());
        polling.setAsyncSupported(true);
        polling.setLoadOnStartup(1);
        context.addServletMappingDecoded("/cometd/*", "bayeux");
        application.accept(context);
        tomcat.start();
        port = connector.getLocalPort();
    }

    /** A Tomcat serving Weft with the default options, as the WAR listener makes it. */
    static TomcatServer start() throws Exception {
        return new TomcatServer(context -> { }, connector -> { });
    }

    /** A Tomcat serving Weft with {@code options}. */
    static TomcatServer start(ServerOptions options) throws Exception {
        return new TomcatServer(options, context -> { }, connector -> { });
    }

    /** As {@link #start()}, with more of a web application's declarations ({@code application} adds them). */
    static TomcatServer start(Consumer<Context> application) throws Exception {
        return new TomcatServer(application, connector -> { });
    }

    /** As {@link #start(Consumer)}, with a connector that {@code tune} may change first (socket buffers, say). */
    static TomcatServer start(Consumer<Context> application, Consumer<Connector> tune) throws Exception {
        return new TomcatServer(application, tune);
    }

    @Override
    public BayeuxServer bayeux() {
        return (BayeuxServer) context.getServletContext().getAttribute(LongPollingServlet.BAYEUX_SERVER_ATTRIBUTE);
    }

    @Override
    public URI wsUri() {
        return URI.create("ws://127.0.0.1:" + port + "/cometd");
    }

    @Override
    public URI httpUri() {
        return URI.create("http://127.0.0.1:" + port + "/cometd");
    }

    @Override
    public void close() throws Exception {
        try {
            tomcat.stop();
            tomcat.destroy();
        } finally {
            try (Stream<Path> files = Files.walk(base)) {
                files.sorted(Comparator.reverseOrder()).forEach(TomcatServer::delete);
            }
        }
    }

    private static void delete(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException x) {
            // a temporary directory: what cannot be deleted now is left to the system
        }
    }
}
