package io.weft.cluster.redis;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The module README's code comes from compiled, tested code: the snippet must appear there verbatim. */
class ReadmeSnippetsTest {
    @Test
    void readmeQuotesTheCompiledClusterNode() throws IOException {
        String source = Files.readString(Path.of("src/test/java/io/weft/cluster/redis/examples/ClusterNode.java"));
        int start = source.indexOf("// snippet:node\n");
        int end = source.indexOf("// end:node");
        assertTrue(start >= 0 && end > start, "snippet marked in ClusterNode.java");
        String body = source.substring(source.indexOf('\n', start) + 1, source.lastIndexOf('\n', end));
        String snippet = body.stripIndent() + "\n";
        assertTrue(Files.readString(Path.of("README.md")).contains(snippet), "README.md quotes:\n" + snippet);
    }
}
