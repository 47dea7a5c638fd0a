package io.weft.transport.longpoll;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.spi.Engine;
import io.weft.transport.common.PollingTransport;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Collections;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code long-polling}, {@code callback-polling} and {@code eventsource} transports as an asynchronous Servlet
 * (Servlet 6.0 API), for WARs and Servlet applications. Map it to the path the clients use ({@code /cometd/*}) with
 * async support on.
 *
 * <p>The {@link BayeuxServer} is the one given to the constructor; otherwise the one found in the servlet context
 * attribute {@link #BAYEUX_SERVER_ATTRIBUTE} (put there by the application, typically from a
 * {@code ServletContextListener}); otherwise the servlet creates one, with the options its init-parameters and the
 * {@code weft.*} context parameters name ({@link ServletOptions}; an unknown name or a bad value fails start-up),
 * publishes it under that attribute for the application to use, and closes it when the servlet is destroyed.
 * Init-parameters on a servlet that serves an application's server fail start-up: they could not apply.
 *
 * <p>The container calls {@link #service} on its threads; it never blocks: reads and writes are non-blocking and a
 * held {@code /meta/connect} keeps no thread. One timer thread of the servlet's own ({@code weft-servlet-timer})
 * writes streams' and held responses' heartbeats and bounds how long a write may stall ({@link #STALL_MILLIS}). The Servlet API gives no control over the connection's idle timeout;
 * Jetty ignores it while a request is suspended, other containers may not: there, keep {@link ServerOptions#timeout()}
 * below their connection timeout (see the module README).
 */
public final class LongPollingServlet extends HttpServlet {
    /** The servlet context attribute that holds the {@link BayeuxServer}: the interface's class name. */
    public static final String BAYEUX_SERVER_ATTRIBUTE = BayeuxServer.class.getName();

    /**
     * How long a response write may wait for the client to take it before the response is given up (a stream is
     * closed; its session keeps its queue): 30 s, Jetty's default idle timeout, which bounds the same on its handler.
     */
    public static final long STALL_MILLIS = 30_000;

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(LongPollingServlet.class);

    private transient BayeuxServer server;
    private transient boolean owned;
    private transient PollingTransport transport;
    private transient ParkedConnectionWatch watch;
    private transient long bodyMillis = PollingTransport.BODY_MILLIS;
    private transient long graceMillis = PollingTransport.IDLE_GRACE_MILLIS;
    private transient long stallMillis = STALL_MILLIS;
    private transient ScheduledExecutorService timer;
    /** The timer's threads (one, or another if a task killed it), joined when the servlet is destroyed. */
    private final transient Queue<Thread> timerThreads = new ConcurrentLinkedQueue<>();
    private transient HeldResponseHeartbeats heartbeats;

    /** For web.xml and annotations: the server is found in, or published to, the servlet context. */
    public LongPollingServlet() {
    }

    /** Serves {@code server}, which the caller owns and closes. */
    public LongPollingServlet(BayeuxServer server) {
        this.server = Objects.requireNonNull(server, "server");
    }

    /** With the exchange's deadlines shortened, for tests; see {@link PollingTransport}. */
    LongPollingServlet(BayeuxServer server, long bodyMillis, long graceMillis) {
        this(server, bodyMillis, graceMillis, STALL_MILLIS);
    }

    /** As above, with the stalled-write bound shortened too. */
    LongPollingServlet(BayeuxServer server, long bodyMillis, long graceMillis, long stallMillis) {
        this(server);
        this.bodyMillis = bodyMillis;
        this.graceMillis = graceMillis;
        this.stallMillis = stallMillis;
    }

    @Override
    public void init() throws ServletException {
        ServletContext context = getServletContext();
        if (server == null) {
            Object found = context.getAttribute(BAYEUX_SERVER_ATTRIBUTE);
            if (found instanceof BayeuxServer bayeux) {
                server = bayeux;
            } else if (found != null) {
                throw new ServletException(BAYEUX_SERVER_ATTRIBUTE + " is not a BayeuxServer: " + found.getClass());
            } else {
                try {
                    server = BayeuxServer.create(ServletOptions.of(getServletConfig()));
                } catch (IllegalArgumentException x) {
                    throw new ServletException(x.getMessage(), x);
                }
                owned = true;
                context.setAttribute(BAYEUX_SERVER_ATTRIBUTE, server);
            }
        }
        if (!owned && getInitParameterNames().hasMoreElements()) {
            // Options the servlet cannot apply: failing says so, where ignoring them would not.
            throw new ServletException("servlet " + getServletName() + " has init-params ("
                    + String.join(", ", Collections.list(getInitParameterNames()))
                    + ") but serves a BayeuxServer the application created: set its options where it is created"
                    + " (ServletOptions.of(context) reads the weft.* context-params)");
        }
        transport = new PollingTransport(Engine.of(server), bodyMillis, graceMillis, true);
        try {
            watch = new ParkedConnectionWatch();
        } catch (LinkageError x) {
            LOG.debug("no Jetty classes: a client that closes its held request's connection is noticed by heartbeats");
            watch = null;
        }
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "weft-servlet-timer");
            thread.setDaemon(true);
            timerThreads.add(thread);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true);
        timer = executor;
        heartbeats = new HeldResponseHeartbeats(timer);
    }

    /** The server this servlet serves; null before {@link #init()}. */
    public BayeuxServer getBayeuxServer() {
        return server;
    }

    @Override
    public void destroy() {
        if (timer != null) {
            timer.shutdownNow();
            try {
                // Gone before the container looks for threads the application left behind.
                for (Thread thread : timerThreads) {
                    thread.join(2_000);
                    if (thread.isAlive()) {
                        LOG.warn("{}: the timer thread did not stop within 2 s", getServletName());
                    }
                }
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
            }
        }
        if (owned) {
            getServletContext().removeAttribute(BAYEUX_SERVER_ATTRIBUTE);
            server.close();
        }
    }

    /**
     * As {@code LongPollingHandler.waitingRequests()}: on Jetty the watched connections, elsewhere the held responses
     * given heartbeats; for tests and benchmarks.
     */
    int waitingRequests() {
        ParkedConnectionWatch jetty = watch;
        return (jetty == null ? 0 : jetty.size()) + heartbeats.size();
    }

    /** On Jetty, what watches this request's connection for a client that closes it; null elsewhere. */
    private Supplier<Runnable> watcher(HttpServletRequest request) {
        ParkedConnectionWatch jetty = watch;
        if (jetty == null) {
            return null;
        }
        try {
            return jetty.watcher(request);
        } catch (LinkageError x) {
            watch = null;
            LOG.debug("not on Jetty 12: a client that closes its connection is noticed when the container says so");
            return null;
        }
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (!request.isAsyncSupported()) {
            LOG.error("{} is mapped without async support; set asyncSupported=true", getServletName());
            response.sendError(500, "the Bayeux servlet needs async support");
            return;
        }
        AsyncContext async = request.startAsync();
        // Every exchange has a deadline: its body, the engine's hold, and a grace. The engine answers what it holds
        // within its own timeout; this bounds what it never gets to (a body that trickles in, a response the client
        // does not read), which ServletExchange then answers itself (408) rather than leaving it to the container.
        async.setTimeout(transport.exchangeDeadlineMillis());
        transport.handle(new ServletExchange(request, response, async, watcher(request), timer, stallMillis,
                heartbeats));
    }
}
