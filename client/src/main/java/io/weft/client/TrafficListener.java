package io.weft.client;

import io.weft.bayeux.Message;
import java.util.List;

/**
 * Watches the batches a {@link BayeuxClient} sends and receives, whole, for monitoring and measurement (the load tool
 * counts requests and responses with it). Called on the sending or receiving thread, outside the client's lock; must
 * be quick and must not block, and must not keep or change the lists or messages.
 */
public interface TrafficListener {
    /** A batch is about to be written: one HTTP request or one WebSocket frame. */
    default void onSend(BayeuxClient client, List<? extends Message> batch) {
    }

    /** A batch was read: one HTTP response or one WebSocket frame, after incoming extensions. */
    default void onReceive(BayeuxClient client, List<? extends Message> batch) {
    }
}
