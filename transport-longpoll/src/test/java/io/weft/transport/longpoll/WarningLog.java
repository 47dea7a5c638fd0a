package io.weft.transport.longpoll;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.LoggerFactory;

/** Collects every log event at WARN or above while installed, so a test can prove bad input stays quiet. */
final class WarningLog extends AppenderBase<ILoggingEvent> implements AutoCloseable {
    private final List<String> warnings = new CopyOnWriteArrayList<>();
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

    static WarningLog install() {
        WarningLog log = new WarningLog();
        log.setContext(log.root.getLoggerContext());
        log.start();
        log.root.addAppender(log);
        return log;
    }

    @Override
    protected void append(ILoggingEvent event) {
        if (event.getLevel().isGreaterOrEqual(Level.WARN)) {
            warnings.add(event.getLevel() + " " + event.getLoggerName() + ": " + event.getFormattedMessage()
                    + (event.getThrowableProxy() == null ? "" : " (" + event.getThrowableProxy().getClassName() + ")"));
        }
    }

    List<String> warnings() {
        return List.copyOf(warnings);
    }

    @Override
    public void close() {
        root.detachAppender(this);
        stop();
    }
}
