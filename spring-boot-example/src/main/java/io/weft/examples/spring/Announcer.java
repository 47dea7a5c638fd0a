package io.weft.examples.spring;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerChannel;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Publishes to {@value #CHANNEL} from server code: the time, every {@code announcer.clock-period} (5 s by default),
 * and whatever {@link #announce} is given. Every client subscribed to the channel receives both, whatever its
 * transport.
 */
@Component
public class Announcer {
    /** The channel this bean publishes to. */
    public static final String CHANNEL = "/announcements";
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneOffset.UTC);

    private final ServerChannel channel;

    // tag::announcer[]
    public Announcer(BayeuxServer bayeux) { // the starter's bean
        // persistent: the channel stays while nobody is subscribed, between two subscribers
        this.channel = bayeux.createChannelIfAbsent(CHANNEL, created -> created.setPersistent(true));
    }

    /** Publishes {@code {"text": text}} to every subscriber of {@value #CHANNEL}. */
    public void announce(String text) {
        channel.publish(null, Map.of("text", text)); // null: from the server itself, not from a session
    }
    // end::announcer[]

    @Scheduled(fixedRateString = "${announcer.clock-period:5s}")
    void tick() {
        channel.publish(null, Map.of("text", "it is " + TIME.format(Instant.now()) + " UTC", "clock", true));
    }
}
