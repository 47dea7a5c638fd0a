package io.weft.client;

/**
 * Hears the outcome of each recovery a {@link BayeuxClient} asked for (see {@link Recovery}): once per channel in
 * each subscribe reply that answers one, the subscriptions made again after a new handshake included. Called on the
 * thread that read the reply, before the subscribe's own callback; must be quick and must not block. A listener that
 * throws is logged and the others still run.
 */
@FunctionalInterface
public interface RecoveryListener {
    void onRecovery(BayeuxClient client, Recovery recovery);
}
