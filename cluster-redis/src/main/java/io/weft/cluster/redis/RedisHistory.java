package io.weft.cluster.redis;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Codec;
import io.weft.bayeux.Message;
import io.weft.bayeux.MessageDecodeException;
import io.weft.server.api.HistoryRule;
import io.weft.server.spi.History;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * Channel history in Redis: the two scripts ({@code history-publish.lua}, {@code history-read.lua} beside this class)
 * and what their replies mean. One script per publish numbers it (the channel's offset, in its epoch), appends it to
 * the channel's stream (trimmed to the rule's size, bytes and ttl) and publishes it with its position in the header,
 * all at once: Redis runs a script whole, and a node that sees the publish can read its entry. One script per read.
 * Both run on the channel's keys ({@link HistoryKeys}), which sharded mode puts on the shard of the channel's name.
 *
 * <p>Scripts go by EVALSHA; a Redis that does not have one (restarted, or {@code SCRIPT FLUSH}) gets the text once by
 * EVAL. Everything is asynchronous; the futures complete on Lettuce's threads.
 */
final class RedisHistory {
    static final Script PUBLISH = Script.load("history-publish.lua");
    static final Script READ = Script.load("history-read.lua");
    /** Random bytes in an epoch: 16 characters of base64url. */
    private static final int EPOCH_BYTES = 12;

    private final RedisScriptingAsyncCommands<String, byte[]> commands;
    private final HistoryKeys keys;
    private final RedisNames names;
    private final boolean sharded;
    private final SecureRandom random = new SecureRandom();

    RedisHistory(RedisScriptingAsyncCommands<String, byte[]> commands, HistoryKeys keys, RedisNames names,
            boolean sharded) {
        this.commands = commands;
        this.keys = keys;
        this.names = names;
        this.sharded = sharded;
    }

    /**
     * Runs the publish script for {@code json} (the encoded message) on {@code channel}: its position once Redis has
     * numbered, kept and published it. {@code header} is the envelope's {@code "node number"}.
     */
    CompletableFuture<History.Position> publish(ChannelId channel, HistoryRule rule, String header, byte[] json) {
        byte[][] args = {ascii(newEpoch()), ascii(rule.size()), ascii(rule.maxBytes()), ascii(rule.ttlMillis()),
                ascii(header), json, names.channel(channel.id()).getBytes(StandardCharsets.UTF_8),
                ascii(sharded ? "s" : "p")};
        return run(PUBLISH, keys.of(channel), args).thenApply(reply -> new History.Position(text(reply.get(0)),
                (Long) reply.get(1)));
    }

    /**
     * Runs the read script: the channel's position now and, after {@code after} (null: none), its publications if
     * every one of them is still there and there are at most {@code max}; each decoded with {@code codec} and
     * carrying its position in {@code ext.history}.
     */
    CompletableFuture<History.Page> read(ChannelId channel, HistoryRule rule, History.Position after, int max,
            Codec codec) {
        byte[][] args = {ascii(newEpoch()), ascii(rule.ttlMillis()), ascii(after == null ? "" : after.epoch()),
                ascii(after == null ? 0 : after.offset()), ascii(Math.max(max, 0))};
        return run(READ, keys.of(channel), args).thenApply(reply -> page(reply, after, codec));
    }

    private static History.Page page(List<Object> reply, History.Position after, Codec codec) {
        String epoch = text(reply.get(0));
        History.Position top = new History.Position(epoch, (Long) reply.get(1));
        boolean complete = (Long) reply.get(2) == 1;
        List<Message> messages = new ArrayList<>(reply.size() - 3);
        for (int i = 3; i < reply.size(); i++) {
            byte[] json = (byte[]) reply.get(i);
            History.Position position = new History.Position(epoch, after.offset() + i - 2);
            try {
                for (Message.Mutable message : codec.decode(json, 0, json.length)) {
                    message.getExt(true).put(History.EXT, position.toMap());
                    messages.add(message);
                }
            } catch (MessageDecodeException x) {
                throw new IllegalStateException("unreadable history entry " + position + ": " + x.getMessage(), x);
            }
        }
        return new History.Page(top, messages, complete);
    }

    /** EVALSHA, then EVAL if Redis does not know the script. */
    private CompletableFuture<List<Object>> run(Script script, String[] keys, byte[][] args) {
        CompletableFuture<List<Object>> sent = commands.<List<Object>>evalsha(script.sha, ScriptOutputType.MULTI,
                keys, args).toCompletableFuture();
        return sent.handle((reply, failure) -> failure == null ? CompletableFuture.completedFuture(reply)
                : cause(failure) instanceof RedisNoScriptException
                        ? commands.<List<Object>>eval(script.text, ScriptOutputType.MULTI, keys, args)
                                .toCompletableFuture()
                        : CompletableFuture.<List<Object>>failedFuture(cause(failure)))
                .thenCompose(Function.identity());
    }

    static Throwable cause(Throwable failure) {
        Throwable cause = failure;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    private String newEpoch() {
        byte[] bytes = new byte[EPOCH_BYTES];
        random.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private static byte[] ascii(Object value) {
        return String.valueOf(value).getBytes(StandardCharsets.US_ASCII);
    }

    private static String text(Object bulk) {
        return new String((byte[]) bulk, StandardCharsets.UTF_8);
    }

    /** A script's text and its SHA-1, which EVALSHA names it by. */
    record Script(byte[] text, String sha) {
        static Script load(String resource) {
            try (InputStream in = RedisHistory.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("missing resource " + resource);
                }
                byte[] text = in.readAllBytes();
                return new Script(text, HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text)));
            } catch (IOException x) {
                throw new UncheckedIOException(x);
            } catch (NoSuchAlgorithmException x) {
                throw new IllegalStateException(x);
            }
        }
    }
}
