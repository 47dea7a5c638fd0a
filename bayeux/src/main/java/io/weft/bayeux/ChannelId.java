package io.weft.bayeux;

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
 * {@link IllegalArgumentException} and {@link #isValid(String)} tells without throwing. Parsing is linear in the
 * name's length, and so is taking every ancestor of a channel ({@link #parent()}, {@link #prefix(int)}): an ancestor
 * shares its descendant's segments and spells its own name only when asked.
 */
public final class ChannelId {
    public static final String META = "/meta";
    public static final String SERVICE = "/service";
    public static final String WILD = "*";
    public static final String DEEP_WILD = "**";

    /** The name; for an ancestor made by {@link #prefix(int)}, spelled on first use (a benign race). */
    private String id;
    /** The segments of this channel and possibly of a descendant: only the first {@link #depth} are this one's. */
    private final String[] segments;
    private final int depth;
    private final Kind kind;
    private final Wild wild;

    private enum Kind { META, SERVICE, BROADCAST }

    private enum Wild { NONE, ONE, DEEP }

    private ChannelId(String id, String[] segments, int depth) {
        this.id = id;
        this.segments = segments;
        this.depth = depth;
        String first = segments[0];
        if ("meta".equals(first)) {
            this.kind = Kind.META;
        } else if ("service".equals(first)) {
            this.kind = Kind.SERVICE;
        } else {
            this.kind = Kind.BROADCAST;
        }
        String last = segments[depth - 1];
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
        String[] segments = split(channel);
        return new ChannelId(channel, segments, segments.length);
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
        String name = id;
        if (name == null) {
            StringBuilder spelled = new StringBuilder();
            for (int i = 0; i < depth; i++) {
                spelled.append('/').append(segments[i]);
            }
            name = spelled.toString();
            id = name;
        }
        return name;
    }

    /** How many segments: {@code /a/b} has 2. */
    public int depth() {
        return depth;
    }

    /** The segment at {@code index} (0-based): {@code /a/b}.segment(1) is {@code b}. */
    public String segment(int index) {
        if (index >= depth) {
            throw new IndexOutOfBoundsException("segment " + index + " of " + depth);
        }
        return segments[index];
    }

    public List<String> segments() {
        return Collections.unmodifiableList(Arrays.asList(segments).subList(0, depth));
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
        int prefix = depth - 1;
        if (wild == Wild.ONE ? channel.depth != depth : channel.depth <= prefix) {
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
        return depth == 1 ? null : prefix(depth - 1);
    }

    /**
     * This channel's ancestor of {@code depth} segments ({@code /a/b/c}.prefix(2) is {@code /a/b}), or this channel
     * for its own depth. Constant time: the ancestor shares this channel's segments.
     *
     * @throws IllegalArgumentException unless {@code 1 <= depth <= depth()}
     */
    public ChannelId prefix(int depth) {
        if (depth < 1 || depth > this.depth) {
            throw new IllegalArgumentException("no prefix of depth " + depth + " in " + this);
        }
        return depth == this.depth ? this : new ChannelId(null, segments, depth);
    }

    /**
     * The wildcard channels that match this one, most specific first: for {@code /a/b} these are {@code /a/*},
     * {@code /a/**} and {@code /**}. Empty for a wildcard channel.
     */
    public List<ChannelId> wildcards() {
        if (isWild()) {
            return List.of();
        }
        List<ChannelId> result = new ArrayList<>(depth + 1);
        result.add(withLast(depth - 1, WILD));
        for (int prefix = depth - 1; prefix >= 0; prefix--) {
            result.add(withLast(prefix, DEEP_WILD));
        }
        return result;
    }

    /** The channel made of this one's first {@code prefix} segments and then {@code last}. */
    private ChannelId withLast(int prefix, String last) {
        String[] parts = Arrays.copyOf(segments, prefix + 1);
        parts[prefix] = last;
        return new ChannelId(null, parts, parts.length);
    }

    @Override
    public boolean equals(Object other) {
        if (this == other) {
            return true;
        }
        if (!(other instanceof ChannelId that) || depth != that.depth) {
            return false;
        }
        if (id != null && that.id != null) {
            return id.equals(that.id);
        }
        for (int i = depth - 1; i >= 0; i--) {
            if (!segments[i].equals(that.segments[i])) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        return id().hashCode();
    }

    @Override
    public String toString() {
        return id();
    }
}
