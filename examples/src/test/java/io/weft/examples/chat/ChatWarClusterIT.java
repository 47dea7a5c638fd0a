package io.weft.examples.chat;

import static io.weft.examples.chat.JavaClients.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.client.BayeuxClient;
import io.weft.cluster.redis.RedisServer;
import io.weft.examples.testing.WarOnJetty;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipFile;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.ClassMatcher;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The built WAR deployed twice, on two Jetty servers, each with the context parameter {@code chat.redis} naming one
 * real redis-server: the listener installs the Redis broker and the chat's roster, so the two deployments are one
 * chat. Lettuce and Netty come from the WAR's own {@code WEB-INF/lib}, in the web application's class loader.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ChatWarClusterIT {
    @RegisterExtension
    final RedisServer redis = new RedisServer();
    private final List<Server> servers = new ArrayList<>();
    private Path war;
    private JavaClients clients;

    @BeforeEach
    void start() throws Exception {
        war = Path.of(System.getProperty("weft.examples.war", "target/examples-0.1.0-SNAPSHOT.war"));
        assertTrue(Files.isRegularFile(war), "the WAR is built in the package phase: " + war);
        clients = new JavaClients();
    }

    @AfterEach
    void stop() throws Exception {
        clients.close();
        for (Server server : servers) {
            server.stop();
        }
    }

    /** The WAR under {@code /chat} on a Jetty of its own, with {@code chat.redis}; its Bayeux URL. */
    private String deploy() throws Exception {
        WarOnJetty deployed = WarOnJetty.deploy(war, "/chat", webapp -> {
            // this test's class path has Netty too (the test-jar's module brings Lettuce): the WAR must use its own
            // only, as it does in a container, or classes of one package come from two loaders
            webapp.addHiddenClassMatcher(new ClassMatcher("io.netty.", "io.lettuce.", "reactor."));
            webapp.setInitParameter(ChatWarListener.REDIS, redis.uri()); // a <context-param> of web.xml does the same
        });
        servers.add(deployed.jetty());
        return deployed.base() + "/cometd";
    }

    @Test
    void theWarCarriesTheRedisClient() throws Exception {
        try (ZipFile zip = new ZipFile(war.toFile())) {
            List<String> libs = zip.stream().map(e -> e.getName()).filter(n -> n.startsWith("WEB-INF/lib/")).toList();
            assertTrue(libs.stream().anyMatch(n -> n.contains("cluster-redis")), libs.toString());
            assertTrue(libs.stream().anyMatch(n -> n.contains("lettuce-core")), libs.toString());
        }
    }

    @Test
    void twoDeploymentsWithChatRedisAreOneChat() throws Exception {
        String one = deploy();
        String two = deploy();
        BayeuxClient ann = clients.connect(one, "websocket");
        BayeuxClient ben = clients.connect(two, "long-polling");
        Inbox annSees = new Inbox();
        await(p -> ann.subscribe("/chat/war", annSees, p));
        await(p -> ann.subscribe("/members/war", annSees, p));
        Inbox benSees = new Inbox();
        await(p -> ben.subscribe("/chat/war", benSees, p));
        await(p -> ben.subscribe("/members/war", benSees, p));

        await(p -> ann.publish(ChatRooms.JOIN, Map.of("room", "war", "name", "ann"), p));
        benSees.next("join", "ann");
        // the second deployment's list, once it heard the first's
        benSees.next(data -> List.of("ann").equals(data.get("members")));
        Map<String, Object> joined = await(p -> ben.publish(ChatRooms.JOIN, Map.of("room", "war", "name", "ben"), p))
                .getDataAsMap();
        assertEquals(Set.of("ann", "ben"), Set.copyOf((List<?>) joined.get("members")), joined.toString());
        annSees.next("join", "ben");
        annSees.next(data -> data.get("members") instanceof List<?> names && Set.copyOf(names).equals(
                Set.of("ann", "ben")));

        await(p -> ann.publish("/chat/war", Map.of("text", "from the first"), p));
        assertEquals("from the first", benSees.next("chat", "ann").get("text"));
        await(p -> ben.publish("/chat/war", Map.of("text", "from the second"), p));
        assertEquals("from the second", annSees.next("chat", "ben").get("text"));
    }
}
