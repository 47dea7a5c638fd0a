package io.weft.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.ChannelId;
import io.weft.server.testing.Gen;
import io.weft.server.testing.Tries;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Channel names, tried on generated input: arbitrary strings, channel-like strings built from slashes, wildcards,
 * letters, digits, control characters and other unicode, and valid channels, against a reference written from the
 * rules in {@link ChannelId}'s documentation.
 */
class ChannelIdPropertiesTest {
    private static final int TRIES = 1000;
    private static final String WORD_CHARS = "abcxyz019 -_.!~()$@é中";

    @Test
    void problemNeverThrowsAndOfRefusesExactlyWhatProblemNames() {
        Tries.forAll(TRIES, ChannelIdPropertiesTest::anyName, name -> {
            String problem = ChannelId.problem(name);
            assertEquals(problem == null, ChannelId.isValid(name));
            if (problem == null) {
                assertEquals(name, ChannelId.of(name).id());
            } else {
                IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> ChannelId.of(name));
                assertTrue(refused.getMessage().contains(problem), refused.getMessage());
            }
        });
    }

    @Test
    void validityFollowsTheDocumentedRules() {
        Tries.forAll(TRIES, ChannelIdPropertiesTest::anyName,
                name -> assertEquals(referenceValid(name), ChannelId.isValid(name), "valid?"));
    }

    @Test
    void aValidChannelKeepsItsNameAndItsSegments() {
        Tries.forAll(TRIES, ChannelIdPropertiesTest::validName, name -> {
            ChannelId channel = ChannelId.of(name);
            List<String> expected = referenceSegments(name);
            assertEquals(name, channel.id());
            assertEquals(name, channel.toString());
            assertEquals(expected.size(), channel.depth());
            assertEquals(expected, channel.segments());
            assertEquals(name, "/" + String.join("/", channel.segments()));
            for (int i = 0; i < channel.depth(); i++) {
                assertEquals(expected.get(i), channel.segment(i));
            }
            assertEquals(ChannelId.of(name), channel);
            assertEquals(ChannelId.of(name).hashCode(), channel.hashCode());
            assertKind(expected, channel);
        });
    }

    @Test
    void theParentIsTheChannelWithoutItsLastSegment() {
        Tries.forAll(TRIES, ChannelIdPropertiesTest::validName, name -> {
            ChannelId channel = ChannelId.of(name);
            ChannelId parent = channel.parent();
            if (channel.depth() == 1) {
                assertNull(parent);
                return;
            }
            assertNotNull(parent);
            String expected = name.substring(0, name.lastIndexOf('/'));
            assertTrue(ChannelId.isValid(parent.id()), parent.id());
            assertEquals(expected, parent.id());
            assertEquals(ChannelId.of(expected), parent);
            assertEquals(channel.segments().subList(0, channel.depth() - 1), parent.segments());
            assertKind(referenceSegments(expected), parent);
        });
    }

    @Test
    void everyWildcardOfAChannelMatchesItAndNoOtherWildcardDoes() {
        Tries.forAll(TRIES, gen -> {
            String channel = validName(gen, false);
            return List.of(channel, patternFor(gen, channel));
        }, pair -> {
            ChannelId channel = ChannelId.of(pair.get(0));
            List<ChannelId> wildcards = channel.wildcards();
            assertEquals(referenceWildcards(channel.segments()), ids(wildcards));
            for (ChannelId wildcard : wildcards) {
                assertTrue(ChannelId.isValid(wildcard.id()), wildcard.id());
                assertTrue(wildcard.isWild(), wildcard.id());
                assertTrue(wildcard.matches(channel), wildcard + " should match " + channel);
                assertTrue(wildcard.wildcards().isEmpty(), "a wildcard has no wildcards");
            }
            ChannelId pattern = ChannelId.of(pair.get(1));
            if (pattern.isWild()) {
                assertEquals(wildcards.contains(pattern), pattern.matches(channel), pattern + " matches " + channel);
            }
        });
    }

    @Test
    void matchesAgreesWithAReferenceImplementation() {
        Tries.forAll(TRIES, gen -> {
            String channel = validName(gen, false);
            return List.of(patternFor(gen, channel), channel);
        }, pair -> {
            String pattern = pair.get(0);
            String channel = pair.get(1);
            assertEquals(referenceMatches(pattern, channel), ChannelId.of(pattern).matches(ChannelId.of(channel)),
                    pattern + " matches " + channel);
        });
    }

    // ---- generators ----

    /** Arbitrary strings, channel-like strings, or valid names, in about equal parts. */
    private static String anyName(Gen gen) {
        return switch (gen.between(0, 3)) {
            case 0 -> gen.anyString(30);
            case 1 -> channelLike(gen);
            case 2 -> tokenSoup(gen);
            default -> validName(gen);
        };
    }

    /** Slashes, wildcards, letters, digits and odd characters in any order. */
    private static String tokenSoup(Gen gen) {
        int tokens = gen.length(12);
        StringBuilder name = new StringBuilder();
        for (int i = 0; i < tokens; i++) {
            switch (gen.between(0, 5)) {
                case 0, 1 -> name.append('/');
                case 2 -> name.append(gen.pick("*", "**", "***"));
                case 3 -> name.append(gen.string("abz09", 3));
                default -> gen.appendAnyChar(name);
            }
        }
        return name.toString();
    }

    /** Segments joined by slashes, each one sometimes broken: empty, a misplaced wildcard, an odd character. */
    private static String channelLike(Gen gen) {
        int depth = gen.between(1, 1 + gen.size() / 15);
        StringBuilder name = new StringBuilder();
        if (!gen.chance(0.05)) {
            name.append('/');
        }
        for (int i = 0; i < depth; i++) {
            if (i > 0) {
                name.append('/');
            }
            switch (gen.between(0, 9)) {
                case 0 -> name.append(gen.pick("*", "**"));
                case 1 -> name.append("");
                case 2 -> name.append(gen.string("ab*", 4));
                case 3 -> {
                    name.append(gen.string(WORD_CHARS, 3));
                    gen.appendAnyChar(name);
                }
                default -> name.append(word(gen));
            }
        }
        if (gen.chance(0.05)) {
            name.append('/');
        }
        return name.toString();
    }

    private static String validName(Gen gen) {
        return validName(gen, gen.chance(0.3));
    }

    /** A valid name; a wildcard one if {@code wild}. Sometimes a meta or service channel. */
    private static String validName(Gen gen, boolean wild) {
        int depth = gen.between(1, 1 + gen.size() / 15);
        List<String> segments = new ArrayList<>();
        for (int i = 0; i < depth; i++) {
            segments.add(word(gen));
        }
        if (gen.chance(0.15)) {
            segments.set(0, gen.pick("meta", "service"));
        }
        if (wild) {
            segments.set(depth - 1, gen.pick("*", "**"));
        }
        return "/" + String.join("/", segments);
    }

    /** A non-empty segment without slashes, wildcards or control characters; from a small alphabet so names repeat. */
    private static String word(Gen gen) {
        String word = gen.string(gen.chance(0.7) ? "abc" : WORD_CHARS, 4);
        return word.isEmpty() ? "a" : word;
    }

    /**
     * A valid pattern related to {@code channel} often enough to match it: a prefix of it and a wildcard, the channel
     * itself, a prefix with one segment changed, or an unrelated valid name.
     */
    private static String patternFor(Gen gen, String channel) {
        List<String> segments = referenceSegments(channel);
        int keep = gen.between(0, segments.size());
        List<String> pattern = new ArrayList<>(segments.subList(0, keep));
        switch (gen.between(0, 4)) {
            case 0 -> pattern.add("*");
            case 1 -> pattern.add("**");
            case 2 -> pattern = new ArrayList<>(segments);
            case 3 -> {
                if (!pattern.isEmpty()) {
                    pattern.set(gen.between(0, pattern.size() - 1), word(gen));
                }
                pattern.add(gen.pick("*", "**"));
            }
            default -> {
                return validName(gen);
            }
        }
        return "/" + String.join("/", pattern);
    }

    // ---- the reference, from the documented rules ----

    /** Starts with '/', no empty segment, '*' only as a whole last segment, no ISO control character. */
    static boolean referenceValid(String name) {
        if (name == null || !name.startsWith("/")) {
            return false;
        }
        List<String> segments = referenceSegments(name);
        for (int i = 0; i < segments.size(); i++) {
            String segment = segments.get(i);
            boolean wildcard = segment.equals("*") || segment.equals("**");
            if (segment.isEmpty() || (wildcard && i < segments.size() - 1) || (!wildcard && segment.contains("*"))
                    || segment.chars().anyMatch(Character::isISOControl)) {
                return false;
            }
        }
        return true;
    }

    static List<String> referenceSegments(String name) {
        return Arrays.asList(name.substring(1).split("/", -1));
    }

    /** {@code *} stands for exactly one last segment, {@code **} for one or more; anything else only for itself. */
    static boolean referenceMatches(String pattern, String channel) {
        List<String> wild = referenceSegments(pattern);
        List<String> name = referenceSegments(channel);
        String last = wild.get(wild.size() - 1);
        List<String> prefix = wild.subList(0, wild.size() - 1);
        return switch (last) {
            case "*" -> name.size() == wild.size() && name.subList(0, prefix.size()).equals(prefix);
            case "**" -> name.size() >= wild.size() && name.subList(0, prefix.size()).equals(prefix);
            default -> wild.equals(name);
        };
    }

    /** The parent's {@code *}, then the {@code **} of every ancestor from the nearest to the root. */
    private static List<String> referenceWildcards(List<String> segments) {
        List<String> wildcards = new ArrayList<>();
        String parent = join(segments.subList(0, segments.size() - 1));
        wildcards.add(parent + "/*");
        for (int depth = segments.size() - 1; depth >= 0; depth--) {
            wildcards.add(join(segments.subList(0, depth)) + "/**");
        }
        return wildcards;
    }

    private static String join(List<String> segments) {
        return segments.isEmpty() ? "" : "/" + String.join("/", segments);
    }

    private static List<String> ids(List<ChannelId> channels) {
        return channels.stream().map(ChannelId::id).toList();
    }

    private static void assertKind(List<String> segments, ChannelId channel) {
        String first = segments.get(0);
        String last = segments.get(segments.size() - 1);
        boolean wild = last.equals("*") || last.equals("**");
        assertEquals(first.equals("meta"), channel.isMeta(), "meta");
        assertEquals(first.equals("service"), channel.isService(), "service");
        assertEquals(wild, channel.isWild(), "wild");
        assertEquals(last.equals("**"), channel.isDeepWild(), "deep wild");
        assertEquals(!wild && !channel.isMeta() && !channel.isService(), channel.isBroadcast(), "broadcast");
        assertFalse(channel.isMeta() && channel.isService());
    }
}
