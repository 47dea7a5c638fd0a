package io.weft.server.serverapi;

import static io.weft.server.serverapi.ListenersTest.data;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.weft.bayeux.Promise;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.Service;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.ScriptedClient;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Request/response on /service/ channels: the answer goes to the caller only, as its publish reply. */
class ServiceTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private final BayeuxServer server = BayeuxServer.create(ServerOptions.defaults(), scheduler);

    @AfterEach
    void close() {
        server.close();
    }

    @Test
    void theCallerGetsTheAnswerAndNobodyElse() {
        server.addService("/service/echo", Service.of((from, request) -> Map.of("echo", request.getData(),
                "caller", from.getId())));
        ScriptedClient caller = ScriptedClient.connected(server, "c");
        ScriptedClient bystander = ScriptedClient.connected(server, "b");
        bystander.send("[{\"channel\":\"/meta/subscribe\",\"clientId\":\"" + bystander.clientId()
                + "\",\"subscription\":[\"/service/echo\",\"/**\"]}]");
        Map<String, Object> reply = caller.send("[{\"channel\":\"/service/echo\",\"id\":\"7\",\"data\":\"ping\","
                + "\"clientId\":\"" + caller.clientId() + "\"}]").get(0);
        assertEquals(Map.of("channel", "/service/echo", "id", "7", "successful", true,
                "data", Map.of("echo", "ping", "caller", caller.clientId())), reply);
        assertEquals(List.of(), data(bystander.connectNow(), "/service/echo"));
    }

    @Test
    void aServiceMayAnswerLater() {
        AtomicReference<Promise<Object>> pending = new AtomicReference<>();
        server.addService("/service/slow", (from, request, answer) -> pending.set(answer));
        ScriptedClient caller = ScriptedClient.connected(server, "c");
        CompletableFuture<String> reply = caller.sendAsync("[{\"channel\":\"/service/slow\",\"data\":1,"
                + "\"clientId\":\"" + caller.clientId() + "\"}]");
        assertFalse(reply.isDone());
        pending.get().succeed("done");
        assertEquals("done", ScriptedClient.await(reply).get(0).get("data"));
    }

    @Test
    void aFailingServiceAnswersServiceFailedWithoutDetails() {
        server.addService("/service/broken", (from, request, answer) -> {
            throw new IllegalStateException("secret internals");
        });
        Map<String, Object> reply = ScriptedClient.connected(server, "c").publishJson("/service/broken", "1").get(0);
        assertEquals("500::service_failed", reply.get("error"));
        assertFalse(reply.toString().contains("secret"));
    }

    @Test
    void servicesLiveOnServiceChannelsOnly() {
        assertThrows(IllegalArgumentException.class, () -> server.addService("/chat/x", Service.of((f, r) -> 1)));
        assertThrows(IllegalArgumentException.class, () -> server.addService("/service/*", Service.of((f, r) -> 1)));
        server.addService("/service/one", Service.of((f, r) -> 1));
        assertThrows(IllegalArgumentException.class, () -> server.addService("/service/one", Service.of((f, r) -> 2)));
    }
}
