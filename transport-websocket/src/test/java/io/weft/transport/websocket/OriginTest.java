package io.weft.transport.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.ServerOptions;
import io.weft.transport.longpoll.LongPollingConnectors;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.api.exceptions.UpgradeException;
import org.eclipse.jetty.websocket.client.ClientUpgradeRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A page from another site cannot open a socket with the browser's cookie (cross-site WebSocket hijacking): the
 * upgrade follows {@code allowedOrigins}, as CORS does for long-polling. Clients that send no Origin (programs, not
 * browsers) are not affected.
 */
@Timeout(30)
public class OriginTest {
    @RegisterExtension
    static final Clients clients = new Clients();
    private EmbeddedServer server;

    @AfterEach
    void stopServer() throws Exception {
        server.close();
    }

    private Session open(String origin) throws Exception {
        return open(origin, new ClientUpgradeRequest());
    }

    private Session open(String origin, ClientUpgradeRequest request) throws Exception {
        if (origin != null) {
            request.setHeader("Origin", origin);
        }
        return clients.webSocket().connect(new Quiet(), server.wsUri(), request).get(5, TimeUnit.SECONDS);
    }

    /** An upgrade as a TLS-terminating proxy passes it on, for a page served from {@code https://chat.example.com}. */
    private Session openThroughProxy() throws Exception {
        ClientUpgradeRequest request = new ClientUpgradeRequest();
        request.setHeader("X-Forwarded-Proto", "https");
        request.setHeader("X-Forwarded-Host", "chat.example.com");
        request.setHeader("X-Forwarded-For", "203.0.113.7");
        return open("https://chat.example.com", request);
    }

    /** An endpoint that only reads; public, as Jetty's native API requires of endpoint classes. */
    public static final class Quiet extends Session.Listener.AbstractAutoDemanding {
        @Override
        public void onWebSocketError(Throwable cause) {
            // A refused upgrade is what some of these tests expect; the connect future reports it.
        }
    }

    static int refusedWith(Throwable failure) {
        Throwable cause = failure instanceof ExecutionException ? failure.getCause() : failure;
        assertTrue(cause instanceof UpgradeException, String.valueOf(cause));
        return ((UpgradeException) cause).getResponseStatusCode();
    }

    @Test
    void aForeignOriginIsRefusedByDefault() throws Exception {
        server = EmbeddedServer.start();
        ExecutionException x = assertThrows(ExecutionException.class, () -> open("https://evil.example"));
        assertEquals(403, refusedWith(x));
    }

    @Test
    void theServersOwnOriginAndNoOriginAreAccepted() throws Exception {
        server = EmbeddedServer.start();
        open("http://127.0.0.1:" + server.port()).close(1000, null, Callback.NOOP);
        open(null).close(1000, null, Callback.NOOP);
    }

    @Test
    void anAllowedOriginIsAccepted() throws Exception {
        server = EmbeddedServer.start(ServerOptions.builder().allowedOrigins(List.of("https://app.example")).build());
        open("https://app.example").close(1000, null, Callback.NOOP);
        assertEquals(403, refusedWith(assertThrows(ExecutionException.class, () -> open("https://other.example"))));
    }

    @Test
    void behindATrustedProxyTheForwardedOriginIsTheServersOwn() throws Exception {
        server = EmbeddedServer.start(ServerOptions.defaults(),
                connector -> LongPollingConnectors.trustProxies(connector.getServer(), "127.0.0.1"));
        openThroughProxy().close(1000, null, Callback.NOOP);
    }

    @Test
    void forwardedHeadersFromAPeerThatIsNotTheTrustedProxyChangeNothing() throws Exception {
        server = EmbeddedServer.start(ServerOptions.defaults(),
                connector -> LongPollingConnectors.trustProxies(connector.getServer(), "192.0.2.1"));
        assertEquals(403, refusedWith(assertThrows(ExecutionException.class, this::openThroughProxy)));
    }

    @Test
    void forwardedHeadersFromAnUntrustedPeerChangeNothing() throws Exception {
        server = EmbeddedServer.start();
        assertEquals(403, refusedWith(assertThrows(ExecutionException.class, this::openThroughProxy)));
    }
}
