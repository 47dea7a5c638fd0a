package io.weft.load;

import io.weft.client.BayeuxClient;
import io.weft.server.api.Message;
import io.weft.server.api.Promise;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One more client, outside the rooms, that tells the server when a run starts and stops through the load server's
 * {@code /service/load/*} services, and brings back the server's report. Against a server without those services
 * (any other Bayeux server) the calls fail and the report says so.
 */
final class ServerProbe implements AutoCloseable {
    private final BayeuxClient client;

    ServerProbe(ClientRuntime runtime) {
        this.client = runtime.builder(null).build();
        client.handshake();
    }

    /** Tells the server a run starts. @return whether it answered */
    boolean start(RunConfig run) {
        return call(LoadServer.START, Map.of("clients", run.clients(), "batches", run.batches())) != null;
    }

    /** Tells the server the run is over. @return its report, or null when it gave none */
    Map<String, Object> stop() {
        Message reply = call(LoadServer.STOP, Map.of());
        return reply == null ? null : reply.getDataAsMap();
    }

    private Message call(String channel, Map<String, Object> data) {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        client.publish(channel, data, Promise.from(reply::complete, reply::completeExceptionally));
        try {
            return reply.get(10, TimeUnit.SECONDS);
        } catch (Exception x) {
            return null;
        }
    }

    @Override
    public void close() {
        CompletableFuture<Message> done = new CompletableFuture<>();
        client.disconnect(Promise.from(done::complete, done::completeExceptionally));
        try {
            done.get(5, TimeUnit.SECONDS);
        } catch (Exception x) {
            // Leaving anyway.
        }
    }
}
