package io.weft.transport.longpoll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerSession;
import io.weft.server.testing.Await;
import io.weft.server.testing.Json;
import io.weft.server.testing.ScriptedClient;
import io.weft.transport.common.PollingTransport;
import io.weft.transport.longpoll.testing.Browser;
import io.weft.transport.longpoll.testing.HttpWire;
import io.weft.transport.longpoll.testing.Reply;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
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
        start(options, LongPollingServlet.STALL_MILLIS);
    }

    private void start(ServerOptions options, long stallMillis) throws Exception {
        bayeux = BayeuxServer.create(options);
        base = Files.createTempDirectory("weft-tomcat");
        tomcat = new Tomcat();
        tomcat.setBaseDir(base.toString());
        Connector connector = new Connector();
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        tomcat.setConnector(connector);
        Context context = tomcat.addContext("", base.toString());
        Wrapper servlet = Tomcat.addServlet(context, "bayeux", new LongPollingServlet(bayeux,
                PollingTransport.BODY_MILLIS, PollingTransport.IDLE_GRACE_MILLIS, stallMillis));
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

    private ScriptedClient client() {
        return HttpWire.client(new Browser(HTTP.client(), uri));
    }

    @Test
    void aHeldConnectIsAnsweredByAPublishOnAnotherClient() throws Exception {
        start(ServerOptions.defaults());
        ScriptedClient subscriber = client();
        ScriptedClient publisher = client();
        assertEquals(true, subscriber.handshake().get("successful"));
        assertEquals(true, subscriber.connectNow().get(0).get("successful"));
        assertEquals(true, subscriber.subscribe("/tomcat/news").get("successful"));
        publisher.handshake();

        CompletableFuture<String> held = subscriber.heldConnect();
        // the wire fails on any status but 200
        assertEquals(true, publisher.publishJson("/tomcat/news", "{\"text\":\"hello from tomcat\"}").get(0)
                .get("successful"));

        String answered = held.get(10, TimeUnit.SECONDS);
        List<Map<String, Object>> delivered = Json.array(answered).stream()
                .filter(message -> "/tomcat/news".equals(message.get("channel"))).toList();
        assertEquals(1, delivered.size(), answered);
        assertEquals(Map.of("text", "hello from tomcat"), delivered.get(0).get("data"));
    }

    @Test
    void aHeldConnectIsAnsweredWhenItsTimeoutEnds() throws Exception {
        start(ServerOptions.builder().timeout(500).build());
        ScriptedClient client = client();
        client.handshake();
        client.connectNow();

        long started = System.nanoTime();
        String answered = client.heldConnect().get(10, TimeUnit.SECONDS);
        long heldMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

        assertEquals(true, Json.array(answered).get(0).get("successful"), answered);
        assertTrue(heldMillis >= 400, "held for the timeout, not answered at once: " + heldMillis + " ms");
    }

    @Test
    void aClientThatGoesAwayWhileHeldLeavesTheServerServingOthers() throws Exception {
        start(ServerOptions.defaults());
        ScriptedClient leaving = client();
        leaving.handshake();
        leaving.connectNow();
        CompletableFuture<String> parked = leaving.heldConnect();
        Await.until(Duration.ofSeconds(5), () -> bayeux.getSession(leaving.clientId()) != null && !parked.isDone(), "the connect is held");
        leaving.wire().close(); // the tab closed: its held request is aborted
        Await.until(Duration.ofSeconds(5), parked::isDone, "the client gave the request up");

        ScriptedClient staying = client();
        assertEquals(true, staying.handshake().get("successful"));
        assertEquals(true, staying.connectNow().get(0).get("successful"));
    }

    /**
     * Tomcat does not read a connection while its request is held asynchronously, so it never reports a client that
     * closed it: a message published then resumed the held poll into the dead connection and was lost (issue 28).
     */
    @Test
    void aMessagePublishedAfterTheClientLeftItsHeldPollWaitsForItsReturn() throws Exception {
        start(ServerOptions.defaults());
        Browser browser = new Browser(HTTP.client(), uri);
        ScriptedClient tab = HttpWire.client(browser);
        tab.handshake();
        tab.connectNow();
        tab.subscribe("/tomcat/news");
        CompletableFuture<String> parked = tab.heldConnect();
        Await.until(Duration.ofSeconds(5), () -> bayeux.getStats().heldConnects(), n -> n == 1, "the connect is held");
        tab.wire().close(); // the tab closed: the browser closes the held request's connection
        Await.until(Duration.ofSeconds(5), parked::isDone, "the client gave the request up");
        Await.until(Duration.ofSeconds(10), () -> bayeux.getStats().heldConnects(), n -> n == 0,
                "the server noticed that the client went away");

        bayeux.createChannelIfAbsent("/tomcat/news").publish(null, "while away");
        ScriptedClient reloaded = HttpWire.client(browser).resume(tab.clientId());
        List<Map<String, Object>> replies = reloaded.connectNow();
        assertEquals(List.of("/tomcat/news", "/meta/connect"), replies.stream().map(m -> m.get("channel")).toList(),
                replies.toString());
        assertEquals("while away", replies.get(0).get("data"));
    }

    /** WARs, Tomcat and Spring Boot stream too: eventsource is offered, and served with non-blocking writes. */
    @Test
    void eventsourceIsOfferedAndStreamed() throws Exception {
        start(ServerOptions.builder().eventSourceHeartbeat(200).build());
        Browser browser = new Browser(HTTP.client(), uri);
        Map<String, Object> handshake = browser.send(browser.post(Browser.HANDSHAKE)).message();
        assertEquals(List.of("long-polling", "callback-polling", "eventsource"),
                handshake.get("supportedConnectionTypes"), handshake.toString());
        try (StreamPage page = new StreamPage(HTTP.client(), uri).handshake(null).openAsFaye()) {
            assertEquals(200, page.stream.status());
            assertEquals("[]", page.connect("advice", Map.of("timeout", 0)).body());
            assertEquals(true, page.take("/meta/connect", "the connect's reply, on the stream").get("successful"));
            page.post(page.message("/meta/subscribe", "subscription", "/tomcat/news"));
            page.connect();
            Await.until(Duration.ofSeconds(5), () -> bayeux.getStats().heldConnects(), n -> n == 1,
                    "the connect is held on the stream");
            bayeux.createChannelIfAbsent("/tomcat/news").publish(null, "streamed");
            assertEquals("streamed", page.take("/tomcat/news", "the delivery, pushed on the stream").get("data"));
            Await.until(Duration.ofSeconds(5), page.stream::comments, n -> n >= 5, "heartbeats every 200 ms");
            assertEquals(1, bayeux.getStats().heldConnects(), "pushes and heartbeats leave the connect held");
        }
    }

    /**
     * The stall bound: a stream whose client stops reading is given up once a write has waited {@code stallMillis}
     * (Tomcat's own write timeout is its connection timeout, 60 s), and what it was sent meanwhile waited in the
     * session's queue, bounded by {@code maxQueue}.
     */
    @Test
    void aStreamThatIsNotReadIsClosedWithinTheStallBound() throws Exception {
        start(ServerOptions.builder().maxQueue(50).build(), 1000);
        StreamPage page = new StreamPage(HTTP.client(), uri).handshake(null);
        String head = "GET " + uri.getRawPath() + "/" + page.clientId + " HTTP/1.1\r\nHost: 127.0.0.1:" + uri.getPort()
                + "\r\nAccept: text/event-stream\r\nCookie: " + page.cookieHeader() + "\r\n\r\n";
        try (Socket socket = new Socket()) {
            socket.setReceiveBufferSize(4096);
            socket.connect(new InetSocketAddress("127.0.0.1", uri.getPort()), 5000);
            socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            // The stream is attached once its head and first comment arrive; nothing more is read.
            socket.setSoTimeout(5000);
            String opened = readUntil(socket, "\r\n\r\n");
            assertTrue(opened.startsWith("HTTP/1.1 200"), opened);
            page.post(page.message("/meta/subscribe", "subscription", "/firehose"));
            page.connect("advice", Map.of("timeout", 0));
            page.connect();
            Await.until(Duration.ofSeconds(5), () -> bayeux.getStats().heldConnects(), n -> n == 1,
                    "the connect is held on the stream");
            String kilobytes = "x".repeat(16 * 1024);
            ServerSession session = bayeux.getSession(page.clientId);
            for (int i = 0; i < 2000 && bayeux.getStats().heldConnects() == 1; i++) {
                bayeux.createChannelIfAbsent("/firehose").publish(null, kilobytes + i);
                assertTrue(session.getQueueSize() <= 50, "bounded by maxQueue: " + session.getQueueSize());
            }
            Await.until(Duration.ofSeconds(10), () -> bayeux.getStats().heldConnects(), n -> n == 0,
                    "the stalled write was given up and the stream closed");
            assertTrue(session.getDroppedMessages() > 0, "what did not fit was dropped and counted");
        }
    }

    /** Reads {@code socket} byte by byte up to and including {@code end}. */
    private static String readUntil(Socket socket, String end) throws java.io.IOException {
        StringBuilder read = new StringBuilder();
        while (!read.toString().endsWith(end)) {
            int c = socket.getInputStream().read();
            if (c < 0) {
                break;
            }
            read.append((char) c);
        }
        return read.toString();
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
