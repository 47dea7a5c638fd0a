package io.weft.transport.common;

import io.weft.bayeux.Message;
import io.weft.bayeux.MessageDecodeException;
import io.weft.bayeux.Promise;
import io.weft.server.api.Limit;
import io.weft.server.api.ServerOptions;
import io.weft.server.spi.BrowserCookies;
import io.weft.server.spi.Engine;
import io.weft.server.spi.Inbound;
import io.weft.server.spi.QuietLog;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HTTP long-polling ({@code long-polling}) and JSONP ({@code callback-polling}): the one implementation behind both
 * adapters. It turns an {@link HttpExchange} into a batch for the engine and the engine's answer into a response:
 *
 * <pre>
 * OPTIONS                  CORS preflight
 * POST application/json    body = JSON batch                         long-polling
 * POST form-urlencoded     message=&lt;JSON batch&gt;[&amp;jsonp=callback]      long-polling, or callback-polling with jsonp
 * GET  ?jsonp=cb&amp;message=  the official JavaScript client's JSONP     callback-polling, answered cb([...])
 * GET  ?clientId=id         a session's Server-Sent Events stream       eventsource (where the adapter streams)
 * GET  /id                  the same, as Faye asks for it (the clientId as the path below the mount)
 * </pre>
 *
 * An {@code eventsource} client sends its uplink, {@code /meta/connect} among it, by POST as long-polling does; the
 * engine answers those connects on the session's stream ({@link EventStream}).
 *
 * Every protocol decision past that (holding {@code /meta/connect}, browser binding, advice) is the engine's. Bad
 * input ends here with a 4xx and a one-line reason, logged at DEBUG. Thread-safe; {@link #handle} does not block.
 */
public final class PollingTransport {
    public static final String LONG_POLLING = "long-polling";
    public static final String CALLBACK_POLLING = "callback-polling";
    /** How long past the engine's own timeout a held exchange is kept from the container's idle timeout. */
    public static final long IDLE_GRACE_MILLIS = 10_000;
    /** How long a request body may take to arrive whole: a client trickling one must not hold a buffer for ever. */
    public static final long BODY_MILLIS = 30_000;

    private static final Logger LOG = LoggerFactory.getLogger(PollingTransport.class);
    /** A failure a client may be able to repeat at will: the log must not become its amplifier. */
    private static final QuietLog FAILED = new QuietLog(PollingTransport.class, "requests that failed");
    private static final String TEXT = "text/plain;charset=UTF-8";
    /** The longest refusal reason written back: it may echo client text. */
    static final int MAX_REASON = 200;
    private static final Promise<Void> IGNORE = Promise.noop();

    private final Engine engine;
    private final ServerOptions options;
    private final BrowserCookies browserCookies;
    private final Cors cors;
    private final long bodyMillis;
    private final long graceMillis;
    private final boolean streams;

    public Engine engine() {
        return engine;
    }

    public PollingTransport(Engine engine, boolean streams) {
        this(engine, BODY_MILLIS, IDLE_GRACE_MILLIS, streams);
    }

    /**
     * @param bodyMillis how long a request body may take to arrive
     * @param graceMillis how long past the engine's timeout a held exchange may wait (tests shorten both)
     * @param streams whether the adapter's exchanges stream responses: then {@code eventsource} is served, and offered
     */
    public PollingTransport(Engine engine, long bodyMillis, long graceMillis, boolean streams) {
        this.engine = engine;
        this.streams = streams;
        this.bodyMillis = bodyMillis;
        this.graceMillis = graceMillis;
        this.options = engine.options();
        this.browserCookies = new BrowserCookies(options.browserCookie());
        this.cors = new Cors(options);
        engine.addConnectionType(LONG_POLLING);
        engine.addConnectionType(CALLBACK_POLLING);
        if (streams) {
            engine.addConnectionType(EventStream.TYPE);
        }
    }

    /**
     * Serves one request; the response may be written later, from another thread. Whatever is thrown on the way
     * (a bug; {@code Error}s included) ends in a 400 with a fixed reason, never in the container's 500 page.
     */
    public void handle(HttpExchange exchange) {
        safely(exchange, () -> route(exchange));
    }

    private void safely(HttpExchange exchange, Runnable step) {
        try {
            step.run();
        } catch (Throwable x) {
            FAILED.log("{} failed (a bug: the first of each minute with its stack trace); answered 400",
                    exchange.method(), x);
            // Ignored if the exchange was answered already: the first answer wins.
            reject(exchange, 400, "the request could not be processed");
        }
    }

    /**
     * The longest an exchange may last in all: its body, the hold, and a grace for the engine's timer. The servlet
     * adapter sets it as the async timeout.
     */
    public long exchangeDeadlineMillis() {
        return bodyMillis + maxExchangeMillis();
    }

    private void route(HttpExchange exchange) {
        if (!cors.admit(exchange)) {
            reject(exchange, 403, "origin not allowed: " + exchange.header("Origin"));
            return;
        }
        switch (exchange.method()) {
            case "POST" -> post(exchange);
            case "GET" -> get(exchange);
            case "OPTIONS" -> preflight(exchange);
            default -> {
                exchange.addHeader("Allow", Cors.ALLOWED_METHODS);
                reject(exchange, 405, "method not allowed: " + exchange.method());
            }
        }
    }

    private void preflight(HttpExchange exchange) {
        cors.preflight(exchange);
        exchange.addHeader("Allow", Cors.ALLOWED_METHODS);
        exchange.respond(200, null, new byte[0], IGNORE);
    }

    private void get(HttpExchange exchange) {
        FormParameters parameters = parameters(exchange, exchange.query());
        if (parameters == null) {
            return;
        }
        String callback = parameters.first("jsonp");
        String clientId = parameters.first("clientId");
        if (callback == null && clientId == null) {
            clientId = clientIdInPath(exchange.pathInMount());
        }
        if (callback == null && clientId != null) {
            stream(exchange, clientId);
            return;
        }
        if (callback == null) {
            reject(exchange, 400, "a GET must carry the jsonp and message parameters (callback-polling), or a "
                    + "clientId, as a parameter or as the path below the mount (eventsource)");
            return;
        }
        dispatch(exchange, parameters.all("message"), callback);
    }

    private void post(HttpExchange exchange) {
        long declared = exchange.contentLength();
        if (declared > options.maxMessageSize()) {
            tooLarge(exchange);
            return;
        }
        exchange.readBody(new BodyCollector(options.maxMessageSize(), declared, new BodyCollector.Outcome() {
            @Override
            public void body(byte[] bytes, int length) {
                safely(exchange, () -> posted(exchange, bytes, length));
            }

            @Override
            public void tooLarge() {
                PollingTransport.this.tooLarge(exchange);
            }

            @Override
            public void failed(Throwable failure) {
                LOG.debug("request body not read: {}", failure.toString());
                if (failure instanceof TimeoutException) {
                    // The client is there but too slow: it can still be told.
                    exchange.addHeader("Connection", "close");
                    reject(exchange, 408, "request body not received in time");
                } else {
                    exchange.abort(failure);
                }
            }
        }), bodyMillis);
    }

    private void posted(HttpExchange exchange, byte[] bytes, int length) {
        FormParameters query = parameters(exchange, exchange.query());
        if (query == null) {
            return;
        }
        String contentType = exchange.header("Content-Type");
        if (contentType != null && contentType.toLowerCase(Locale.ROOT).startsWith("application/x-www-form-urlencoded")) {
            FormParameters form = parameters(exchange, new String(bytes, 0, length, StandardCharsets.UTF_8));
            if (form == null) {
                return;
            }
            FormParameters all = query.and(form);
            dispatch(exchange, all.all("message"), all.first("jsonp"));
            return;
        }
        List<Message.Mutable> batch;
        try {
            batch = engine.codec().decode(bytes, 0, length);
        } catch (MessageDecodeException x) {
            refuseBatch(exchange, x);
            return;
        }
        start(exchange, query.first("jsonp"), batch);
    }

    /** Decodes the {@code message} parameters (each a batch; they are concatenated) and starts the exchange. */
    private void dispatch(HttpExchange exchange, List<String> messages, String callback) {
        if (messages.isEmpty()) {
            reject(exchange, 400, "missing the message parameter");
            return;
        }
        long size = 0;
        for (String message : messages) {
            size += message.length();
        }
        if (size > options.maxMessageSize()) {
            tooLarge(exchange);
            return;
        }
        List<Message.Mutable> batch = messages.size() == 1 ? null : new ArrayList<>();
        try {
            for (String message : messages) {
                List<Message.Mutable> decoded = engine.codec().decode(message);
                if (batch == null) {
                    batch = decoded;
                } else {
                    batch.addAll(decoded);
                }
            }
        } catch (MessageDecodeException x) {
            refuseBatch(exchange, x);
            return;
        }
        start(exchange, callback, batch);
    }

    /** Hands a decoded batch to the engine over a new one-shot connection. */
    private void start(HttpExchange exchange, String callback, List<Message.Mutable> batch) {
        if (callback != null && !Jsonp.isValidCallback(callback)) {
            reject(exchange, 400, "invalid jsonp callback: at most " + Jsonp.MAX_CALLBACK_LENGTH
                    + " characters of [A-Za-z0-9._-]");
            return;
        }
        // Setting a cookie is not presenting it: the engine gets the id the request carried, or none. A session is
        // bound to the first id its client presents, so a client that never sends cookies keeps working by
        // clientId, on every transport; and a client whose requests race (Faye opens its socket while it
        // handshakes over HTTP, both without a cookie) is not bound to an id it never got to use.
        String browserId = browserCookies.read(exchange.headers("Cookie"));
        if (browserId == null) {
            exchange.addHeader("Set-Cookie", browserCookies.setCookieHeader(browserCookies.newValue(),
                    exchange.isSecure()));
        }
        if (callback != null) {
            exchange.addHeader("X-Content-Type-Options", "nosniff");
            exchange.addHeader("Cache-Control", "no-store");
        }
        // Set before the engine runs: an adapter may have to send the head of a held answer before the answer
        // (the Servlet adapter's heartbeats, in containers that do not report a client that leaves).
        exchange.addHeader("Content-Type",
                callback == null ? ExchangeConnection.JSON_CONTENT_TYPE : Jsonp.CONTENT_TYPE);
        String type = callback == null ? LONG_POLLING : CALLBACK_POLLING;
        ExchangeConnection connection = new ExchangeConnection(exchange, engine, type, callback, browserId);
        Inbound inbound = engine.open(connection);
        connection.attach(inbound);
        exchange.onClientGone(connection::clientGone);
        inbound.receive(batch);
        if (connection.isWaiting()) {
            exchange.parked(maxExchangeMillis());
        }
    }

    /** Opens the session's event stream, where this mount can: a response that stays open until the session ends. */
    private void stream(HttpExchange exchange, String clientId) {
        if (!streams) {
            reject(exchange, 400, "eventsource is not served on this mount");
            return;
        }
        if (clientId.isEmpty() || clientId.length() > MAX_REASON) {
            reject(exchange, 400, "malformed clientId");
            return;
        }
        // As for polling: the id presented, or none; a stream never sets the cookie (its session's handshake did).
        String browserId = browserCookies.read(exchange.headers("Cookie"));
        new EventStream(exchange, engine, browserId).start(clientId, exchange.header("Last-Event-ID"));
    }

    /**
     * The clientId of Faye's form of the stream's URL, {@code GET <mount>/<clientId>} (its {@code EventSource} appends
     * the id to the endpoint's path): one segment of the characters a clientId has (URL-safe base64), or null. Faye
     * at a mount on {@code /} asks for {@code //<clientId>}.
     */
    static String clientIdInPath(String path) {
        int start = 0;
        while (start < path.length() && path.charAt(start) == '/') {
            start++;
        }
        if (start == path.length() || path.length() - start > MAX_REASON) {
            return null;
        }
        for (int i = start; i < path.length(); i++) {
            char c = path.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-'
                    || c == '_';
            if (!ok) {
                return null;
            }
        }
        return path.substring(start);
    }

    /** The longest an exchange waits for the engine: the hold, plus a grace for the engine's timer to fire. */
    private long maxExchangeMillis() {
        return options.timeout() + graceMillis;
    }

    private FormParameters parameters(HttpExchange exchange, String encoded) {
        try {
            return FormParameters.parse(encoded);
        } catch (IllegalArgumentException x) {
            reject(exchange, 400, "malformed parameters: " + x.getMessage());
            return null;
        }
    }

    /** Not a batch (400), or a batch past a limit the codec enforces (413; the codec counted it). */
    private static void refuseBatch(HttpExchange exchange, MessageDecodeException x) {
        reject(exchange, x.bound() == null ? 400 : 413, x.getMessage());
    }

    private void tooLarge(HttpExchange exchange) {
        engine.refused(Limit.MESSAGE_SIZE);
        // The rest of the body is not read: the connection cannot be reused.
        exchange.addHeader("Connection", "close");
        reject(exchange, 413, "request larger than maxMessageSize (" + options.maxMessageSize() + " bytes)");
    }

    /**
     * A refusal: a one-line reason as text, which the browser must not sniff into anything else (it may echo what
     * the client sent, shortened and stripped of control characters).
     */
    static void reject(HttpExchange exchange, int status, String reason) {
        String line = oneLine(reason);
        LOG.debug("{} {}: {}", exchange.method(), status, line);
        exchange.addHeader("X-Content-Type-Options", "nosniff");
        exchange.respond(status, TEXT, (line + "\n").getBytes(StandardCharsets.UTF_8), IGNORE);
    }

    /** At most {@link #MAX_REASON} characters, without control characters. */
    static String oneLine(String text) {
        String shortened = text.length() > MAX_REASON ? text.substring(0, MAX_REASON) + "..." : text;
        StringBuilder line = new StringBuilder(shortened.length());
        for (int i = 0; i < shortened.length(); i++) {
            char c = shortened.charAt(i);
            line.append(Character.isISOControl(c) ? ' ' : c);
        }
        return line.toString();
    }
}
