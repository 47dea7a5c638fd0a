package io.weft.client;

import io.weft.bayeux.Message;

/**
 * Receives the messages of a channel: deliveries for a channel the client subscribed to (or a wildcard covering it),
 * and, for listeners added with {@link BayeuxClient#addListener}, the replies on meta channels
 * ({@code /meta/handshake}, {@code /meta/connect}, …).
 *
 * <p>Called by the client on the thread that read the message (a Jetty client thread), never under the client's lock.
 * A listener must return quickly and must not block: thousands of clients share a few threads. Listeners of one client
 * may be called concurrently when messages arrive on two HTTP exchanges at once (long-polling). A listener that throws
 * is logged and the other listeners still run.
 */
@FunctionalInterface
public interface MessageListener {
    void onMessage(Message message);
}
