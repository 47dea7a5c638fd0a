package io.weft.transport.longpoll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.transport.longpoll.testing.Browser;
import io.weft.transport.longpoll.testing.Reply;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The servlet's options come from web.xml as CometD users write it: its init-parameters and the {@code weft.*}
 * context parameters, by the options' names; anything it cannot apply fails start-up, naming it.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ServletOptionsTest {
    @RegisterExtension
    static final SharedHttpClient HTTP = new SharedHttpClient();
    private Server jetty;

    @AfterEach
    void stop() throws Exception {
        if (jetty != null) {
            jetty.stop();
        }
    }

    /** A servlet context like a WAR's: context parameters, the servlet with its init-parameters, loaded on start-up. */
    private ServletHolder deploy(Map<String, String> contextParams, Map<String, String> initParams,
            BayeuxServer application) throws Exception {
        jetty = new Server();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        jetty.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/");
        contextParams.forEach(context::setInitParameter);
        if (application != null) {
            context.setAttribute(LongPollingServlet.BAYEUX_SERVER_ATTRIBUTE, application);
        }
        ServletHolder holder = new ServletHolder("bayeux", LongPollingServlet.class);
        holder.setAsyncSupported(true);
        holder.setInitOrder(1);
        initParams.forEach(holder::setInitParameter);
        context.addServlet(holder, "/cometd/*");
        jetty.setHandler(context);
        jetty.start();
        return holder;
    }

    private URI uri() {
        int port = ((ServerConnector) jetty.getConnectors()[0]).getLocalPort();
        return URI.create("http://127.0.0.1:" + port + "/cometd");
    }

    @Test
    void initParametersAndWeftContextParametersSetTheOptions() throws Exception {
        ServletHolder holder = deploy(
                Map.of("weft.maxQueue", "77", "weft.timeout", "9999", "contextConfigLocation", "not ours"),
                Map.of("timeout", "1234", "allowedOrigins", "https://a.example, https://b.example"), null);

        BayeuxServer server = ((LongPollingServlet) holder.getServlet()).getBayeuxServer();
        ServerOptions options = server.getOptions();
        assertEquals(77, options.maxQueue());
        assertEquals(1234, options.timeout(), "the servlet's own init-parameter wins over the context's");
        assertEquals(List.of("https://a.example", "https://b.example"), options.allowedOrigins());

        // and a real client is told so
        Browser browser = new Browser(HTTP.client(), uri());
        Reply reply = browser.send(browser.post(Browser.HANDSHAKE));
        assertEquals(200, reply.status());
        assertTrue(reply.body().contains("\"timeout\":1234"), reply.body());
    }

    @Test
    void anUnknownInitParameterFailsStartUpNamingIt() {
        Throwable failure = startFailure(Map.of(), Map.of("timout", "1234"), null);
        assertTrue(messages(failure).contains("timout"), messages(failure));
    }

    @Test
    void aBadValueFailsStartUpNamingTheParameter() {
        Throwable failure = startFailure(Map.of("weft.maxSessions", "lots"), Map.of(), null);
        assertTrue(messages(failure).contains("weft.maxSessions"), messages(failure));
    }

    @Test
    void initParametersOnAServletThatServesTheApplicationsServerFailStartUp() {
        BayeuxServer application = BayeuxServer.create(ServerOptions.defaults());
        try {
            Throwable failure = startFailure(Map.of(), Map.of("timeout", "1234"), application);
            assertTrue(messages(failure).contains("timeout"), messages(failure));
        } finally {
            application.close();
        }
    }

    private Throwable startFailure(Map<String, String> contextParams, Map<String, String> initParams,
            BayeuxServer application) {
        try {
            ServletHolder holder = deploy(contextParams, initParams, application);
            // Jetty may start the context and leave the servlet unavailable rather than fail the whole start
            Throwable unavailable = holder.getUnavailableException();
            assertNotNull(unavailable, "the servlet started despite " + initParams + " " + contextParams);
            return unavailable;
        } catch (Exception x) {
            return x;
        }
    }

    private static String messages(Throwable failure) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            all.append(t).append(" / ");
            for (Throwable suppressed : t.getSuppressed()) {
                all.append(suppressed).append(" / ");
            }
        }
        return all.toString();
    }
}
