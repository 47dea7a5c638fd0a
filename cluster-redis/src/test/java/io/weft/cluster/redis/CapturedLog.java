package io.weft.cluster.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/** What this module's classes log during a test ({@code @RegisterExtension}): the lines an operator would see. */
final class CapturedLog implements BeforeEachCallback, AfterEachCallback {
    private final Logger logger = (Logger) LoggerFactory.getLogger("io.weft.cluster.redis");
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    @Override
    public void beforeEach(ExtensionContext context) {
        appender.start();
        logger.addAppender(appender);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        logger.detachAppender(appender);
        appender.stop();
    }

    /** Each line so far as {@code "LEVEL message"}, having checked that none carries a stack trace. */
    List<String> lines() {
        List<String> lines = new ArrayList<>();
        for (ILoggingEvent event : List.copyOf(appender.list)) {
            assertEquals(null, event.getThrowableProxy(), "no stack trace: " + event.getFormattedMessage());
            lines.add(event.getLevel() + " " + event.getFormattedMessage());
        }
        return lines;
    }

    /** Whether a line so far contains {@code text}. */
    boolean has(String text) {
        return List.copyOf(appender.list).stream().anyMatch(event -> event.getFormattedMessage().contains(text));
    }
}
