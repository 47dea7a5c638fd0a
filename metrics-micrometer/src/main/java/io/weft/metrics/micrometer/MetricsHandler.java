package io.weft.metrics.micrometer;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.Latency;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@link OperatorPages} on an embedded Jetty server: {@code GET /metrics}, {@code /stats} and {@code /health} answered
 * here, every other request passed to the next handler.
 *
 * <pre>
 * MetricsHandler metrics = new MetricsHandler(bayeux);
 * metrics.setHandler(webSocket);   // Weft's handlers behind it
 * server.setHandler(metrics);
 * </pre>
 *
 * <p>Serve these on a port the internet does not reach (or behind the proxy's access rules): they tell anyone how
 * busy the server is.
 */
public final class MetricsHandler extends Handler.Wrapper {
    private final OperatorPages pages;

    public MetricsHandler(BayeuxServer bayeux) {
        this.pages = new OperatorPages(bayeux);
    }

    /**
     * From now on {@code /health} answers 503: the server is about to stop (a balancer drains it). Not needed with
     * {@code bayeux.drain(window)} or {@code bayeux.close()}, which {@code /health} follows by itself.
     */
    public void closing() {
        pages.closing();
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        OperatorPages.Page page = HttpMethod.GET.is(request.getMethod())
                ? pages.get(Request.getPathInContext(request)) : null;
        if (page == null) {
            return super.handle(request, response, callback);
        }
        response.setStatus(page.status());
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, page.contentType());
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        response.write(true, ByteBuffer.wrap(page.body().getBytes(StandardCharsets.UTF_8)), callback);
        return true;
    }

    /** {@code getStats()} as JSON, as {@code /stats} answers it (tests). */
    String stats() {
        return pages.stats();
    }

    /**
     * Reads back what {@code /stats} says of the delivery latency: see {@link OperatorPages#deliveryLatency(Map)}.
     */
    public static Latency deliveryLatency(Map<?, ?> stats) {
        return OperatorPages.deliveryLatency(stats);
    }
}
