package io.weft.server.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Base64;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RandomIdsTest {
    @Test
    void idsAre144BitsInBase64Url() {
        String id = RandomIds.next();
        assertEquals(RandomIds.LENGTH, id.length());
        assertTrue(id.matches("[A-Za-z0-9_-]+"), id);
        assertEquals(18, Base64.getUrlDecoder().decode(id).length);
    }

    @Test
    void idsDoNotRepeat() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 100_000; i++) {
            assertTrue(seen.add(RandomIds.next()), "a repeated id after " + i);
        }
    }
}
