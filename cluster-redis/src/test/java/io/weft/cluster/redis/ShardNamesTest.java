package io.weft.cluster.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.ChannelId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShardNamesTest {
    private final ShardNames names = new ShardNames("weft:");

    @Test
    void aPublishGoesToItsOwnNameItsParentsChildrenAndEachHigherAncestorsDescendants() {
        assertEquals(List.of("weft:/a/b/c", "weft:/a/b/*", "weft:/a/**", "weft:/**"),
                names.published(ChannelId.of("/a/b/c")));
        assertEquals(List.of("weft:/chat/room", "weft:/chat/*", "weft:/**"), names.published(ChannelId.of("/chat/room")));
        assertEquals(List.of("weft:/top", "weft:/*"), names.published(ChannelId.of("/top")));
    }

    @Test
    void aWildcardListensToItsParentsChildrenAndADeepOneAlsoToTheDescendantsBelow() {
        assertEquals(List.of("weft:/chat/room"), names.subscribed(ChannelId.of("/chat/room")));
        assertEquals(List.of("weft:/chat/*"), names.subscribed(ChannelId.of("/chat/*")));
        assertEquals(List.of("weft:/chat/*", "weft:/chat/**"), names.subscribed(ChannelId.of("/chat/**")));
        assertEquals(List.of("weft:/*"), names.subscribed(ChannelId.of("/*")));
        assertEquals(List.of("weft:/*", "weft:/**"), names.subscribed(ChannelId.of("/**")));
    }

    /** Each subscription gets a publish on exactly one of its names when Bayeux says it matches, else on none. */
    @Test
    void eachSubscriptionHearsOfEachPublishItMatchesOnceAndOfNoOther() {
        List<String> channels = List.of("/a", "/b", "/a/b", "/a/c", "/b/a", "/a/b/c", "/a/b/d", "/a/c/d", "/a/b/c/d");
        List<ChannelId> subscriptions = new ArrayList<>();
        for (String channel : channels) {
            subscriptions.add(ChannelId.of(channel));
        }
        for (String parent : List.of("", "/a", "/b", "/a/b", "/a/b/c")) {
            subscriptions.add(ChannelId.of(parent + "/*"));
            subscriptions.add(ChannelId.of(parent + "/**"));
        }
        for (String published : channels) {
            ChannelId channel = ChannelId.of(published);
            List<String> to = names.published(channel);
            assertEquals(channel.depth() + 1, to.size(), published);
            for (ChannelId subscription : subscriptions) {
                long heard = names.subscribed(subscription).stream().filter(to::contains).count();
                assertEquals(subscription.matches(channel) ? 1 : 0, heard, subscription + " hearing " + published);
            }
        }
        assertTrue(subscriptions.size() > 15);
    }
}
