package io.weft.server.testing;

import java.util.List;
import java.util.Random;

/**
 * The source of one try's random input (see {@link Tries}): a seeded {@link Random} and a size that grows from try to
 * try, so that the first failure found tends to be a small one.
 */
public final class Gen {
    /** Characters that are anything but ordinary: controls, separators, surrogates, escapes' own characters. */
    private static final char[] ODD = {'\u0000', '\u0001', '\b', '\t', '\n', '\r', '\u001f', '\u007f', '\u0085',
        '\u009f', '\u00a0', '\u2028', '\u2029', '\ufeff', '\ufffe', '\uffff', '"', '\\', '/', '*', ':', ','};

    private final Random random;
    private final int size;

    public Gen(Random random, int size) {
        this.random = random;
        this.size = size;
    }

    public Random random() {
        return random;
    }

    /** How large this try's values should be, between 1 and the run's maximum. */
    public int size() {
        return size;
    }

    /** A number from {@code min} to {@code max}, both included. */
    public int between(int min, int max) {
        return min + random.nextInt(max - min + 1);
    }

    /** A length from 0 to {@code max}, bounded by this try's size. */
    public int length(int max) {
        return random.nextInt(Math.min(max, size) + 1);
    }

    public boolean chance(double probability) {
        return random.nextDouble() < probability;
    }

    @SafeVarargs
    public final <T> T pick(T... choices) {
        return choices[random.nextInt(choices.length)];
    }

    public <T> T pick(List<T> choices) {
        return choices.get(random.nextInt(choices.size()));
    }

    /** A string of up to {@code maxLength} characters taken from {@code alphabet}. */
    public String string(String alphabet, int maxLength) {
        int length = length(maxLength);
        StringBuilder text = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            text.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return text.toString();
    }

    /**
     * Any string of up to {@code maxLength} UTF-16 units: ASCII, control characters, letters of several scripts,
     * characters outside the BMP, and lone surrogates.
     */
    public String anyString(int maxLength) {
        int length = length(maxLength);
        StringBuilder text = new StringBuilder(length + 1);
        while (text.length() < length) {
            appendAnyChar(text);
        }
        return text.toString();
    }

    /** As {@link #anyString(int)}, but well-formed UTF-16: no lone surrogates. */
    public String text(int maxLength) {
        int length = length(maxLength);
        StringBuilder text = new StringBuilder(length + 1);
        while (text.length() < length) {
            appendChar(text, 5);
        }
        return text.toString();
    }

    /** Appends one arbitrary character (two UTF-16 units for a character outside the BMP), or a lone surrogate. */
    public void appendAnyChar(StringBuilder text) {
        appendChar(text, 6);
    }

    private void appendChar(StringBuilder text, int kinds) {
        switch (random.nextInt(kinds)) {
            case 0, 1 -> text.append((char) between(0x20, 0x7e));
            case 2 -> text.append(ODD[random.nextInt(ODD.length)]);
            case 3 -> text.append(pick("é", "ß", "ж", "中", "ي", "ﬁ", "\u0301"));
            case 4 -> text.appendCodePoint(between(0x10000, 0x10ffff));
            default -> text.append((char) between(0xd800, 0xdfff));
        }
    }

    /** Up to {@code maxLength} arbitrary bytes. */
    public byte[] bytes(int maxLength) {
        byte[] bytes = new byte[length(maxLength)];
        random.nextBytes(bytes);
        return bytes;
    }
}
