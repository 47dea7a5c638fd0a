package io.weft.transport.websocket;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The module README's code comes from compiled, tested code: each snippet must appear there verbatim. */
class ReadmeSnippetsTest {
    private static final Path EXAMPLES = Path.of("src/test/java/io/weft/transport/websocket/examples");

    @ParameterizedTest
    @CsvSource({"embedded, EmbeddedMount.java", "war, WarListener.java"})
    void readmeQuotesTheCompiledSnippet(String name, String file) throws IOException {
        String source = Files.readString(EXAMPLES.resolve(file));
        int start = source.indexOf("// snippet:" + name + "\n");
        int end = source.indexOf("// end:" + name);
        assertTrue(start >= 0 && end > start, "snippet " + name + " is marked in " + file);
        String body = source.substring(source.indexOf('\n', start) + 1, source.lastIndexOf('\n', end));
        String snippet = body.stripIndent() + "\n";

        String readme = Files.readString(Path.of("README.md"));
        assertTrue(readme.contains(snippet), "README.md quotes snippet '" + name + "':\n" + snippet);
    }
}
