package io.weft.spring.boot;

import static io.weft.spring.boot.testing.CometdClients.WAIT;
import static io.weft.spring.boot.testing.CometdClients.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerSession;
import io.weft.spring.boot.testing.CometdClients;
import io.weft.spring.boot.testing.CometdClients.Transport;
import java.util.Map;
import org.cometd.client.BayeuxClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * An application that defines its own {@link BayeuxServer} bean: the starter creates none, and mounts that one on
 * {@code weft.path} (here {@code /bayeux}), over both transports. The {@code weft.*} options do not apply to it: the
 * application chose its options where it created it.
 */
@SpringBootTest(classes = OwnBayeuxServerTest.Application.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"spring.main.banner-mode=off", "weft.path=/bayeux", "weft.max-interval=30s"})
@Timeout(30)
class OwnBayeuxServerTest {
    private static CometdClients clients;

    @LocalServerPort
    private int port;
    @Autowired
    private BayeuxServer bayeux;
    @Autowired
    private ApplicationContext context;

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Application {
        /** The application's own server: its own options, and a service that answers with what it is sent. */
        @Bean
        BayeuxServer ownBayeuxServer() {
            BayeuxServer bayeux = BayeuxServer.create(ServerOptions.builder().maxInterval(12_345).build());
            bayeux.addService("/service/echo", Application::echo);
            return bayeux;
        }

        private static void echo(ServerSession from, Message request, Promise<Object> answer) {
            answer.succeed(request.getData());
        }
    }

    @BeforeAll
    static void startClients() throws Exception {
        clients = new CometdClients();
    }

    @AfterAll
    static void stopClients() throws Exception {
        clients.close();
    }

    @Test
    void theStarterBacksOffAndKeepsTheApplicationsServer() {
        assertEquals(Map.of("ownBayeuxServer", bayeux), context.getBeansOfType(BayeuxServer.class));
        assertEquals(12_345, bayeux.getOptions().maxInterval(), "the application's options, not weft.max-interval");
        assertNotNull(context.getBean(WeftHealthIndicator.class), "health is reported for the application's server");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void clientsReachTheApplicationsServerOnWeftPath(Transport transport) throws Exception {
        BayeuxClient client = clients.connected("http://127.0.0.1:" + port + "/bayeux", transport);
        try {
            assertSame(bayeux, context.getBean(BayeuxServer.class));
            assertNotNull(bayeux.getSession(client.getId()), "the session is the application's server's");
            // the official client reads a service's answer as the reply to a remote call (a publish's reply has no data)
            org.cometd.bayeux.Message reply = await(done -> client.remoteCall("echo", Map.of("text", "ping"), done));
            assertTrue(reply.isSuccessful(), reply.toString());
            assertEquals(Map.of("text", "ping"), reply.getDataAsMap(), "the application's service answered");
        } finally {
            client.disconnect(WAIT.toMillis());
        }
    }
}
