package io.weft.server.spi;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.AbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/** An SLF4J logger that keeps every line at or above a level, formatted, for tests that check what was logged. */
final class RecordingLogger extends AbstractLogger {
    private static final long serialVersionUID = 1L;

    private final List<String> lines = new ArrayList<>();
    private volatile Level threshold = Level.DEBUG;

    RecordingLogger() {
        this.name = "recording";
    }

    void threshold(Level level) {
        this.threshold = level;
    }

    /** The lines logged at exactly {@code level}, in order. */
    synchronized List<String> lines(Level level) {
        List<String> at = new ArrayList<>();
        String prefix = level + " ";
        for (String line : lines) {
            if (line.startsWith(prefix)) {
                at.add(line.substring(prefix.length()));
            }
        }
        return at;
    }

    @Override
    protected synchronized void handleNormalizedLoggingCall(Level level, Marker marker, String format, Object[] args,
            Throwable failure) {
        lines.add(level + " " + MessageFormatter.basicArrayFormat(format, args));
    }

    @Override
    protected String getFullyQualifiedCallerName() {
        return null;
    }

    private boolean enabled(Level level) {
        return level.toInt() >= threshold.toInt();
    }

    @Override
    public boolean isTraceEnabled() {
        return enabled(Level.TRACE);
    }

    @Override
    public boolean isTraceEnabled(Marker marker) {
        return isTraceEnabled();
    }

    @Override
    public boolean isDebugEnabled() {
        return enabled(Level.DEBUG);
    }

    @Override
    public boolean isDebugEnabled(Marker marker) {
        return isDebugEnabled();
    }

    @Override
    public boolean isInfoEnabled() {
        return enabled(Level.INFO);
    }

    @Override
    public boolean isInfoEnabled(Marker marker) {
        return isInfoEnabled();
    }

    @Override
    public boolean isWarnEnabled() {
        return enabled(Level.WARN);
    }

    @Override
    public boolean isWarnEnabled(Marker marker) {
        return isWarnEnabled();
    }

    @Override
    public boolean isErrorEnabled() {
        return enabled(Level.ERROR);
    }

    @Override
    public boolean isErrorEnabled(Marker marker) {
        return isErrorEnabled();
    }
}
