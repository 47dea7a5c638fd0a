package io.weft.examples.chat;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.weft.transport.netty.Fallback;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The page and its scripts from a class path folder, for the demo on Netty (on Jetty a {@code ResourceHandler} does
 * it): {@code GET /} is {@code index.html}; names with {@code ..}, a backslash or an empty segment, and anything but
 * GET, get 404 and 405.
 */
final class StaticPages implements Fallback {
    private static final Map<String, String> TYPES = Map.of("html", "text/html;charset=UTF-8",
            "js", "text/javascript;charset=UTF-8", "css", "text/css;charset=UTF-8", "png", "image/png",
            "svg", "image/svg+xml", "ico", "image/x-icon", "json", "application/json");

    private final String folder;

    /** @param folder the class path folder, ending with {@code /} ({@code static/}) */
    StaticPages(String folder) {
        this.folder = folder;
    }

    @Override
    public void serve(FullHttpRequest request, Responder responder) {
        if (!HttpMethod.GET.equals(request.method())) {
            FullHttpResponse refused = Fallback.text(HttpResponseStatus.METHOD_NOT_ALLOWED, "GET only\n");
            refused.headers().set(HttpHeaderNames.ALLOW, "GET");
            responder.respond(refused);
            return;
        }
        String path = new QueryStringDecoder(request.uri()).path();
        String name = path.equals("/") ? "index.html" : path.substring(1);
        byte[] bytes = safe(name) ? read(folder + name) : null;
        if (bytes == null) {
            responder.respond(Fallback.text(HttpResponseStatus.NOT_FOUND, "not found\n"));
            return;
        }
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                Unpooled.wrappedBuffer(bytes));
        String extension = name.substring(name.lastIndexOf('.') + 1);
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, TYPES.getOrDefault(extension, "application/octet-stream"));
        response.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-cache"); // small files: always the current ones
        responder.respond(response);
    }

    private static boolean safe(String name) {
        return !name.isEmpty() && !name.contains("..") && !name.contains("\\") && !name.contains("//")
                && !name.endsWith("/") && name.indexOf('.') > 0;
    }

    private static byte[] read(String resource) {
        try (InputStream in = StaticPages.class.getClassLoader().getResourceAsStream(resource)) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException x) {
            throw new UncheckedIOException(x);
        }
    }
}
