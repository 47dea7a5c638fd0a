package io.weft.server.testing;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Documentation snippets taken from compiled sources, so that a test can check a page shows them as compiled. A
 * snippet is the text between a start and an end marker; {@code tag} must capture the snippet's name as group 1 and
 * its body as group 2. Bodies are dedented to their least indented line.
 */
public final class Snippets {
    /** Java snippets: {@code // tag::name[]} ... {@code // end::name[]}. */
    public static final Pattern JAVA_TAG = Pattern.compile("// tag::([a-z-]+)\\[]\\n(.*?)\\n\\s*// end::\\1\\[]",
            Pattern.DOTALL);

    private Snippets() {
    }

    /** The snippets of {@code source} by name, in order, each dedented and ending with a newline. */
    public static Map<String, String> extract(Pattern tag, String source) {
        Map<String, String> snippets = new LinkedHashMap<>();
        Matcher matcher = tag.matcher(source);
        while (matcher.find()) {
            snippets.put(matcher.group(1), dedent(matcher.group(2)));
        }
        return snippets;
    }

    /** The snippets as fenced Markdown code blocks in {@code language}, as a page shows them. */
    public static Map<String, String> fenced(Pattern tag, String source, String language) {
        Map<String, String> blocks = new LinkedHashMap<>();
        extract(tag, source).forEach((name, body) -> blocks.put(name, "```" + language + "\n" + body + "```"));
        return blocks;
    }

    static String dedent(String block) {
        List<String> lines = block.lines().toList();
        int indent = lines.stream().filter(l -> !l.isBlank()).mapToInt(l -> l.length() - l.stripLeading().length())
                .min().orElse(0);
        StringBuilder out = new StringBuilder();
        for (String line : lines) {
            out.append(line.isBlank() ? "" : line.substring(indent)).append('\n');
        }
        return out.toString();
    }
}
