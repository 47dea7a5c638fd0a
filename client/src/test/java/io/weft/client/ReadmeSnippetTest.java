package io.weft.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.client.examples.ChatClientExample;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The README's example works, and the README shows it as compiled. */
@Timeout(30)
class ReadmeSnippetTest {
    @Test
    void readmeClientExampleHearsItsOwnMessage() throws Exception {
        try (TestServer server = TestServer.start()) {
            assertEquals(Map.of("user", "ada", "text", "hello"), ChatClientExample.helloLobby(server.url()));
        }
    }

    @Test
    void readmeShowsTheCompiledExample() throws Exception {
        String source = Files.readString(Path.of("src/test/java/io/weft/client/examples/ChatClientExample.java"),
                StandardCharsets.UTF_8);
        String snippet = source.substring(source.indexOf("// snippet:start\n") + "// snippet:start\n".length(),
                source.indexOf("        // snippet:end"));
        String readme = Files.readString(Path.of("README.md"), StandardCharsets.UTF_8);
        String unindented = snippet.lines().map(line -> line.length() >= 8 ? line.substring(8) : line.strip())
                .collect(Collectors.joining("\n"));
        assertTrue(readme.contains(unindented), "README.md must contain the snippet of ChatClientExample");
    }
}
