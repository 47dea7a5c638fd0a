package io.weft.transport.websocket;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.weft.server.testing.Await;
import java.time.Duration;
import java.util.List;
import org.slf4j.LoggerFactory;

/** Records every log event while open, to check what the server told the operator (and what it did not). */
final class LogCapture implements AutoCloseable {
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    LogCapture() {
        appender.start();
        root.addAppender(appender);
    }

    List<ILoggingEvent> events() {
        synchronized (appender) { // AppenderBase.doAppend holds this lock while it appends
            return List.copyOf(appender.list);
        }
    }

    /** Events at WARN or above, and events of any level that carry a stack trace. */
    List<String> loud() {
        return events().stream()
                .filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN) || e.getThrowableProxy() != null)
                .map(e -> e.getLevel() + " " + e.getLoggerName() + " " + e.getFormattedMessage())
                .toList();
    }

    /** The formatted messages of events from {@code loggerClass}. */
    List<String> from(Class<?> loggerClass) {
        return events().stream()
                .filter(e -> e.getLoggerName().equals(loggerClass.getName()))
                .map(ILoggingEvent::getFormattedMessage)
                .toList();
    }

    /** Waits up to {@code seconds} until {@code loggerClass} has logged {@code count} events (fails if not); returns them. */
    List<String> await(Class<?> loggerClass, int count, long seconds) throws InterruptedException {
        return Await.until(Duration.ofSeconds(seconds), () -> from(loggerClass), lines -> lines.size() >= count,
                count + " lines from " + loggerClass.getSimpleName());
    }

    @Override
    public void close() {
        root.detachAppender(appender);
        appender.stop();
    }
}
