package io.weft.transport.netty;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;

/**
 * What serves the requests {@link WeftNetty} gets for paths outside its Bayeux path: an application's pages and
 * endpoints on the same port. Called on the connection's event loop, once per request, with the request whole (its
 * body at most 1 MB: a larger one is answered 413 before this is called); it must not block.
 */
@FunctionalInterface
public interface Fallback {
    /** Answers 404 to everything. */
    Fallback NOT_FOUND = (request, responder) -> responder.respond(text(HttpResponseStatus.NOT_FOUND, "not found\n"));

    /**
     * Serves {@code request}, now or later, by calling {@code responder} once. The request (and its content) belongs
     * to the caller, which releases it when this returns: copy what is needed later.
     */
    void serve(FullHttpRequest request, Responder responder);

    /** Where the answer goes. */
    @FunctionalInterface
    interface Responder {
        /**
         * Sends {@code response} (from any thread; only the first call counts), which then belongs to Netty, and keeps
         * the connection for the client's next request or closes it, as the request and response say. A response
         * without a length gets its content's.
         */
        void respond(FullHttpResponse response);
    }

    /** A small plain-text response. */
    static FullHttpResponse text(HttpResponseStatus status, String text) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.wrappedBuffer(text.getBytes(StandardCharsets.UTF_8)));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain;charset=UTF-8");
        return response;
    }
}
