package io.weft.transport.longpoll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.testing.Await;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.catalina.Context;
import org.apache.catalina.Wrapper;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Long-polling and callback-polling in a real Tomcat 11 (embedded, {@code tomcat-embed-core}), through the
 * {@link LongPollingServlet} alone, with no Jetty class on the server side of the request: held connects answered by
 * a publish or by their timeout, a client that goes away, JSONP, bad input answered with a 4xx.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TomcatTest {
    @RegisterExtension
    static final SharedHttpClient HTTP = new SharedHttpClient();
    private Tomcat tomcat;
    private BayeuxServer bayeux;
    private Path base;
    private URI uri;

    private void start(ServerOptions options) throws Exception {
        bayeux = BayeuxServer.create(options);
        base = Files.createTempDirectory("weft-tomcat");
        tomcat = new Tomcat();
        tomcat.setBaseDir(base.toString());
        Connector connector = new Connector();
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        tomcat.setConnector(connector);
        Context context = tomcat.addContext("", base.toString());
        Wrapper servlet = Tomcat.addServlet(context, "bayeux", new LongPollingServlet(bayeux));
        servlet.setAsyncSupported(true);
        context.addServletMappingDecoded("/cometd/*", "bayeux");
        tomcat.start();
        uri = URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/cometd");
    }

    @AfterEach
    void stop() throws Exception {
        if (tomcat != null) {
            tomcat.stop();
            tomcat.destroy();
        }
        if (bayeux != null) {
            bayeux.close();
        }
        if (base != null) {
            try (var files = Files.walk(base)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }

    private BayeuxConversation client() {
        return new BayeuxConversation(new Browser(HTTP.client(), uri));
    }

    @Test
    void aHeldConnectIsAnsweredByAPublishOnAnotherClient() throws Exception {
        start(ServerOptions.defaults());
        BayeuxConversation subscriber = client();
        BayeuxConversation publisher = client();
        assertEquals(true, subscriber.handshake().message().get("successful"));
        assertEquals(true, subscriber.connectNow().message().get("successful"));
        assertEquals(true, subscriber.subscribe("/tomcat/news").get("successful"));
        publisher.handshake();

        CompletableFuture<Reply> held = subscriber.connect();
        assertEquals(200, publisher.publish("/tomcat/news", "{\"text\":\"hello from tomcat\"}").status());

        Reply answered = held.get(10, TimeUnit.SECONDS);
        List<Map<String, Object>> delivered = answered.on("/tomcat/news");
        assertEquals(1, delivered.size(), answered.body());
        assertEquals(Map.of("text", "hello from tomcat"), delivered.get(0).get("data"));
    }

    @Test
    void aHeldConnectIsAnsweredWhenItsTimeoutEnds() throws Exception {
        start(ServerOptions.builder().timeout(500).build());
        BayeuxConversation client = client();
        client.handshake();
        client.connectNow();

        long started = System.nanoTime();
        Reply answered = client.connect().get(10, TimeUnit.SECONDS);
        long heldMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

        assertEquals(true, answered.message().get("successful"), answered.body());
        assertTrue(heldMillis >= 400, "held for the timeout, not answered at once: " + heldMillis + " ms");
    }

    @Test
    void aClientThatGoesAwayWhileHeldLeavesTheServerServingOthers() throws Exception {
        start(ServerOptions.defaults());
        BayeuxConversation leaving = client();
        leaving.handshake();
        leaving.connectNow();
        org.eclipse.jetty.client.Request poll = leaving.connectRequest();
        CompletableFuture<Reply> parked = leaving.browser().sendAsync(poll);
        Await.until(Duration.ofSeconds(5), () -> bayeux.getSession(leaving.clientId()) != null && !parked.isDone(), "the connect is held");
        poll.abort(new Exception("the tab closed")).get(5, TimeUnit.SECONDS);

        BayeuxConversation staying = client();
        assertEquals(true, staying.handshake().message().get("successful"));
        assertEquals(true, staying.connectNow().message().get("successful"));
    }

    @Test
    void callbackPollingAnswersWithAScript() throws Exception {
        start(ServerOptions.defaults());
        Browser browser = new Browser(HTTP.client(), uri);
        Reply reply = browser.send(browser.jsonp("_cometd_jsonp_0", "[{\"channel\":\"/meta/handshake\","
                + "\"version\":\"1.0\",\"supportedConnectionTypes\":[\"callback-polling\"]}]"));
        assertEquals(200, reply.status(), reply.body());
        assertTrue(reply.body().startsWith("_cometd_jsonp_0(["), reply.body());
        assertTrue(reply.body().contains("\"successful\":true"), reply.body());
        assertEquals("nosniff", reply.headers().get("X-Content-Type-Options"));
    }

    @Test
    void badInputIsA4xxNeverA500() throws Exception {
        start(ServerOptions.defaults());
        Browser browser = new Browser(HTTP.client(), uri);
        Reply notJson = browser.send(browser.post("{not json"));
        assertTrue(notJson.status() >= 400 && notJson.status() < 500, notJson.status() + " " + notJson.body());
        assertFalse(notJson.body().contains("Exception"), notJson.body());
        Reply badCallback = browser.send(browser.jsonp("alert(1)//", "[]"));
        assertEquals(400, badCallback.status(), badCallback.body());
    }
}
