package io.weft.examples.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.transport.longpoll.LongPollingServlet;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.catalina.Context;
import org.apache.catalina.Wrapper;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.websocket.server.WsSci;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The chat WAR's wiring (its listener, and the long-polling servlet as web.xml maps it) in a real Tomcat 11 context.
 * With Tomcat's WebSocket initializer, as a Tomcat deploys a WAR, a websocket user and a long-polling user chat.
 * Without it, so with the Jakarta WebSocket API but no container: the application starts, offers long-polling and
 * callback-polling (not websocket), chats over them, and leaves no thread of its own behind when Tomcat stops.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ChatWarOnTomcatTest {
    private static final Pattern CLIENT_ID = Pattern.compile("\"clientId\":\"([^\"]+)\"");
    private Tomcat tomcat;
    private Path base;

    @AfterEach
    void stop() throws Exception {
        if (tomcat != null) {
            tomcat.stop();
            tomcat.destroy();
        }
        if (base != null) {
            try (var files = Files.walk(base)) {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }

    private URI deploy() throws Exception {
        return deploy(false);
    }

    private URI deploy(boolean webSocket) throws Exception {
        base = Files.createTempDirectory("weft-tomcat-war");
        tomcat = new Tomcat();
        tomcat.setBaseDir(base.toString());
        Connector connector = new Connector();
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        tomcat.setConnector(connector);
        Context context = tomcat.addContext("", base.toString());
        if (webSocket) {
            // what Tomcat runs for every web application it deploys
            context.addServletContainerInitializer(new WsSci(), null);
        }
        // what the WAR's web.xml declares
        context.addApplicationListener(ChatWarListener.class.getName());
        Wrapper servlet = Tomcat.addServlet(context, "bayeux", LongPollingServlet.class.getName());
        servlet.setAsyncSupported(true);
        servlet.setLoadOnStartup(1);
        context.addServletMappingDecoded("/cometd/*", "bayeux");
        tomcat.start();
        return URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/cometd");
    }

    /** A browser: its own cookies, one JSON batch per POST. */
    private static final class Page {
        private final HttpClient http = HttpClient.newBuilder().cookieHandler(new CookieManager())
                .connectTimeout(Duration.ofSeconds(5)).build();
        private final URI uri;
        private String clientId;

        Page(URI uri) {
            this.uri = uri;
        }

        CompletableFuture<String> send(String batch) {
            HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                    .header("Content-Type", "application/json;charset=UTF-8")
                    .POST(HttpRequest.BodyPublishers.ofString(batch)).build();
            return http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).thenApply(response -> {
                assertEquals(200, response.statusCode(), response.body());
                return response.body();
            });
        }

        String handshake() throws Exception {
            String reply = send("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":"
                    + "[\"websocket\",\"long-polling\",\"callback-polling\"]}]").get(10, TimeUnit.SECONDS);
            Matcher id = CLIENT_ID.matcher(reply);
            assertTrue(id.find(), reply);
            clientId = id.group(1);
            return reply;
        }

        CompletableFuture<String> connect(int timeout) {
            return send("[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\""
                    + clientId + "\",\"advice\":{\"timeout\":" + timeout + "}}]");
        }

        String request(String message) throws Exception {
            return send("[" + message.replace("$ID", clientId) + "]").get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aWebSocketUserAndALongPollingUserChatOnTomcat() throws Exception {
        URI uri = deploy(true);
        Page bob = new Page(uri);
        String handshake = bob.handshake();
        assertTrue(handshake.contains("\"websocket\""), handshake);

        BlockingQueue<String> received = new LinkedBlockingQueue<>();
        WebSocket alice = HttpClient.newHttpClient().newWebSocketBuilder()
                .buildAsync(URI.create(uri.toString().replace("http:", "ws:")), new WebSocket.Listener() {
                    private final StringBuilder text = new StringBuilder();

                    @Override
                    public CompletionStage<?> onText(WebSocket socket, CharSequence data, boolean last) {
                        text.append(data);
                        if (last) {
                            received.add(text.toString());
                            text.setLength(0);
                        }
                        socket.request(1);
                        return null;
                    }
                }).get(10, TimeUnit.SECONDS);
        try {
            alice.sendText("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":"
                    + "[\"websocket\"]}]", true).get(10, TimeUnit.SECONDS);
            Matcher id = CLIENT_ID.matcher(next(received, "/meta/handshake"));
            assertTrue(id.find());
            String aliceId = id.group(1);
            alice.sendText("[{\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\",\"clientId\":\""
                    + aliceId + "\",\"advice\":{\"timeout\":0}},{\"channel\":\"/meta/subscribe\",\"clientId\":\""
                    + aliceId + "\",\"subscription\":\"/tomcat/room\"}]", true).get(10, TimeUnit.SECONDS);
            assertTrue(next(received, "/meta/subscribe").contains("\"successful\":true"));

            String published = bob.request("{\"channel\":\"/tomcat/room\",\"data\":{\"text\":\"to the socket\"},"
                    + "\"clientId\":\"$ID\"}");
            assertTrue(published.contains("\"successful\":true"), published);
            assertTrue(next(received, "to the socket").contains("/tomcat/room"));
        } finally {
            alice.abort();
        }
    }

    /** The next text received that contains {@code marker}, within 10 s; others are skipped. */
    private static String next(BlockingQueue<String> received, String marker) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            String text = received.poll(100, TimeUnit.MILLISECONDS);
            if (text != null && text.contains(marker)) {
                return text;
            }
        }
        throw new AssertionError("nothing with " + marker + " received");
    }

    @Test
    void withoutAWebSocketContainerTheChatRunsOverLongPollingAndLeavesNoThreadBehind() throws Exception {
        List<Thread> before = schedulerThreads();
        URI uri = deploy();
        Page alice = new Page(uri);
        Page bob = new Page(uri);

        String handshake = alice.handshake();
        assertTrue(handshake.contains("\"successful\":true"), handshake);
        assertTrue(handshake.contains("\"long-polling\"") && handshake.contains("\"callback-polling\""), handshake);
        assertFalse(handshake.contains("\"websocket\""), "no websocket without a WebSocket container: " + handshake);
        // weft.js falls back from websocket to eventsource, which the servlet streams (transport-longpoll's TomcatTest)
        assertTrue(handshake.contains("\"eventsource\""), handshake);
        alice.connect(0).get(10, TimeUnit.SECONDS);
        String subscribed = alice.request("{\"channel\":\"/meta/subscribe\",\"subscription\":\"/tomcat/room\","
                + "\"clientId\":\"$ID\"}");
        assertTrue(subscribed.contains("\"successful\":true"), subscribed);

        CompletableFuture<String> held = alice.connect(20_000);
        bob.handshake();
        String published = bob.request("{\"channel\":\"/tomcat/room\",\"data\":{\"text\":\"hi from tomcat\"},"
                + "\"clientId\":\"$ID\"}");
        assertTrue(published.contains("\"successful\":true"), published);
        String delivered = held.get(10, TimeUnit.SECONDS);
        assertTrue(delivered.contains("hi from tomcat"), delivered);

        List<Thread> timers = schedulerThreads().stream().filter(thread -> !before.contains(thread)).toList();
        assertEquals(1, timers.size(), "this application's timer thread, while it runs: " + timers);
        List<Thread> servletTimers = threadsNamed("weft-servlet-timer").stream()
                .filter(thread -> !before.contains(thread)).toList();
        assertEquals(1, servletTimers.size(), "the servlet's timer thread, while it runs: " + servletTimers);
        tomcat.stop();
        tomcat.destroy();
        tomcat = null;
        for (Thread timer : timers) {
            timer.join(10_000);
        }
        assertEquals(List.of(), timers.stream().filter(Thread::isAlive).toList(),
                "the server's timer thread outlived the web application");
        assertEquals(List.of(), servletTimers.stream().filter(Thread::isAlive).toList(),
                "the servlet's timer thread outlived the web application (it is joined when the servlet is destroyed)");
    }

    private static List<Thread> schedulerThreads() {
        return threadsNamed("weft-scheduler");
    }

    private static List<Thread> threadsNamed(String prefix) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.isAlive() && thread.getName().startsWith(prefix)).toList();
    }
}
