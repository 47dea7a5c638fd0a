package io.weft.server.api;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * A Bayeux channel name, validated and split into segments once.
 *
 * <p>The rules are the ones the official CometD clients assume: a channel starts with {@code /}, has at least one
 * segment, no empty segment, and may end in {@code *} (exactly one more segment) or {@code **} (one or more more
 * segments). Wildcards are only valid as the whole last segment. {@code /meta/**} channels belong to the protocol,
 * {@code /service/**} channels go to the server only and are never broadcast; every other channel broadcasts.
 *
 * <p>Instances are immutable and safe to share; {@link #of(String)} rejects an invalid name with
 * {@link IllegalArgumentException} and {@link #isValid(String)} tells without throwing.
 */
public final class ChannelId {
    public static final String META = "/meta";
    public static final String SERVICE = "/service";
    public static final String WILD = "*";
    public static final String DEEP_WILD = "**";

    private final String id;
    private final String[] segments;
    private final Kind kind;
    private final Wild wild;

    private enum Kind { META, SERVICE, BROADCAST }

    private enum Wild { NONE, ONE, DEEP }

    private ChannelId(String id, String[] segments) {
        this.id = id;
        this.segments = segments;
        String first = segments[0];
        if ("meta".equals(first)) {
            this.kind = Kind.META;
        } else if ("service".equals(first)) {
            this.kind = Kind.SERVICE;
        } else {
            this.kind = Kind.BROADCAST;
        }
        String last = segments[segments.length - 1];
        this.wild = WILD.equals(last) ? Wild.ONE : DEEP_WILD.equals(last) ? Wild.DEEP : Wild.NONE;
    }

    /**
     * Parses and validates a channel name.
     *
     * @throws IllegalArgumentException naming what is wrong with {@code channel}
     */
    public static ChannelId of(String channel) {
        String problem = problem(channel);
        if (problem != null) {
            throw new IllegalArgumentException("invalid channel '" + channel + "': " + problem);
        }
        return new ChannelId(channel, split(channel));
    }

    /** Whether {@link #of(String)} would accept {@code channel}. */
    public static boolean isValid(String channel) {
        return problem(channel) == null;
    }

    /** Returns why {@code channel} is not a valid channel name, or null if it is valid. */
    public static String problem(String channel) {
        if (channel == null || channel.isEmpty()) {
            return "empty";
        }
        if (channel.charAt(0) != '/') {
            return "must start with '/'";
        }
        if (channel.length() == 1) {
            return "has no segment";
        }
        int start = 1;
        int length = channel.length();
        while (start <= length) {
            int end = channel.indexOf('/', start);
            if (end < 0) {
                end = length;
            }
            if (end == start) {
                return "has an empty segment";
            }
            boolean last = end == length;
            for (int i = start; i < end; i++) {
                char c = channel.charAt(i);
                if (c == '*') {
                    int segmentLength = end - start;
                    boolean wildcard = segmentLength <= 2 && channel.regionMatches(start, DEEP_WILD, 0, segmentLength);
                    if (!wildcard) {
                        return "'*' must be a whole segment ('*' or '**')";
                    }
                    if (!last) {
                        return "a wildcard may only be the last segment";
                    }
                } else if (Character.isISOControl(c)) {
                    return "has a control character";
                }
            }
            start = end + 1;
        }
        return null;
    }

    private static String[] split(String channel) {
        List<String> parts = new ArrayList<>(4);
        int start = 1;
        while (start <= channel.length()) {
            int end = channel.indexOf('/', start);
            if (end < 0) {
                end = channel.length();
            }
            parts.add(channel.substring(start, end));
            start = end + 1;
        }
        return parts.toArray(new String[0]);
    }

    /** The channel name as given, e.g. {@code /chat/room7}. */
    public String id() {
        return id;
    }

    /** How many segments: {@code /a/b} has 2. */
    public int depth() {
        return segments.length;
    }

    /** The segment at {@code index} (0-based): {@code /a/b}.segment(1) is {@code b}. */
    public String segment(int index) {
        return segments[index];
    }

    public List<String> segments() {
        return Collections.unmodifiableList(Arrays.asList(segments));
    }

    public boolean isMeta() {
        return kind == Kind.META;
    }

    public boolean isService() {
        return kind == Kind.SERVICE;
    }

    /** A channel whose messages are delivered to its subscribers: neither meta nor service, and not a wildcard. */
    public boolean isBroadcast() {
        return kind == Kind.BROADCAST && wild == Wild.NONE;
    }

    /** Ends in {@code *} or {@code **}. */
    public boolean isWild() {
        return wild != Wild.NONE;
    }

    /** Ends in {@code **}. */
    public boolean isDeepWild() {
        return wild == Wild.DEEP;
    }

    /**
     * Whether a message published to {@code channel} matches this channel: equal names, or this is a wildcard that
     * covers it ({@code /a/*} covers {@code /a/b}; {@code /a/**} covers {@code /a/b} and {@code /a/b/c}).
     */
    public boolean matches(ChannelId channel) {
        if (wild == Wild.NONE) {
            return equals(channel);
        }
        int prefix = segments.length - 1;
        if (wild == Wild.ONE ? channel.segments.length != segments.length : channel.segments.length <= prefix) {
            return false;
        }
        for (int i = 0; i < prefix; i++) {
            if (!segments[i].equals(channel.segments[i])) {
                return false;
            }
        }
        return true;
    }

    /**
     * The parent channel ({@code /a} for {@code /a/b}), or null for a channel of one segment.
     */
    public ChannelId parent() {
        if (segments.length == 1) {
            return null;
        }
        String[] parentSegments = Arrays.copyOf(segments, segments.length - 1);
        return new ChannelId(id.substring(0, id.lastIndexOf('/')), parentSegments);
    }

    /**
     * The wildcard channels that match this one, most specific first: for {@code /a/b} these are {@code /a/*},
     * {@code /a/**} and {@code /**}. Empty for a wildcard channel.
     */
    public List<ChannelId> wildcards() {
        if (isWild()) {
            return List.of();
        }
        List<ChannelId> result = new ArrayList<>(segments.length + 1);
        String parentPath = id.substring(0, id.lastIndexOf('/'));
        result.add(ChannelId.of(parentPath + "/*"));
        for (int depth = segments.length - 1; depth >= 0; depth--) {
            StringBuilder prefix = new StringBuilder();
            for (int i = 0; i < depth; i++) {
                prefix.append('/').append(segments[i]);
            }
            result.add(ChannelId.of(prefix + "/**"));
        }
        return result;
    }

    @Override
    public boolean equals(Object other) {
        return this == other || other instanceof ChannelId that && id.equals(that.id);
    }

    @Override
    public int hashCode() {
        return id.hashCode();
    }

    @Override
    public String toString() {
        return id;
    }
}
