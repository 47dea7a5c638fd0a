package io.weft.examples.recovery;

import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.client.BayeuxClient;
import io.weft.client.BayeuxClientBuilder;
import io.weft.client.TrafficListener;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.websocket.client.WebSocketClient;

/**
 * One client of RecoveryEndToEndTest, subscribed to one channel whose messages carry {@code {n}}: what it delivered to
 * its application, in order, and the recoveries it was told of. Weft's Java client in this JVM, or weft.js or the
 * official CometD JavaScript client with weft-recovery.js in Node ({@code src/test/node/recovery-client.mjs}).
 */
abstract class Subscriber implements AutoCloseable {
    /** A recovery as the client told it. */
    record Outcome(String channel, boolean recovered) {
    }

    protected final List<Long> received = new CopyOnWriteArrayList<>();
    protected final List<Outcome> recoveries = new CopyOnWriteArrayList<>();
    protected volatile String clientId;
    protected final AtomicInteger handshakes = new AtomicInteger();

    /** The n of every message delivered, in order. */
    List<Long> received() {
        return List.copyOf(received);
    }

    List<Outcome> recoveries() {
        return List.copyOf(recoveries);
    }

    /** The clientId of the subscribed session (the first), or null before. */
    String clientId() {
        return clientId;
    }

    /** How many handshakes succeeded. */
    int handshakes() {
        return handshakes.get();
    }

    /** What it said, for a failure's message. */
    abstract String log();

    /** Weft's Java client, subscribed over {@code transport} (websocket or long-polling). */
    static Subscriber java(String url, String channel, String transport, boolean ack, HttpClient http,
            WebSocketClient webSocket) {
        return new JavaSubscriber(url, channel, transport, ack, http, webSocket);
    }

    /** weft.js ({@code weft}) or the official client with the extension ({@code cometd}), in Node. */
    static Subscriber node(String kind, String url, String channel, String transport, boolean ack, Path script,
            Map<String, String> environment) throws IOException {
        return new NodeSubscriber(kind, url, channel, transport, ack, script, environment);
    }

    private static final class JavaSubscriber extends Subscriber {
        private final BayeuxClient client;
        private final List<String> traffic = new CopyOnWriteArrayList<>();

        JavaSubscriber(String url, String channel, String transport, boolean ack, HttpClient http,
                WebSocketClient webSocket) {
            BayeuxClientBuilder builder = BayeuxClient.builder(url).backoff(100, 500).maxNetworkDelay(5000)
                    .ackExtension(ack)
                    .recoveryListener((c, r) -> recoveries.add(new Outcome(r.channel(), r.recovered())))
                    .trafficListener(new TrafficListener() {
                        @Override
                        public void onSend(BayeuxClient c, List<? extends Message> batch) {
                            note("sent", batch);
                        }

                        @Override
                        public void onReceive(BayeuxClient c, List<? extends Message> batch) {
                            note("received", batch);
                        }
                    });
            client = (transport.equals("websocket") ? builder.webSocket(webSocket) : builder.longPolling(http))
                    .build();
            client.addListener("/meta/handshake", reply -> {
                if (reply.isSuccessful()) {
                    handshakes.incrementAndGet();
                }
            });

            client.handshake();
            client.subscribe(channel, message -> received.add(((Number) message.getDataAsMap().get("n")).longValue()),
                    Promise.from(reply -> clientId = client.getId(), failure -> { }));
        }

        /** The traffic, for a failure's message: the first 200 batches. */
        private void note(String way, List<? extends Message> batch) {
            if (traffic.size() < 200) {
                traffic.add(System.currentTimeMillis() % 100_000 + " " + way + " " + batch);
            }
        }

        @Override
        String log() {
            return client + ", " + handshakes.get() + " handshakes, received " + received + ", recoveries "
                    + recoveries + ", traffic:\n" + String.join("\n", traffic);
        }

        @Override
        public void close() {
            client.disconnect();
        }
    }

    private static final class NodeSubscriber extends Subscriber {
        private final Process node;
        private final List<String> lines = new CopyOnWriteArrayList<>();

        NodeSubscriber(String kind, String url, String channel, String transport, boolean ack, Path script,
                Map<String, String> environment) throws IOException {
            List<String> command = new ArrayList<>(List.of("node", script.toString(), kind, url, channel, transport));
            if (ack) {
                command.add("ack");
            }
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
            builder.environment().putAll(environment);
            node = builder.start();
            Thread reader = new Thread(this::read, "node-subscriber");
            reader.setDaemon(true);
            reader.start();
        }

        private void read() {
            try (BufferedReader in = new BufferedReader(
                    new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    lines.add(line);
                    String[] words = line.split(" ");
                    switch (words[0]) {
                        case "GOT" -> received.add(Long.parseLong(words[1]));
                        case "RECOVERY" -> recoveries.add(new Outcome(words[1], Boolean.parseBoolean(words[2])));
                        case "READY" -> clientId = words[1];
                        case "HANDSHAKE" -> handshakes.incrementAndGet();
                        default -> { }
                    }
                }
            } catch (IOException | RuntimeException x) {
                lines.add("(reading failed: " + x + ")");
            }
        }

        @Override
        String log() {
            return String.join("\n", lines);
        }

        /** Ends its stdin: it disconnects and exits; killed if it has not within 10 s. */
        @Override
        public void close() throws Exception {
            node.getOutputStream().close();
            if (!node.waitFor(10, TimeUnit.SECONDS)) {
                node.destroyForcibly();
                node.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
