package io.weft.examples.guide;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.ServerOptions;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The docs show code exactly as it is compiled. A fenced block right after {@code <!-- snippet: PATH#TAG -->} must
 * equal the lines between {@code tag::TAG[]} and {@code end::TAG[]} in PATH (relative to the repository root),
 * with their common indentation removed.
 */
class DocSnippetsTest {
    private static final Pattern MARKER = Pattern.compile("<!-- snippet: (\\S+)#(\\S+) -->\\R```\\w*\\R(.*?)```",
            Pattern.DOTALL);
    private static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"docs/user-guide.md", "docs/browser-client.md", "examples/README.md"})
    void snippetsMatchTheirSources(String page) throws IOException {
        String text = Files.readString(ROOT.resolve(page));
        Matcher marker = MARKER.matcher(text);
        int found = 0;
        while (marker.find()) {
            found++;
            String shown = marker.group(3);
            String source = tagged(ROOT.resolve(marker.group(1)), marker.group(2));
            assertEquals(source, shown, page + ": the snippet " + marker.group(1) + "#" + marker.group(2)
                    + " differs from its source; copy it again");
        }
        assertTrue(found > 0, page + " has no snippet markers");
        assertEquals(text.split("<!-- snippet:", -1).length - 1, found,
                page + ": a snippet marker is not followed by a fenced block");
    }

    /** Every ServerOptions field is in the options reference (the one table of them), with the default the code has. */
    @Test
    void theOptionsReferenceListsEveryServerOptionWithItsDefault() throws IOException {
        String guide = Files.readString(ROOT.resolve("docs/server-options.md"));
        Map<String, String> rows = new LinkedHashMap<>();
        Matcher row = Pattern.compile("(?m)^\\| `(\\w+)` \\| ([^|]+) \\|").matcher(guide);
        while (row.find()) {
            rows.put(row.group(1), row.group(2).trim());
        }
        ServerOptions defaults = ServerOptions.defaults();
        List<String> problems = new ArrayList<>();
        for (RecordComponent component : ServerOptions.class.getRecordComponents()) {
            String name = component.getName();
            Object value;
            try {
                value = component.getAccessor().invoke(defaults);
            } catch (ReflectiveOperationException x) {
                throw new AssertionError(x);
            }
            String shown = rows.get(name);
            if (shown == null) {
                problems.add(name + " is missing");
            } else if (value instanceof Number || value instanceof Boolean) {
                if (!shown.equals(value.toString())) {
                    problems.add(name + " shows " + shown + ", the default is " + value);
                }
            } else if (value instanceof Enum<?> constant) {
                if (!shown.equals("`" + constant.name() + "`")) {
                    problems.add(name + " shows " + shown + ", the default is " + constant.name());
                }
            } else if (value instanceof ServerOptions.BrowserCookie cookie) {
                if (!shown.contains(cookie.name()) || !shown.contains(cookie.sameSite())) {
                    problems.add(name + " shows " + shown + ", the default is " + cookie);
                }
            } else if (value instanceof List<?> list && list.isEmpty() && !shown.startsWith("empty")) {
                problems.add(name + " shows " + shown + ", the default is empty");
            }
        }
        assertEquals(List.of(), problems, "docs/server-options.md's options tables");
    }

    /** The lines between the tags, without the common indentation, ending with a newline. */
    static String tagged(Path file, String tag) throws IOException {
        List<String> lines = Files.readAllLines(file);
        int start = -1;
        int end = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains("tag::" + tag + "[]")) {
                start = i + 1;
            } else if (lines.get(i).contains("end::" + tag + "[]")) {
                end = i;
            }
        }
        assertTrue(start > 0 && end >= start, file + " has no tag::" + tag + "[] ... end::" + tag + "[]");
        List<String> region = lines.subList(start, end);
        int indent = region.stream().filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        StringBuilder text = new StringBuilder();
        for (String line : region) {
            text.append(line.isBlank() ? "" : line.substring(indent)).append('\n');
        }
        return text.toString();
    }
}
