package io.weft.transport.longpoll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.ServerOptions;
import io.weft.server.testing.Await;
import io.weft.server.testing.ScriptedClient;
import io.weft.transport.longpoll.PollingServer.Mount;
import io.weft.transport.longpoll.PollingServer.Setup;
import io.weft.transport.longpoll.testing.Browser;
import io.weft.transport.longpoll.testing.HttpWire;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link ParkedConnectionWatch} over TLS: it reads a parked connection from the scheduler's thread, which over TLS
 * means decrypting on that thread. A client that closes its TLS connection while its poll is parked must be noticed
 * (so what is published meanwhile waits for its next poll), and a parked poll answered normally must arrive intact.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TlsParkedPollTest {
    @TempDir
    static Path keys;
    private static Path keystore;
    private static HttpClient https;
    private PollingServer server;

    /** A self-signed certificate for 127.0.0.1, made by the JDK's keytool for this test run. */
    @BeforeAll
    static void createKeystoreAndClient() throws Exception {
        keystore = TestKeystore.create(keys);

        ClientConnector connector = new ClientConnector();
        connector.setSslContextFactory(new SslContextFactory.Client(true));
        https = new HttpClient(new HttpClientTransportOverHTTP(connector));
        https.setHttpCookieStore(new HttpCookieStore.Empty());
        https.start();
    }

    @AfterAll
    static void stopClient() throws Exception {
        https.stop();
    }

    @AfterEach
    void stopServer() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private void start(Mount mount) throws Exception {
        server = PollingServer.start(mount, ServerOptions.builder().timeout(20_000).build(),
                new Setup(null, null, TestKeystore.server(keystore)));
    }

    private ScriptedClient client() throws Exception {
        ScriptedClient client = HttpWire.client(new Browser(https, server.uri()));
        assertEquals(true, client.handshake().get("successful"));
        client.connectNow();
        return client;
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void aClientThatClosesItsTlsConnectionWhileParkedIsNoticedAndLosesNothing(Mount mount) throws Exception {
        start(mount);
        ScriptedClient client = client();
        assertEquals(true, client.subscribe("/news").get("successful"));
        CompletableFuture<String> parked = client.heldConnect();
        Await.until(Duration.ofSeconds(10), () -> server.waitingRequests(), n -> n == 1, "the poll is parked");

        client.wire().close(); // the tab closed: its held request is aborted
        Await.until(Duration.ofSeconds(10), () -> server.waitingRequests(), n -> n == 0, "the watch noticed the closed connection");
        assertTrue(parked.isDone());

        ScriptedClient publisher = client();
        assertEquals(true, publisher.publishJson("/news", "\"meanwhile\"").get(0).get("successful"));
        List<Map<String, Object>> next = on("/news", client.connectNow());
        assertEquals(1, next.size(), "the message waited for the next poll instead of going to the dead connection");
        assertEquals("meanwhile", next.get(0).get("data"));
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void aParkedPollAnsweredNormallyArrivesIntactOverTls(Mount mount) throws Exception {
        start(mount);
        ScriptedClient client = client();
        assertEquals(true, client.subscribe("/news").get("successful"));
        CompletableFuture<String> parked = client.heldConnect();
        Await.until(Duration.ofSeconds(10), () -> server.waitingRequests(), n -> n == 1, "the poll is parked");
        // Long enough for the watch to probe the parked TLS connection a few times.
        Await.until(Duration.ofSeconds(10), new ProbesPassed(3), "three probes");

        ScriptedClient publisher = client();
        String text = "x".repeat(20_000);
        assertEquals(true, publisher.publishJson("/news", "\"" + text + "\"").get(0).get("successful"));
        List<Map<String, Object>> reply = ScriptedClient.await(parked); // the wire fails on any status but 200
        assertEquals(text, on("/news", reply).get(0).get("data"));
        assertEquals(true, on("/meta/connect", reply).get(0).get("successful"));
    }

    private static List<Map<String, Object>> on(String channel, List<Map<String, Object>> messages) {
        return messages.stream().filter(message -> channel.equals(message.get("channel"))).toList();
    }

    /** True once the watch has had {@code count} periods to probe: a condition on elapsed probe periods. */
    private static final class ProbesPassed implements java.util.function.BooleanSupplier {
        private final long until;

        ProbesPassed(int count) {
            this.until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(count * ParkedConnectionWatch.PERIOD_MILLIS);
        }

        @Override
        public boolean getAsBoolean() {
            return System.nanoTime() >= until;
        }
    }
}
