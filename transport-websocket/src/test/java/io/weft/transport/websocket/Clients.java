package io.weft.transport.websocket;

import java.net.InetSocketAddress;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The HTTP and WebSocket clients a test class shares, started before its tests and stopped after them:
 * {@code @RegisterExtension static final Clients clients = new Clients();}. They keep no cookies: a test that plays a
 * browser sends its cookie explicitly, and every other client is one that never sends cookies.
 */
final class Clients implements BeforeAllCallback, AfterAllCallback {
    private final HttpClient http;
    private final WebSocketClient webSocket;

    Clients() {
        this(null);
    }

    /** Clients whose connections come from {@code address} (a loopback address such as 127.0.0.2), if not null. */
    Clients(String address) {
        http = new HttpClient();
        http.setHttpCookieStore(new HttpCookieStore.Empty());
        if (address != null) {
            http.setBindAddress(new InetSocketAddress(address, 0));
        }
        webSocket = new WebSocketClient(http);
    }

    HttpClient http() {
        return http;
    }

    WebSocketClient webSocket() {
        return webSocket;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        http.start();
        webSocket.start();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        webSocket.stop();
        http.stop();
    }
}
