package io.weft.load;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.util.function.Function;

/**
 * Asks for a value as the classic load tool did, {@code label [default]: }; an empty answer (or the end of input)
 * takes the default, a wrong one asks again. Used by the main thread only.
 */
final class Prompter {
    private final BufferedReader in;
    private final PrintStream out;
    private boolean ended;

    Prompter(BufferedReader in, PrintStream out) {
        this.in = in;
        this.out = out;
    }

    /** Whether the input has ended: every later prompt takes its default. */
    boolean ended() {
        return ended;
    }

    <T> T ask(String label, T fallback, Function<String, T> parse) {
        while (true) {
            out.printf("%s [%s]: ", label, fallback);
            out.flush();
            String line = readLine();
            if (line == null || line.isBlank()) {
                if (line == null) {
                    out.println();
                }
                return fallback;
            }
            try {
                return parse.apply(line.trim());
            } catch (RuntimeException x) {
                out.println("  not understood: " + x.getMessage());
            }
        }
    }

    int askInt(String label, int fallback) {
        return ask(label, fallback, Integer::parseInt);
    }

    long askLong(String label, long fallback) {
        return ask(label, fallback, Long::parseLong);
    }

    boolean askBoolean(String label, boolean fallback) {
        return ask(label, fallback, Prompter::parseBoolean);
    }

    String askString(String label, String fallback) {
        return ask(label, fallback, Function.identity());
    }

    static boolean parseBoolean(String text) {
        if (text.equalsIgnoreCase("true") || text.equalsIgnoreCase("yes") || text.equals("1")) {
            return true;
        }
        if (text.equalsIgnoreCase("false") || text.equalsIgnoreCase("no") || text.equals("0")) {
            return false;
        }
        throw new IllegalArgumentException("true or false: " + text);
    }

    private String readLine() {
        if (ended) {
            return null;
        }
        try {
            String line = in.readLine();
            ended = line == null;
            return line;
        } catch (IOException x) {
            ended = true;
            return null;
        }
    }
}
