package io.weft.server.internal.session;

import io.weft.bayeux.Message;
import java.util.List;

/**
 * What a {@code /meta/connect} came to: held, or answered now with {@link #messages()} (queued messages the reply
 * carries, then the reply itself, last).
 *
 * @param messages what to send now, or null when held
 * @param multipleClients whether the hold was refused because the browser already has its held polls: the reply
 *     must advise {@code multiple-clients}
 */
public record ConnectOutcome(List<Message> messages, boolean multipleClients) {
    public static final ConnectOutcome HELD = new ConnectOutcome(null, false);

    public boolean isHeld() {
        return messages == null;
    }
}
