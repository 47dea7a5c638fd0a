package io.weft.server.testing;

import java.util.HexFormat;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * Property checks on plain JUnit: a property is tried on many generated inputs, each from its own seeded
 * {@link Gen}. Sizes grow from one try to the next, so that the first failure tends to be small. A failure names the
 * run's seed and the input; {@code -Dweft.seed=<seed>} replays the same inputs in the same order.
 *
 * <p>There is no shrinking: a failing input is reported as generated.
 */
public final class Tries {
    private static final String SEED_PROPERTY = "weft.seed";
    private static final int MAX_SIZE = 100;

    private Tries() {
    }

    /** A property of one input. */
    @FunctionalInterface
    public interface Property<T> {
        void check(T input) throws Exception;
    }

    /** Checks {@code property} on {@code tries} inputs made by {@code generator}. */
    public static <T> void forAll(int tries, Function<Gen, T> generator, Property<T> property) {
        long seed = seed();
        SplittableRandom seeds = new SplittableRandom(seed);
        for (int i = 0; i < tries; i++) {
            int size = 1 + (int) ((long) i * (MAX_SIZE - 1) / Math.max(1, tries - 1));
            Gen gen = new Gen(new Random(seeds.nextLong()), size);
            T input = generator.apply(gen);
            try {
                property.check(input);
            } catch (Exception | AssertionError x) {
                throw new AssertionError("falsified on try " + (i + 1) + " of " + tries + " (rerun with -D"
                        + SEED_PROPERTY + "=" + seed + "): " + describe(input) + "\n  because: " + x, x);
            }
        }
    }

    private static long seed() {
        String fixed = System.getProperty(SEED_PROPERTY);
        return fixed == null || fixed.isBlank() ? new SplittableRandom().nextLong() : Long.parseLong(fixed.trim());
    }

    /** An input as a reader can tell it apart: strings as escaped literals, bytes in hex. */
    public static String describe(Object input) {
        if (input instanceof String text) {
            return literal(text);
        }
        if (input instanceof byte[] bytes) {
            return "bytes[" + bytes.length + "] " + HexFormat.of().formatHex(bytes);
        }
        return String.valueOf(input);
    }

    /** {@code text} as a Java string literal, every character outside printable ASCII escaped. */
    public static String literal(String text) {
        StringBuilder out = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c >= 0x20 && c < 0x7f) {
                out.append(c);
            } else {
                out.append(String.format("\\u%04x", (int) c));
            }
        }
        return out.append('"').toString();
    }
}
