package io.weft.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.Message;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ListenersTest {
    private final Listeners listeners = new Listeners();
    private final List<String> calls = new ArrayList<>();

    private MessageListener recording(String name) {
        return message -> calls.add(name);
    }

    @Test
    void aMessageReachesItsChannelAndEveryWildcardCoveringIt() {
        listeners.add("/a/b", recording("exact"));
        listeners.add("/a/*", recording("one"));
        listeners.add("/a/**", recording("deep"));
        listeners.add("/**", recording("all"));
        listeners.add("/a/b/*", recording("child"));
        listeners.add("/x", recording("other"));

        listeners.dispatch(Messages.of("/a/b"));

        assertEquals(List.of("exact", "one", "deep", "all"), calls);
    }

    @Test
    void aThrowingListenerDoesNotStopTheOthers() {
        listeners.add("/a", message -> {
            throw new IllegalStateException("boom");
        });
        listeners.add("/a", recording("second"));

        listeners.dispatch(Messages.of("/a"));

        assertEquals(List.of("second"), calls);
    }

    @Test
    void addAndRemoveReportTheFirstAndLastListener() {
        MessageListener one = recording("one");
        MessageListener two = recording("two");
        assertTrue(listeners.add("/a", one));
        assertFalse(listeners.add("/a", two));
        assertFalse(listeners.remove("/a", one));
        assertFalse(listeners.remove("/a", one), "not there any more");
        assertTrue(listeners.remove("/a", two));
        assertTrue(listeners.isEmpty());
    }
}
