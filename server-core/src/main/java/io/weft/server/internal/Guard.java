package io.weft.server.internal.protocol;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place the engine calls application code that decides (security policies, authorizers): a callback that
 * throws is a denial, logged once per kind of failure with its stack trace, then quietly; it never wedges the engine.
 */
final class Guard {
    private static final Logger LOG = LoggerFactory.getLogger(Guard.class);

    private final ConcurrentHashMap<String, Boolean> logged = new ConcurrentHashMap<>();

    boolean allows(String what, BooleanSupplier decision) {
        try {
            return decision.getAsBoolean();
        } catch (RuntimeException x) {
            String key = what + ":" + x.getClass().getName();
            if (logged.putIfAbsent(key, Boolean.TRUE) == null) {
                LOG.warn("{} threw; treated as a denial (logged once)", what, x);
            } else {
                LOG.debug("{} threw again: {}", what, x.toString());
            }
            return false;
        }
    }
}
