package io.weft.bayeux.internal;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import java.util.HashMap;
import java.util.Map;

/**
 * The strings every client sends over and over (meta channel names, connection types) as shared instances, and
 * their parsed channel ids: a held {@code /meta/connect} then costs its session no private copies of them.
 */
final class KnownValues {
    private static final Map<String, String> STRINGS = new HashMap<>();
    private static final Map<String, ChannelId> CHANNELS = new HashMap<>();

    static {
        for (String channel : new String[] {Message.META_HANDSHAKE, Message.META_CONNECT, Message.META_SUBSCRIBE,
                Message.META_UNSUBSCRIBE, Message.META_DISCONNECT}) {
            STRINGS.put(channel, channel);
            CHANNELS.put(channel, ChannelId.of(channel));
        }
        for (String value : new String[] {"websocket", "long-polling", "callback-polling", "1.0"}) {
            STRINGS.put(value, value);
        }
    }

    private KnownValues() {
    }

    /** The shared instance of {@code value} if it is a known one, else {@code value}. */
    static String canonical(String value) {
        String known = STRINGS.get(value);
        return known == null ? value : known;
    }

    /** The channel id of {@code channel}, shared for the meta channels, else parsed; null if invalid. */
    static ChannelId channelId(String channel) {
        ChannelId known = CHANNELS.get(channel);
        if (known != null) {
            return known;
        }
        return ChannelId.isValid(channel) ? ChannelId.of(channel) : null;
    }
}
