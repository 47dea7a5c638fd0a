package io.weft.cluster.redis;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The module README's code and configuration come from compiled, tested files: it must quote them verbatim. */
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

    @Test
    void readmeQuotesTheHaproxyConfigurationTheTestRuns() throws IOException {
        String config = "```\n" + Files.readString(Path.of("haproxy.cfg")) + "```\n";
        assertTrue(Files.readString(Path.of("README.md")).contains(config), "README.md quotes haproxy.cfg whole");
    }
}
