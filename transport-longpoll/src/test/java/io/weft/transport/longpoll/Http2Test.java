package io.weft.transport.longpoll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.weft.server.api.ServerOptions;
import io.weft.server.testing.Await;
import io.weft.server.testing.Inbox;
import io.weft.server.testing.ScriptedClient;
import io.weft.transport.longpoll.PollingServer.Mount;
import io.weft.transport.longpoll.PollingServer.Setup;
import io.weft.transport.longpoll.testing.Browser;
import io.weft.transport.longpoll.testing.HttpWire;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.http2.client.HTTP2Client;
import org.eclipse.jetty.http2.client.transport.HttpClientTransportOverHTTP2;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Long-polling and eventsource over HTTP/2, in clear text (h2c, prior knowledge) and over TLS (h2, by ALPN), each on a
 * connector that speaks HTTP/1.1 too, with Jetty's HTTP/2 client: a browser's tabs share one connection there, so each tab's connect is held, where over
 * HTTP/1.1 the second tab is advised {@code multiple-clients} (its poll would take one of the browser's few
 * connections to the host).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class Http2Test {
    @TempDir
    static Path keys;
    private static Path keystore;
    private static HttpClient h2c;
    private static HttpClient h2;
    private static HttpClient http1;
    private PollingServer server;

    /** HTTP/2 in clear text (prior knowledge), or over TLS (chosen by ALPN). */
    enum Protocol {
        H2C, H2
    }

    @BeforeAll
    static void startClients() throws Exception {
        keystore = TestKeystore.create(keys);
        h2c = new HttpClient(new HttpClientTransportOverHTTP2(new HTTP2Client()));
        h2c.start();
        ClientConnector tls = new ClientConnector();
        tls.setSslContextFactory(new SslContextFactory.Client(true));
        h2 = new HttpClient(new HttpClientTransportOverHTTP2(new HTTP2Client(tls)));
        h2.start();
        http1 = new HttpClient();
        http1.start();
    }

    @AfterAll
    static void stopClients() throws Exception {
        h2c.stop();
        h2.stop();
        http1.stop();
    }

    private void start(Mount mount, Protocol protocol) throws Exception {
        server = PollingServer.start(mount, ServerOptions.defaults(), protocol == Protocol.H2C ? Setup.H2C
                : new Setup(null, null, TestKeystore.server(keystore), true));
    }

    private static HttpClient client(Protocol protocol) {
        return protocol == Protocol.H2C ? h2c : h2;
    }

    static Stream<Arguments> everyMountAndProtocol() {
        return Arrays.stream(Mount.values()).flatMap(mount -> Arrays.stream(Protocol.values())
                .map(protocol -> Arguments.of(mount, protocol)));
    }

    @AfterEach
    void stopServer() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private int heldConnects() {
        return server.bayeux().getStats().heldConnects();
    }

    private static boolean advisesMultipleClients(Map<String, Object> message) {
        return message.get("advice") instanceof Map<?, ?> advice && Boolean.TRUE.equals(advice.get("multiple-clients"));
    }

    /** Two tabs of one browser (the same cookie) over {@code http}: each handshakes, subscribes and connects. */
    private ScriptedClient[] twoTabs(HttpClient http) {
        Browser first = new Browser(http, server.uri());
        ScriptedClient firstTab = HttpWire.client(first);
        firstTab.handshake();
        Browser second = new Browser(http, server.uri());
        second.cookie(first.cookie());
        ScriptedClient secondTab = HttpWire.client(second);
        secondTab.handshake();
        for (ScriptedClient tab : new ScriptedClient[] {firstTab, secondTab}) {
            assertEquals(true, tab.subscribe("/news").get("successful"));
        }
        return new ScriptedClient[] {firstTab, secondTab};
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everyMountAndProtocol")
    void everyTabOfABrowserHoldsItsConnectOverHttp2(Mount mount, Protocol protocol) throws Exception {
        start(mount, protocol);
        ScriptedClient[] tabs = twoTabs(client(protocol));
        try {
            tabs[0].connect();
            tabs[1].connect();
            Await.until(Duration.ofSeconds(5), this::heldConnects, n -> n == 2, "both tabs' connects held");

            server.bayeux().createChannelIfAbsent("/news").publish(null, "to both tabs");
            tabs[0].awaitDelivery("/news", "to both tabs");
            tabs[1].awaitDelivery("/news", "to both tabs");
            Await.until(Duration.ofSeconds(5), this::heldConnects, n -> n == 2, "both held again");
            assertNull(tabs[1].inbox().poll(Http2Test::advisesMultipleClients, 0), "no multiple-clients advice");
        } finally {
            tabs[0].close();
            tabs[1].close();
        }
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void theSameTabsOverHttp1AreAdvisedOfMultipleClients(Mount mount) throws Exception {
        server = PollingServer.start(mount, ServerOptions.defaults(), Setup.H2C);
        ScriptedClient[] tabs = twoTabs(http1);
        try {
            tabs[0].connect();
            Await.until(Duration.ofSeconds(5), this::heldConnects, n -> n == 1, "the first tab's connect held");
            tabs[1].connect();
            Map<String, Object> advised = tabs[1].inbox().take(Http2Test::advisesMultipleClients, ScriptedClient.WAIT,
                    "the second tab's multiple-clients advice");
            assertEquals(2000, ((Map<?, ?>) advised.get("advice")).get("interval"), advised.toString());
            assertEquals(1, heldConnects());
        } finally {
            tabs[0].close();
            tabs[1].close();
        }
    }

    @ParameterizedTest
    @EnumSource(Protocol.class)
    void eventsourceStreamsOverHttp2(Protocol protocol) throws Exception {
        start(Mount.HANDLER, protocol);
        try (StreamPage page = new StreamPage(client(protocol), server.uri()).handshake(null).open(null)) {
            page.post(page.message("/meta/subscribe", "subscription", "/news"));
            assertEquals("[]", page.connect("advice", Map.of("timeout", 0)).body());
            page.take("/meta/connect", "the first connect's reply, on the stream");
            page.connect();
            Await.until(Duration.ofSeconds(5), this::heldConnects, n -> n == 1, "held on the stream");
            for (int i = 0; i < 3; i++) {
                server.bayeux().createChannelIfAbsent("/news").publish(null, "pushed " + i);
                assertEquals("pushed " + i, page.take("/news", "delivery " + i).get("data"));
            }
            assertNull(page.inbox.poll(Inbox.channel("/meta/connect"), 0), "pushed while the connect stays held");

            page.stream.close(); // a reset stream: HTTP/2 tells the server at once
            Await.until(Duration.ofSeconds(5), this::heldConnects, n -> n == 0, "the server saw the stream go");
        }
    }
}
