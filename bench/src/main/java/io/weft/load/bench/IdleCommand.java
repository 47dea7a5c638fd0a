package io.weft.load.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code idle}: connects N clients, each subscribed to one of 100 channels, prints {@code READY clients=<ready>}, and
 * holds them until a line {@code stop} (or the end of input) or {@code --hold-s}: what the idle-memory runs measure
 * the server with.
 */
@Command(name = "idle", mixinStandardHelpOptions = true, sortOptions = false,
        description = "N idle subscribed clients, held until 'stop' on stdin.")
final class IdleCommand implements Callable<Integer> {
    @Mixin
    ClientOptions clients;

    @Option(names = "--clients", defaultValue = "1000", description = "Clients [${DEFAULT-VALUE}].")
    int count;

    @Option(names = "--hold-s", defaultValue = "600", description = "Seconds to hold them at most [${DEFAULT-VALUE}].")
    long holdSeconds;

    @Override
    public Integer call() throws Exception {
        try (Cohort cohort = clients.cohort()) {
            int ready = cohort.connect(count, (index, client, done) -> client.subscribe("/idle/" + (index % 100),
                    message -> { }, Cohort.successOnly(done)));
            System.out.println("READY clients=" + ready);
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(holdSeconds);
            while (System.nanoTime() < until) {
                if (!in.ready()) {
                    Thread.sleep(100);
                    continue;
                }
                String line = in.readLine();
                if (line == null || line.startsWith("stop")) {
                    break;
                }
            }
        }
        return 0;
    }
}
