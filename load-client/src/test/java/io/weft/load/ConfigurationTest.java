package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ConfigurationTest {
    private final ByteArrayOutputStream shown = new ByteArrayOutputStream();

    private Prompter prompter(String answers) {
        return new Prompter(new BufferedReader(new StringReader(answers)),
                new PrintStream(shown, true, StandardCharsets.UTF_8));
    }

    @Test
    void promptShowsItsDefaultAndTakesItOnAnEmptyAnswer() {
        Prompter prompter = prompter("\n250\n");

        assertEquals(100, prompter.askInt("clients", 100));
        assertEquals(250, prompter.askInt("clients", 100));
        assertEquals("clients [100]: clients [100]: ", shown.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aWrongAnswerIsAskedAgain() {
        Prompter prompter = prompter("many\n7\n");
        assertEquals(7, prompter.askInt("rooms", 100));
    }

    @Test
    void theEndOfInputTakesEveryDefault() {
        Prompter prompter = prompter("");
        assertEquals(true, prompter.askBoolean("record latency details", true));
        assertEquals(true, prompter.ended());
    }

    @Test
    void transportsAreNamedOrNumberedAsTheClassicToolAsked() {
        assertEquals("long-polling", LoadClient.parseTransport("0"));
        assertEquals("websocket", LoadClient.parseTransport("1"));
        assertEquals("websocket", LoadClient.parseTransport("WebSocket"));
        assertEquals("eventsource", LoadClient.parseTransport("2"));
        assertEquals("eventsource", LoadClient.parseTransport("eventsource"));
        assertThrows(IllegalArgumentException.class, () -> LoadClient.parseTransport("carrier-pigeon"));
    }

    @Test
    void thePromptOffersEventSourceAsTheFlagDoes() {
        LoadClient client = new LoadClient();
        new CommandLine(client).parseArgs("--server=127.0.0.1", "--port=9000", "--ssl=false", "--max-threads=16",
                "--context=/cometd", "--channel=/chat/demo", "--rooms=10", "--rooms-per-client=1",
                "--record-latency=true");

        LoadConfig config = client.configure(prompter("2\n"));

        assertEquals("eventsource", config.transport());
        assertEquals("transport (0 long-polling, 1 websocket, 2 eventsource) [0]: ",
                shown.toString(StandardCharsets.UTF_8));
        LoadClient flagged = new LoadClient();
        new CommandLine(flagged).parseArgs("--auto", "--transport=eventsource");
        assertEquals("eventsource", flagged.configure(prompter("")).transport());
    }

    @Test
    void nonsenseIsRefusedAtStart() {
        assertThrows(IllegalArgumentException.class, () -> new LoadConfig("localhost", 8080, "websocket", false, 256,
                "/cometd", "/chat/demo", 10, 11, true, false, Path.of("x")));
        assertThrows(IllegalArgumentException.class, () -> new RunConfig(10, 0, 10, 10_000, 50, false));
        assertEquals("http://localhost:8080/cometd", new LoadConfig("localhost", 8080, "websocket", false, 256,
                "/cometd", "/chat/demo", 10, 1, true, false, Path.of("x")).url());
    }
}
