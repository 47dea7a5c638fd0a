package io.weft.transport.longpoll;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import org.eclipse.jetty.server.Request;

/**
 * The Jetty 12 core {@link Request} under a Servlet request, when the Servlet runs in Jetty's own ee11 or ee10
 * servlet context. Both offer {@code ServletContextRequest.getServletContextRequest(ServletRequest)}; it is found by
 * reflection so that this module depends on neither, and the Servlet adapter keeps to the Servlet API everywhere else.
 * In any other container, or in a WAR whose Jetty classes are not the server's, the answer is null.
 */
final class JettyServletRequests {
    private static final String[] CONTEXT_REQUESTS = {
        "org.eclipse.jetty.ee11.servlet.ServletContextRequest",
        "org.eclipse.jetty.ee10.servlet.ServletContextRequest",
    };

    /** The lookup method, by the class of the container's own (innermost) request object; null if none. */
    private static final ClassValue<Method> LOOKUP = new ClassValue<>() {
        @Override
        protected Method computeValue(Class<?> requestClass) {
            for (String name : CONTEXT_REQUESTS) {
                try {
                    Class<?> type = Class.forName(name, false, requestClass.getClassLoader());
                    for (Method method : type.getMethods()) {
                        if (method.getName().equals("getServletContextRequest") && method.getParameterCount() == 1
                                && Modifier.isStatic(method.getModifiers())
                                && method.getParameterTypes()[0].isAssignableFrom(requestClass)) {
                            return method;
                        }
                    }
                } catch (ClassNotFoundException | LinkageError | SecurityException x) {
                    // Not this edition of Jetty's servlet support: try the next.
                }
            }
            return null;
        }
    };

    private JettyServletRequests() {
    }

    /** The core request under {@code servletRequest} (a {@code jakarta.servlet.ServletRequest}), or null. */
    static Request coreRequest(Object servletRequest) {
        Object inner = servletRequest;
        while (inner instanceof jakarta.servlet.ServletRequestWrapper wrapper) {
            inner = wrapper.getRequest();
        }
        Method lookup = LOOKUP.get(inner.getClass());
        if (lookup == null) {
            return null;
        }
        try {
            return lookup.invoke(null, servletRequest) instanceof Request core ? core : null;
        } catch (ReflectiveOperationException | RuntimeException | LinkageError x) {
            return null;
        }
    }
}
