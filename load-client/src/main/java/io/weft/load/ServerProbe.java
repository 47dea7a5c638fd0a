package io.weft.load;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.client.BayeuxClient;
import io.weft.metrics.micrometer.MetricsHandler;
import io.weft.server.api.Latency;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;

/**
 * One more client, outside the rooms, that tells the server when a run starts and stops through the load server's
 * {@code /service/load/*} services, and brings back the server's report; and a reader of the server's
 * {@code GET /stats} (Weft's {@code MetricsHandler}), whose delivery latency histogram, read before and after a run,
 * gives the server's own latency for the run. Against a server without those services or that endpoint (any other
 * Bayeux server) the calls fail and the report says so. Used by the load client around each run, and by the bench
 * emitter and relay commands.
 */
public final class ServerProbe implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final BayeuxClient client;
    private final HttpClient http;
    private final URI stats;

    /** A probe of the Bayeux server at {@code url} ({@code http://host:port/cometd}), handshaking now. */
    public ServerProbe(ClientRuntime runtime, String url) {
        this.client = runtime.builder(url, null).build();
        this.http = runtime.http();
        this.stats = URI.create(url).resolve("/stats");
        client.handshake();
    }

    /**
     * The server's delivery latency histogram since it started, from its {@code /stats}; null when it has none (not a
     * Weft server with a {@code MetricsHandler} at its root, or not answering within 5 s).
     */
    Latency deliveryLatency() {
        try {
            ContentResponse response = http.newRequest(stats).timeout(5, TimeUnit.SECONDS).send();
            if (response.getStatus() != 200) {
                return null;
            }
            return MetricsHandler.deliveryLatency(JSON.readValue(response.getContent(), Map.class));
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            return null;
        } catch (Exception x) {
            return null; // No such endpoint, or not Weft's: the report says there is no server-side latency.
        }
    }

    /** Tells the server a run starts. @return whether it answered */
    public boolean start() {
        return call(LoadServer.START, Map.of()) != null;
    }

    /**
     * Tells the server the run is over. @return its report ({@link ServerMonitor}'s, and the relay's round trips
     * when devices registered), or null when it gave none
     */
    public Map<String, Object> stop() {
        Message reply = call(LoadServer.STOP, Map.of());
        return reply == null ? null : reply.getDataAsMap();
    }

    /** A number of a report {@link #stop()} gave, or NaN when there is none (no report, not the load server's). */
    public static double number(Map<?, ?> report, String key) {
        return report != null && report.get(key) instanceof Number n ? n.doubleValue() : Double.NaN;
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
