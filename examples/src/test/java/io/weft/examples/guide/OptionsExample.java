package io.weft.examples.guide;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import java.util.List;

/** The user guide's options snippet. */
public final class OptionsExample {
    private OptionsExample() {
    }

    public static BayeuxServer create() {
        // tag::options[]
        ServerOptions options = ServerOptions.builder()
                .timeout(25_000)                 // hold a /meta/connect up to 25 s (keep it below the idle timeout)
                .maxInterval(30_000)             // a silent session lives 30 s after its last connect reply
                .maxQueue(1_000)                 // at most 1000 messages wait for one client...
                .queueOverflow(ServerOptions.OverflowPolicy.DISCONNECT) // ...then it is cut off as too slow
                .allowedOrigins(List.of("https://app.example.com"))     // CORS for long-polling
                .build();                        // throws IllegalArgumentException naming a bad value
        BayeuxServer bayeux = BayeuxServer.create(options);
        // end::options[]
        return bayeux;
    }
}
