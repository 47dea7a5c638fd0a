package io.weft.transport.websocket.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.client.ClientUpgradeRequest;
import org.eclipse.jetty.websocket.client.WebSocketClient;

/**
 * The client JVM of {@link IdleMemoryBenchmark}: opens N WebSocket sessions to the server, each handshaken and then
 * connected with a held {@code /meta/connect} (the next one sent whenever the server answers one, as real clients do),
 * prints {@code READY <n>}, and holds them until {@code quit} on stdin.
 *
 * <p>Arguments: {@code port n deflate(true|false) [bindAddress,...]}; connections are spread over the bind addresses
 * (127.0.0.x), one HTTP client each, when one address has too few ephemeral ports.
 */
public final class IdleMemoryClient {
    private static final String HANDSHAKE = "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
            + "\"supportedConnectionTypes\":[\"websocket\"],\"id\":\"1\"}]";

    private IdleMemoryClient() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int n = Integer.parseInt(args[1]);
        boolean deflate = Boolean.parseBoolean(args[2]);
        String[] binds = args.length > 3 ? args[3].split(",") : new String[] {null};
        URI uri = URI.create("ws://127.0.0.1:" + port + "/cometd");

        List<WebSocketClient> clients = new ArrayList<>();
        for (String bind : binds) {
            HttpClient http = new HttpClient();
            http.setHttpCookieStore(new HttpCookieStore.Empty());
            if (bind != null) {
                http.setBindAddress(new InetSocketAddress(bind, 0));
            }
            WebSocketClient client = new WebSocketClient(http);
            client.setIdleTimeout(java.time.Duration.ofMinutes(10));
            client.start();
            clients.add(client);
        }

        CountDownLatch ready = new CountDownLatch(n);
        Semaphore inFlight = new Semaphore(200);
        ConcurrentLinkedQueue<Session> sessions = new ConcurrentLinkedQueue<>();
        AtomicInteger failures = new AtomicInteger();
        for (int i = 0; i < n; i++) {
            inFlight.acquire();
            ClientUpgradeRequest request = new ClientUpgradeRequest();
            if (deflate) {
                request.addExtensions("permessage-deflate");
            }
            IdleSession endpoint = new IdleSession(ready, inFlight, failures);
            clients.get(i % clients.size()).connect(endpoint, uri, request).whenComplete((session, failure) -> {
                if (failure != null) {
                    failures.incrementAndGet();
                    inFlight.release();
                    ready.countDown();
                } else {
                    sessions.add(session);
                }
            });
        }
        if (!ready.await(10, TimeUnit.MINUTES)) {
            throw new IllegalStateException("not all sessions connected: " + ready.getCount() + " missing");
        }
        System.out.println("READY " + (n - failures.get()) + " FAILED " + failures.get());
        System.out.flush();

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null && !line.equals("quit"); line = in.readLine()) {
            System.out.println("OPEN " + sessions.stream().filter(Session::isOpen).count());
            System.out.flush();
        }
        for (WebSocketClient client : clients) {
            client.stop();
        }
    }

    /** One idle Bayeux client: handshake, then a {@code /meta/connect} loop. Public: Jetty requires it. */
    public static final class IdleSession implements Session.Listener.AutoDemanding {
        private final CountDownLatch ready;
        private final Semaphore inFlight;
        private final AtomicInteger failures;
        private Session session;
        private String clientId;
        private int connects;
        private boolean counted;

        IdleSession(CountDownLatch ready, Semaphore inFlight, AtomicInteger failures) {
            this.ready = ready;
            this.inFlight = inFlight;
            this.failures = failures;
        }

        @Override
        public void onWebSocketOpen(Session session) {
            this.session = session;
            session.sendText(HANDSHAKE, Callback.NOOP);
        }

        @Override
        public void onWebSocketText(String text) {
            if (clientId == null) {
                int at = text.indexOf("\"clientId\":\"");
                if (at < 0) {
                    fail();
                    return;
                }
                clientId = text.substring(at + 12, text.indexOf('"', at + 12));
                connect(true);
            } else if (text.contains("\"/meta/connect\"")) {
                if (!text.contains("\"successful\":true")) {
                    fail();
                    return;
                }
                connect(false);
                if (!counted) {
                    // The first connect was answered at once; the one just sent is held: this session is idle now.
                    counted = true;
                    inFlight.release();
                    ready.countDown();
                }
            }
        }

        private void connect(boolean first) {
            String advice = first ? ",\"advice\":{\"timeout\":0}" : "";
            session.sendText("[{\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\",\"clientId\":\""
                    + clientId + "\",\"id\":\"c" + (++connects) + "\"" + advice + "}]", Callback.NOOP);
        }

        private void fail() {
            if (!counted) {
                counted = true;
                failures.incrementAndGet();
                inFlight.release();
                ready.countDown();
            }
        }

        @Override
        public void onWebSocketClose(int statusCode, String reason, org.eclipse.jetty.websocket.api.Callback callback) {
            fail();
            callback.succeed();
        }

        @Override
        public void onWebSocketError(Throwable cause) {
            fail();
        }
    }
}
