package io.weft.server.stress;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.AppenderBase;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.slf4j.LoggerFactory;

/** Every WARN or ERROR line logged while installed, one line each, with the class and message of its throwable. */
final class WarningLog implements AutoCloseable {
    private final Queue<String> lines = new ConcurrentLinkedQueue<>();
    private final Appender appender;

    private WarningLog() {
        this.appender = new Appender(lines);
    }

    /**
     * Installs the capture on Logback's root logger. Tests run patched into the engine's module, which reads SLF4J
     * only: it is made to read Logback first, before the appender class (a Logback subclass) is loaded.
     */
    static WarningLog install() {
        try {
            Module tests = WarningLog.class.getModule();
            tests.addReads(Class.forName("ch.qos.logback.core.AppenderBase").getModule());
            tests.addReads(Class.forName("ch.qos.logback.classic.Logger").getModule());
        } catch (ClassNotFoundException x) {
            throw new IllegalStateException("Logback is not on the test path", x);
        }
        WarningLog log = new WarningLog();
        log.appender.attach();
        return log;
    }

    Queue<String> lines() {
        return lines;
    }

    @Override
    public void close() {
        appender.detach();
    }

    private static final class Appender extends AppenderBase<ILoggingEvent> {
        private final Queue<String> lines;
        private final Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);

        Appender(Queue<String> lines) {
            this.lines = lines;
        }

        void attach() {
            setContext(root.getLoggerContext());
            setName("stress-warnings");
            start();
            root.addAppender(this);
        }

        void detach() {
            root.detachAppender(this);
            stop();
        }

        @Override
        protected void append(ILoggingEvent event) {
            if (event.getLevel().isGreaterOrEqual(Level.WARN)) {
                IThrowableProxy thrown = event.getThrowableProxy();
                lines.add(event.getLevel() + " [" + event.getThreadName() + "] " + event.getLoggerName() + ": "
                        + event.getFormattedMessage() + (thrown == null ? "" : " -- " + thrown.getClassName() + ": "
                        + thrown.getMessage()));
            }
        }
    }
}
