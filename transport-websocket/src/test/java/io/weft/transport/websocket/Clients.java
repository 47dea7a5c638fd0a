package io.weft.transport.websocket;

import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.websocket.client.WebSocketClient;

/**
 * The HTTP and WebSocket clients a test class shares. They keep no cookies: a test that plays a browser sends its
 * cookie explicitly, and every other client is one that never sends cookies.
 */
final class Clients implements AutoCloseable {
    private final HttpClient http;
    private final WebSocketClient webSocket;

    Clients() throws Exception {
        http = new HttpClient();
        http.setHttpCookieStore(new HttpCookieStore.Empty());
        http.start();
        webSocket = new WebSocketClient(http);
        webSocket.start();
    }

    HttpClient http() {
        return http;
    }

    WebSocketClient webSocket() {
        return webSocket;
    }

    @Override
    public void close() throws Exception {
        webSocket.stop();
        http.stop();
    }
}
