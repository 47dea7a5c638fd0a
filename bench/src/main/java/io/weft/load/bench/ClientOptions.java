package io.weft.load.bench;

import io.weft.load.ClientRuntime;
import java.net.URI;
import java.util.List;
import picocli.CommandLine.Option;

/** Where the simulated clients connect and over what: the options every client command of the bench shares. */
final class ClientOptions {
    @Option(names = "--urls", split = ",", defaultValue = "http://127.0.0.1:8080/cometd",
            description = "Bayeux URLs; client i talks to the (i mod n)-th, so that several loopback addresses share "
                    + "out the ephemeral ports [${DEFAULT-VALUE}].")
    List<URI> urls;

    @Option(names = "--transport", defaultValue = "websocket", converter = ChatTransport.Converter.class,
            description = "websocket or long-polling (io.weft.client), or lean-websocket or lean-long-polling (raw "
                    + "sockets; the ladder only) [${DEFAULT-VALUE}].")
    ChatTransport transport;

    @Option(names = "--max-threads", defaultValue = "64",
            description = "Threads shared by all library clients [${DEFAULT-VALUE}].")
    int maxThreads;

    @Option(names = "--in-flight", defaultValue = "500",
            description = "Handshakes under way at once while connecting [${DEFAULT-VALUE}].")
    int inFlight;

    @Option(names = "--connect-s", defaultValue = "300",
            description = "Seconds allowed for connecting every client [${DEFAULT-VALUE}].")
    long connectSeconds;

    /** Library clients on a runtime of their own, not yet connected; refused for the lean transport. */
    Cohort cohort() throws Exception {
        return cohort(false);
    }

    /** The same, asking for the acknowledged-messages extension when {@code ack}. */
    Cohort cohort(boolean ack) throws Exception {
        if (transport.lean()) {
            throw new IllegalArgumentException("--transport=" + transport + " drives the ladder only");
        }
        return new Cohort(new ClientRuntime(transport.connectionType(), maxThreads, false, ack), urls, inFlight,
                connectSeconds);
    }
}
