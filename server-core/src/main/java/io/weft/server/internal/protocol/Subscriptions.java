package io.weft.server.internal.protocol;

import io.weft.bayeux.BayeuxError;
import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.server.api.Limit;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code subscription} field of {@code /meta/subscribe} and {@code /meta/unsubscribe}: one channel or an array.
 * From a client, the array holds at most {@code maxSubscriptionsPerSession} names, each within the channel bounds;
 * the whole field is refused at the first name that is not, before anything is parsed further.
 */
final class Subscriptions {
    private final List<ChannelId> channels;
    private final BayeuxError error;

    private Subscriptions(List<ChannelId> channels, BayeuxError error) {
        this.channels = channels;
        this.error = error;
    }

    /** @param bounds the client bounds, or null for server code */
    static Subscriptions of(Message request, Bounds bounds) {
        Object field = request.get(Message.SUBSCRIPTION);
        List<?> names = field instanceof List<?> list ? list : field == null ? List.of() : List.of(field);
        if (names.isEmpty()) {
            return failed(BayeuxError.SUBSCRIPTION_MISSING);
        }
        if (bounds != null && names.size() > bounds.options().maxSubscriptionsPerSession()) {
            return failed(bounds.refuse(Limit.SUBSCRIPTIONS));
        }
        List<ChannelId> channels = new ArrayList<>(names.size());
        for (Object name : names) {
            BayeuxError problem = bounds != null ? bounds.channelName(name)
                    : name instanceof String text && ChannelId.isValid(text) ? null
                    : BayeuxError.CHANNEL_INVALID.withReason(Bounds.echo(String.valueOf(name)));
            if (problem != null) {
                return failed(problem);
            }
            ChannelId channel = ChannelId.of((String) name);
            if (bounds != null && (problem = bounds.channelDepth(channel)) != null) {
                return failed(problem);
            }
            channels.add(channel);
        }
        return new Subscriptions(channels, null);
    }

    private static Subscriptions failed(BayeuxError error) {
        return new Subscriptions(List.of(), error);
    }

    /** The error that makes the whole request fail, or null. */
    BayeuxError error() {
        return error;
    }

    List<ChannelId> channels() {
        return channels;
    }
}
