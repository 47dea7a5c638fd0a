package io.weft.load.bench;

import io.weft.load.LoadConfig;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;

/**
 * How the bench's clients reach the server: Weft's client library ({@code io.weft.client}) over websocket,
 * long-polling or eventsource, or the lean clients on raw sockets, which cost several times less per delivered message
 * (the ladder only): {@link LeanSockets} over websocket, {@link LeanPolls} over long-polling. A lean client speaks its
 * connection type like any other, and is recorded so in the CSV files: what differs is the load generator, not what
 * the server sees.
 */
enum ChatTransport {
    WEBSOCKET("websocket", LoadConfig.WEBSOCKET),
    LONG_POLLING("long-polling", LoadConfig.LONG_POLLING),
    EVENTSOURCE("eventsource", LoadConfig.EVENTSOURCE),
    LEAN_WEBSOCKET("lean-websocket", LoadConfig.WEBSOCKET),
    LEAN_LONG_POLLING("lean-long-polling", LoadConfig.LONG_POLLING);

    private final String flag;
    private final String connectionType;

    ChatTransport(String flag, String connectionType) {
        this.flag = flag;
        this.connectionType = connectionType;
    }

    /** The Bayeux connection type on the wire: {@code websocket}, {@code long-polling} or {@code eventsource}. */
    String connectionType() {
        return connectionType;
    }

    /** Whether the load comes from a lean client ({@link LeanSockets}, {@link LeanPolls}), not {@code io.weft.client}. */
    boolean lean() {
        return this == LEAN_WEBSOCKET || this == LEAN_LONG_POLLING;
    }

    @Override
    public String toString() {
        return flag;
    }

    static ChatTransport parse(String text) {
        String value = text.trim().toLowerCase(Locale.ROOT);
        for (ChatTransport each : values()) {
            if (each.flag.equals(value)) {
                return each;
            }
        }
        throw new IllegalArgumentException("websocket, long-polling, eventsource, lean-websocket or lean-long-polling: " + text);
    }

    /** For picocli's {@code --transport}. */
    static final class Converter implements ITypeConverter<ChatTransport> {
        @Override
        public ChatTransport convert(String value) {
            return parse(value);
        }
    }
}
