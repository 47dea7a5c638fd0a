package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.ServerOptions;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code --option=NAME=VALUE}: any server option by its name, over what the dedicated flags set. */
class LoadServerOptionsTest {
    @Test
    void optionsByNameReachTheServerAndOverrideTheFlags() {
        LoadServer server = parse("--timeout=5000", "--option=maxQueue=7", "--option", "timeout=3000");

        ServerOptions options = server.options();

        assertEquals(7, options.maxQueue());
        assertEquals(3000, options.timeout());
        assertEquals(1_000_000, options.maxSessionsPerAddress(), "the load server's own default stays");
    }

    @Test
    void anUnknownNameIsRefusedNamingIt() {
        LoadServer server = parse("--option=noSuchOption=1");

        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, server::options);
        assertTrue(refused.getMessage().contains("noSuchOption"), refused.getMessage());
    }

    private static LoadServer parse(String... args) {
        LoadServer server = new LoadServer();
        new CommandLine(server).parseArgs(args);
        return server;
    }
}
