package io.weft.server.internal.protocol;

import io.weft.server.api.BayeuxError;
import io.weft.server.api.ChannelId;
import io.weft.server.api.Message;
import java.util.ArrayList;
import java.util.List;

/** The {@code subscription} field of {@code /meta/subscribe} and {@code /meta/unsubscribe}: one channel or an array. */
final class Subscriptions {
    private final List<ChannelId> channels;
    private final BayeuxError error;

    private Subscriptions(List<ChannelId> channels, BayeuxError error) {
        this.channels = channels;
        this.error = error;
    }

    static Subscriptions of(Message request) {
        Object field = request.get(Message.SUBSCRIPTION);
        List<?> names = field instanceof List<?> list ? list : field == null ? List.of() : List.of(field);
        if (names.isEmpty()) {
            return new Subscriptions(List.of(), BayeuxError.SUBSCRIPTION_MISSING);
        }
        List<ChannelId> channels = new ArrayList<>(names.size());
        for (Object name : names) {
            if (!(name instanceof String text) || !ChannelId.isValid(text)) {
                return new Subscriptions(List.of(), BayeuxError.CHANNEL_INVALID.withReason(String.valueOf(name)));
            }
            channels.add(ChannelId.of(text));
        }
        return new Subscriptions(channels, null);
    }

    /** The error that makes the whole request fail, or null. */
    BayeuxError error() {
        return error;
    }

    List<ChannelId> channels() {
        return channels;
    }
}
