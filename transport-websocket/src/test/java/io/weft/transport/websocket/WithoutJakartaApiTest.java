package io.weft.transport.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import java.io.File;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The embedded mount ({@link WeftJetty#mount}) needs Jetty and nothing of the Jakarta WebSocket API: an application
 * that embeds Jetty declares {@code jetty-websocket-core-server} and {@code transport-longpoll} and no more. Run in a JVM of its own whose class path is this one's without the
 * Jakarta WebSocket jars (the API, Jetty's and Tomcat's implementations of it, the official client's Jakarta
 * transport); {@link #main} serves a websocket handshake there.
 */
@Timeout(60)
class WithoutJakartaApiTest {
    private static final List<String> JAKARTA_WEBSOCKET = List.of("jakarta.websocket", "tomcat-embed-websocket",
            "websocket-jakarta");

    @Test
    void theEmbeddedMountServesWebsocketWithoutTheJakartaApi() throws Exception {
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> JAKARTA_WEBSOCKET.stream().noneMatch(Path.of(entry).getFileName().toString()::contains))
                .collect(Collectors.joining(File.pathSeparator));
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", classPath, WithoutJakartaApiTest.class.getName()).redirectErrorStream(true).start();
        try {
            assertTrue(child.waitFor(45, TimeUnit.SECONDS), "the child JVM did not finish");
            String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, child.exitValue(), output);
            assertTrue(output.contains("HANDSHAKE OK"), output);
        } finally {
            child.destroyForcibly();
        }
    }

    /** The child: Jakarta WebSocket must not be loadable here; an embedded server answers a handshake over websocket. */
    public static void main(String[] args) throws Exception {
        try {
            Class.forName("jakarta.websocket.Endpoint");
            System.out.println("the Jakarta WebSocket API is on the class path");
            System.exit(2);
        } catch (ClassNotFoundException expected) {
            // as in an application that embeds Jetty only
        }
        BayeuxServer bayeux = BayeuxServer.create(ServerOptions.defaults());
        Server jetty = new Server();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        jetty.addConnector(connector);
        WeftJetty.mount(jetty, bayeux, "/cometd");
        WebSocketClient client = new WebSocketClient();
        try {
            jetty.start();
            client.start();
            FirstText reply = new FirstText();
            Session session = client.connect(reply, URI.create("ws://127.0.0.1:" + connector.getLocalPort()
                    + "/cometd")).get(10, TimeUnit.SECONDS);
            session.sendText("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":"
                    + "[\"websocket\"]}]", Callback.NOOP);
            String text = reply.text.get(10, TimeUnit.SECONDS);
            System.out.println(text.contains("\"successful\":true") ? "HANDSHAKE OK" : "HANDSHAKE FAILED " + text);
        } finally {
            client.stop();
            jetty.stop();
            bayeux.close();
        }
    }

    /** The client's endpoint: the first text it receives. Public, as Jetty's native API requires of endpoints. */
    public static final class FirstText extends Session.Listener.AbstractAutoDemanding {
        final CompletableFuture<String> text = new CompletableFuture<>();

        @Override
        public void onWebSocketText(String message) {
            text.complete(message);
        }
    }
}
