package io.weft.server.internal.protocol;

import io.weft.bayeux.BayeuxError;
import io.weft.bayeux.ChannelId;
import io.weft.server.api.Limit;
import io.weft.server.api.ServerOptions;
import io.weft.server.internal.util.Refusals;

/**
 * The bounds on what a client's messages may name, checked where the engine first reads them: each check answers
 * null when the input is within bounds, or the error to reply with, already counted. Server code (local sessions) is
 * not bounded: its callers do not ask.
 */
final class Bounds {
    /** How much of a refused name an error reply echoes. */
    private static final int ECHO = 64;

    private final ServerOptions options;
    private final Refusals refusals;

    Bounds(ServerOptions options, Refusals refusals) {
        this.options = options;
        this.refusals = refusals;
    }

    ServerOptions options() {
        return options;
    }

    /** Counts a refusal of {@code limit} and returns the error that tells the client which option refused it. */
    BayeuxError refuse(Limit limit) {
        refusals.count(limit);
        return limit.error();
    }

    /** A channel name's length, checked before it is parsed: a long name costs nothing more than this. */
    BayeuxError channelLength(String channel) {
        return channel.length() > options.maxChannelLength() ? refuse(Limit.CHANNEL_LENGTH) : null;
    }

    BayeuxError channelDepth(ChannelId channel) {
        return channel.depth() > options.maxChannelDepth() ? refuse(Limit.CHANNEL_DEPTH) : null;
    }

    /**
     * A channel name a client sent where a channel is expected: within bounds and valid. The refused name is echoed
     * in the error's middle part, shortened, so that the client can tell which of its channels was refused.
     */
    BayeuxError channelName(Object name) {
        if (!(name instanceof String text)) {
            return BayeuxError.CHANNEL_INVALID.withReason(echo(String.valueOf(name)));
        }
        BayeuxError tooLong = channelLength(text);
        if (tooLong != null) {
            return tooLong;
        }
        if (!ChannelId.isValid(text)) {
            return BayeuxError.CHANNEL_INVALID.withReason(echo(text));
        }
        return null;
    }

    /** {@code text} as an error's middle part: short, without the {@code :} that separates the parts. */
    static String echo(String text) {
        String shortened = text.length() > ECHO ? text.substring(0, ECHO) + "..." : text;
        StringBuilder clean = new StringBuilder(shortened.length());
        for (int i = 0; i < shortened.length(); i++) {
            char c = shortened.charAt(i);
            clean.append(c == ':' || Character.isISOControl(c) ? '_' : c);
        }
        return clean.toString();
    }
}
