package io.weft.server.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.Message;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.LocalSession;
import io.weft.server.api.ServerOptions;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.ScriptedClient;
import io.weft.server.testing.Snippets;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** docs/server-api.md shows the snippets exactly as compiled, and the snippets do what the page says. */
class ServerApiSnippetsTest {
    private static final Path SOURCE = Path.of("src/test/java/io/weft/server/docs/ServerApiSnippets.java");
    private static final Path PAGE = Path.of("../docs/server-api.md");

    private final BayeuxServer server = BayeuxServer.create(ServerOptions.defaults(), new ManualScheduler());

    @AfterEach
    void close() {
        server.close();
    }

    @Test
    void thePageShowsEverySnippetAsCompiled() throws IOException {
        Map<String, String> snippets = Snippets.extract(Snippets.JAVA_TAG, Files.readString(SOURCE));
        assertEquals(Set.of("create", "policy", "authorizer", "listener", "sessions", "service", "local",
                "extension", "deliver", "lazy"), snippets.keySet());
        String page = Files.readString(PAGE);
        for (Map.Entry<String, String> snippet : snippets.entrySet()) {
            assertTrue(page.contains("```java\n" + snippet.getValue() + "```"),
                    "docs/server-api.md does not show snippet '" + snippet.getKey() + "' as compiled:\n"
                            + snippet.getValue());
        }
    }

    @Test
    void theSnippetsWork() {
        BayeuxServer created = ServerApiSnippets.create();
        assertEquals(2, created.getExtensions().size());
        created.close();

        server.setSecurityPolicy(new ServerApiSnippets.TokenPolicy(Set.of("t")));
        ScriptedClient client = ScriptedClient.of(server, "b");
        assertEquals("403::handshake_denied", client.send("[{\"channel\":\"/meta/handshake\"}]").get(0).get("error"));
        Map<String, Object> ok = client.send("[{\"channel\":\"/meta/handshake\",\"ext\":{\"token\":\"t\"}}]").get(0);
        assertEquals(true, ok.get("successful"));
        client.resume((String) ok.get("clientId"));

        ServerApiSnippets.authorize(server);
        assertEquals("403:members only:publish_denied", client.publishJson("/members/x", "1").get(0).get("error"));

        ServerApiSnippets.moderate(server);
        assertEquals("404::message_deleted", client.publishJson("/chat/a", "{\"text\":\"spam!\"}").get(0).get("error"));

        ServerApiSnippets.services(server);
        assertNotNull(((Map<?, ?>) client.publishJson("/service/time", "{}").get(0).get("data")).get("now"));

        LocalSession bot = ServerApiSnippets.bot(server);
        List<Message> lobby = new CopyOnWriteArrayList<>();
        LocalSession listener = server.newLocalSession("listener");
        listener.handshake();
        listener.subscribe("/chat/lobby", lobby::add);
        client.publishJson("/chat/lobby", "{\"user\":\"ann\",\"text\":\"hi\"}");
        assertEquals("you said: hi", lobby.get(1).getDataAsMap().get("text"));
        assertTrue(bot.isConnected());

        ServerApiSnippets.extension(server);
        assertEquals("404::message_deleted", client.publishJson("/chat/closed", "{}").get(0).get("error"));

        ServerApiSnippets.direct(server, client.clientId());
        assertFalse(client.connectNow().stream().noneMatch(m -> "/private/notice".equals(m.get("channel"))));

        ServerApiSnippets.lazy(server);
        assertTrue(server.getChannel("/stock/ticks").isLazy());
        ServerApiSnippets.presence(server);
    }
}
