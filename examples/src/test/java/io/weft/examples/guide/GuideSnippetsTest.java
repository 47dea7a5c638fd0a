package io.weft.examples.guide;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.Message;
import io.weft.client.BayeuxClient;
import io.weft.examples.chat.ChatServer;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.LocalSession;
import io.weft.server.api.ServerOptions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The user guide's snippets do what the guide says they do. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class GuideSnippetsTest {
    @Test
    void theJavaClientSnippetChatsWithTheDemo() throws Exception {
        try (ChatServer server = ChatServer.start(ChatServer.Settings.of(0))) {
            Map<String, Object> line = JavaClientExample.sayHello(server.baseUrl() + ChatServer.BAYEUX_PATH);
            assertEquals("java", line.get("user"));
            assertEquals("Hello from Java", line.get("text"));
        }
    }

    @Test
    void theLocalSessionBotAnswersPing() throws Exception {
        try (ChatServer server = ChatServer.start(ChatServer.Settings.of(0))) {
            LocalSession bot = ChatBot.start(server.bayeux());
            HttpClient http = new HttpClient();
            http.setHttpCookieStore(new HttpCookieStore.Empty());
            http.start();
            try {
                BayeuxClient client = BayeuxClient.builder(server.baseUrl() + ChatServer.BAYEUX_PATH)
                        .longPolling(http).build();
                BlockingQueue<Message> heard = new LinkedBlockingQueue<>();
                JavaClientExample.await(client::handshake);
                JavaClientExample.await(reply -> client.subscribe("/chat/java", heard::add, reply));
                JavaClientExample.await(reply -> client.publish("/service/chat/join",
                        Map.of("room", "java", "name", "amy"), reply));
                JavaClientExample.await(reply -> client.publish("/chat/java", Map.of("text", "ping"), reply));
                Map<String, Object> answer = null;
                while (answer == null || !"ping-bot".equals(answer.get("user"))) {
                    Message message = heard.poll(10, TimeUnit.SECONDS);
                    assertTrue(message != null, "the bot did not answer within 10 s");
                    answer = message.getDataAsMap();
                }
                assertEquals("pong", answer.get("text"));
                JavaClientExample.await(client::disconnect);
            } finally {
                http.stop();
                bot.disconnect();
            }
        }
    }

    @Test
    void theServletSnippetServesBothTransports() throws Exception {
        Server jetty = new Server();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        jetty.addConnector(connector);
        HttpClient http = new HttpClient();
        http.setHttpCookieStore(new HttpCookieStore.Empty());
        WebSocketClient webSocket = new WebSocketClient(http);
        try (BayeuxServer bayeux = BayeuxServer.create(ServerOptions.defaults())) {
            ServletEmbedding.mount(jetty, bayeux);
            jetty.start();
            http.start();
            webSocket.start();
            String url = "http://127.0.0.1:" + connector.getLocalPort() + "/cometd";
            for (String transport : List.of("websocket", "long-polling")) {
                BayeuxClient client = transport.equals("websocket")
                        ? BayeuxClient.builder(url).webSocket(webSocket).build()
                        : BayeuxClient.builder(url).longPolling(http).build();
                JavaClientExample.await(client::handshake);
                assertEquals(transport, client.getTransportName());
                JavaClientExample.await(client::disconnect);
            }
        } finally {
            webSocket.stop();
            http.stop();
            jetty.stop();
        }
    }

    @Test
    void theOptionsSnippetBuildsAndBadValuesAreRefused() {
        try (BayeuxServer bayeux = OptionsExample.create()) {
            assertEquals(25_000, bayeux.getOptions().timeout());
            assertEquals(ServerOptions.OverflowPolicy.DISCONNECT, bayeux.getOptions().queueOverflow());
        }
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> ServerOptions.builder().maxQueue(0).build());
        assertTrue(refused.getMessage().contains("maxQueue"), refused.getMessage());
    }
}
