package io.weft.bayeux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class BayeuxErrorTest {
    @Test
    void wireFormIsWhatTheOfficialClientsKnow() {
        assertEquals("402::session_unknown", BayeuxError.SESSION_UNKNOWN.toString());
        assertEquals("400::channel_missing", BayeuxError.CHANNEL_MISSING.toString());
        assertEquals("405::channel_invalid", BayeuxError.CHANNEL_INVALID.toString());
        assertEquals("403::handshake_denied", BayeuxError.HANDSHAKE_DENIED.toString());
        assertEquals("403::subscribe_denied", BayeuxError.SUBSCRIBE_DENIED.toString());
        assertEquals("403::publish_denied", BayeuxError.PUBLISH_DENIED.toString());
        assertEquals("404::message_deleted", BayeuxError.MESSAGE_DELETED.toString());
    }

    @Test
    void reasonGoesInTheMiddle() {
        assertEquals("403:not a member:publish_denied", BayeuxError.PUBLISH_DENIED.withReason("not a member").toString());
    }

    @Test
    void codeHasThreeDigits() {
        assertThrows(IllegalArgumentException.class, () -> new BayeuxError(42, null, "x"));
    }
}
