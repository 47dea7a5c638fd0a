package io.weft.transport.longpoll;

import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletRequestWrapper;
import org.eclipse.jetty.ee11.servlet.ServletApiRequest;
import org.eclipse.jetty.ee11.servlet.ServletContextRequest;
import org.eclipse.jetty.server.Request;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Jetty 12 core {@link Request} under a Servlet request, when the Servlet runs in Jetty's own ee11 servlet context:
 * Jetty's public {@link ServletContextRequest#getServletContextRequest(ServletRequest)}. The module has Jetty's ee11
 * servlet support as an optional dependency, so this class may not link: in any other container (Tomcat), or in a
 * WAR whose class loader does not see the server's Jetty classes, the answer is null, found out once.
 */
final class JettyServletRequests {
    private static final Logger LOG = LoggerFactory.getLogger(JettyServletRequests.class);
    /** Whether Jetty's ee11 servlet classes are not there; set at the first request that finds so. */
    private static volatile boolean unavailable;

    private JettyServletRequests() {
    }

    /** The core request under {@code servletRequest}, or null. */
    static Request coreRequest(ServletRequest servletRequest) {
        if (unavailable) {
            return null;
        }
        try {
            return Ee11.coreRequest(servletRequest);
        } catch (LinkageError notJetty) {
            unavailable = true;
            LOG.debug("no Jetty ee11 servlet context here: {}", notJetty.toString());
            return null;
        }
    }

    /** The only place that names Jetty's ee11 classes: it is loaded (and may fail to link) on first use. */
    private static final class Ee11 {
        static Request coreRequest(ServletRequest servletRequest) {
            ServletRequest inner = servletRequest;
            while (inner instanceof ServletRequestWrapper wrapper) {
                inner = wrapper.getRequest();
            }
            // Jetty's classes may be on the class path of another container (tests, a WAR that carries them):
            // only Jetty's own request is asked.
            return inner instanceof ServletApiRequest ? ServletContextRequest.getServletContextRequest(servletRequest)
                    : null;
        }
    }
}
