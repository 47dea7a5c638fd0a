package io.weft.server.stress;

import io.weft.server.api.ServerOptions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * What every actor of a stress run shares: the ledger, the server's timing, the moment publishing stops, and the
 * sessions the server side disconnected on purpose.
 */
final class Stage {
    private final Ledger ledger;
    private final ServerOptions options;
    private final long stopAt;
    private final CountDownLatch stillPublishing;
    private final Set<String> disconnectedByServer = ConcurrentHashMap.newKeySet();

    /** @param actors how many threads publish; each calls {@link #publishingStopped} once */
    Stage(Ledger ledger, ServerOptions options, long publishMillis, int actors) {
        this.ledger = ledger;
        this.options = options;
        this.stopAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(publishMillis);
        this.stillPublishing = new CountDownLatch(actors);
    }

    Ledger ledger() {
        return ledger;
    }

    long timeout() {
        return options.timeout();
    }

    long maxInterval() {
        return options.maxInterval();
    }

    /** Whether the publishing phase goes on. */
    boolean publishing() {
        return System.nanoTime() < stopAt;
    }

    /** {@code actor} publishes no more; waits until no actor does, so that what follows sees every publish. */
    void publishingStopped(String actor) {
        stillPublishing.countDown();
        try {
            if (!stillPublishing.await(60, TimeUnit.SECONDS)) {
                ledger.problem(actor + ": some actors were still publishing 60 s after the end of the phase");
            }
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        }
    }

    /** Server code is about to disconnect {@code clientId}: its client may be told reconnect none. */
    void disconnectingByServer(String clientId) {
        disconnectedByServer.add(clientId);
    }

    boolean disconnectedByServer(String clientId) {
        return clientId != null && disconnectedByServer.contains(clientId);
    }

    static String stackTrace(Throwable x) {
        StringWriter out = new StringWriter();
        x.printStackTrace(new PrintWriter(out));
        return out.toString();
    }
}
