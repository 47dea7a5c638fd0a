package io.weft.metrics.micrometer;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.weft.server.api.BayeuxServer;
import io.weft.transport.netty.Fallback;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * {@link OperatorPages} on the Netty mount: {@code GET /metrics}, {@code /stats} and {@code /health} answered here,
 * every other request passed to the next fallback (the application's pages).
 *
 * <pre>
 * WeftNetty.on(bayeux).fallback(new MetricsFallback(bayeux, myPages)).start();
 * </pre>
 */
public final class MetricsFallback implements Fallback {
    private final OperatorPages pages;
    private final Fallback next;

    public MetricsFallback(BayeuxServer bayeux, Fallback next) {
        this.pages = new OperatorPages(bayeux);
        this.next = Objects.requireNonNull(next, "next");
    }

    /**
     * From now on {@code /health} answers 503: the server is about to stop (a balancer drains it). Not needed with
     * {@code bayeux.drain(window)} or {@code bayeux.close()}, which {@code /health} follows by itself.
     */
    public void closing() {
        pages.closing();
    }

    @Override
    public void serve(FullHttpRequest request, Responder responder) {
        OperatorPages.Page page = HttpMethod.GET.equals(request.method())
                ? pages.get(new QueryStringDecoder(request.uri()).path()) : null;
        if (page == null) {
            next.serve(request, responder);
            return;
        }
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.valueOf(page.status()),
                Unpooled.wrappedBuffer(page.body().getBytes(StandardCharsets.UTF_8)));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, page.contentType());
        response.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
        responder.respond(response);
    }
}
