package io.weft.transport.longpoll.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.testing.Json;
import io.weft.server.testing.Snippets;
import io.weft.transport.longpoll.LongPollingServlet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.ee11.webapp.WebAppContext;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.server.NetworkConnector;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The module README shows the mounts exactly as compiled here, and each mount serves long-polling. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MountExamplesTest {
    private static final Path README = Path.of("README.md");
    private static final Path EXAMPLES = Path.of("src/test/java/io/weft/transport/longpoll/examples");
    private static final Path WEB_XML = Path.of("src/test/resources/webapp/WEB-INF/web.xml");
    private static final Pattern XML_TAG =
            Pattern.compile("<!-- tag::([a-z-]+)\\[] -->\\n(.*?)\\n\\s*<!-- end::\\1\\[] -->", Pattern.DOTALL);

    private HttpClient http;
    private Server server;
    private BayeuxServer bayeux;

    @BeforeEach
    void startClient() throws Exception {
        http = new HttpClient();
        http.setFollowRedirects(false);
        http.start();
    }

    @AfterEach
    void stop() throws Exception {
        http.stop();
        if (server != null) {
            server.stop();
        }
        if (bayeux != null) {
            bayeux.close();
        }
    }

    @Test
    void readmeShowsEverySnippetAsCompiled() throws IOException {
        Map<String, String> snippets = new LinkedHashMap<>();
        for (String file : List.of("EmbeddedHandlerMount.java", "EmbeddedServletMount.java", "WarListener.java")) {
            snippets.putAll(Snippets.fenced(Snippets.JAVA_TAG, Files.readString(EXAMPLES.resolve(file)), "java"));
        }
        snippets.putAll(Snippets.fenced(XML_TAG, Files.readString(WEB_XML), "xml"));
        assertEquals(List.of("handler", "servlet", "listener", "web-xml"), List.copyOf(snippets.keySet()));
        String readme = Files.readString(README);
        snippets.forEach((name, block) -> assertTrue(readme.contains(block),
                "README.md does not show snippet '" + name + "' as compiled:\n" + block));
    }

    @Test
    void embeddedHandlerServesLongPolling() throws Exception {
        bayeux = BayeuxServer.create(ServerOptions.defaults());
        server = EmbeddedHandlerMount.start(bayeux, 0);

        String clientId = handshake("/cometd");

        assertNotNull(bayeux.getSession(clientId));
    }

    @Test
    void servletInAServletContextServesLongPolling() throws Exception {
        bayeux = BayeuxServer.create(ServerOptions.defaults());
        server = EmbeddedServletMount.start(bayeux, 0);

        String clientId = handshake("/cometd");

        assertNotNull(bayeux.getSession(clientId));
    }

    @Test
    void warServletServesTheServerItsListenerCreated() throws Exception {
        server = new Server(0);
        WebAppContext webapp = new WebAppContext();
        webapp.setContextPath("/chat");
        webapp.setBaseResourceAsPath(Path.of("src/test/resources/webapp"));
        webapp.setParentLoaderPriority(true);
        server.setHandler(webapp);
        server.start();

        Map<String, Object> reply = handshakeReply("/chat/cometd");

        BayeuxServer fromListener = (BayeuxServer) webapp.getServletContext()
                .getAttribute(LongPollingServlet.BAYEUX_SERVER_ATTRIBUTE);
        assertNotNull(fromListener.getSession((String) reply.get("clientId")));
        assertEquals(25_000, ((Map<?, ?>) reply.get("advice")).get("timeout"), "the listener's options");
    }

    @Test
    void servletWithoutAServerCreatesOneAndPublishesIt() throws Exception {
        server = new Server(0);
        ServletContextHandler context = new ServletContextHandler("/");
        ServletHolder holder = new ServletHolder(LongPollingServlet.class);
        holder.setAsyncSupported(true);
        holder.setInitOrder(1);
        context.addServlet(holder, "/cometd/*");
        server.setHandler(context);
        server.start();

        String clientId = handshake("/cometd");

        BayeuxServer created = (BayeuxServer) context.getServletContext()
                .getAttribute(LongPollingServlet.BAYEUX_SERVER_ATTRIBUTE);
        assertNotNull(created.getSession(clientId));
    }

    private String handshake(String path) throws Exception {
        return (String) handshakeReply(path).get("clientId");
    }

    private Map<String, Object> handshakeReply(String path) throws Exception {
        int port = ((NetworkConnector) server.getConnectors()[0]).getLocalPort();
        ContentResponse response = http.newRequest("http://127.0.0.1:" + port + path).method(HttpMethod.POST)
                .body(new StringRequestContent("application/json", "[{\"channel\":\"/meta/handshake\","
                        + "\"version\":\"1.0\",\"supportedConnectionTypes\":[\"long-polling\"]}]"))
                .timeout(10, TimeUnit.SECONDS).send();
        assertEquals(200, response.getStatus(), response.getContentAsString());
        Map<String, Object> reply = Json.array(response.getContentAsString()).get(0);
        assertEquals(true, reply.get("successful"), reply.toString());
        return reply;
    }
}
