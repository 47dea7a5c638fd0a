package io.weft.transport.longpoll;

import io.weft.server.api.ServerOptions;
import jakarta.servlet.ServletConfig;
import jakarta.servlet.ServletContext;
import java.util.Collections;

/**
 * {@link ServerOptions} from a web application's configuration, by the options' names
 * ({@link ServerOptions.Builder#set}): context parameters named {@code weft.<option>} ({@code weft.timeout},
 * {@code weft.allowedOrigins}), then the Bayeux servlet's own init-parameters, unprefixed ({@code timeout}), which
 * override them. Context parameters without the prefix belong to other parts of the application and are left alone;
 * a {@code weft.} parameter or a servlet init-parameter that names no option, or a value an option does not take,
 * fails start-up with an {@link IllegalArgumentException} naming it.
 *
 * <p>A {@code ServletContextListener} that creates the server itself reads the context parameters with
 * {@link #of(ServletContext)}.
 */
public final class ServletOptions {
    /** The prefix of the context parameters that are server options. */
    public static final String CONTEXT_PREFIX = "weft.";

    private ServletOptions() {
    }

    /** The defaults, with the {@code weft.*} context parameters applied. */
    public static ServerOptions of(ServletContext context) {
        return build(builder(context), "context-params " + CONTEXT_PREFIX + "*");
    }

    /** The defaults, with the {@code weft.*} context parameters, then the servlet's init-parameters, applied. */
    public static ServerOptions of(ServletConfig config) {
        ServerOptions.Builder builder = builder(config.getServletContext());
        for (String name : Collections.list(config.getInitParameterNames())) {
            apply(builder, name, config.getInitParameter(name), "init-param " + name + " of servlet "
                    + config.getServletName());
        }
        return build(builder, "servlet " + config.getServletName());
    }

    private static ServerOptions.Builder builder(ServletContext context) {
        ServerOptions.Builder builder = ServerOptions.builder();
        for (String name : Collections.list(context.getInitParameterNames())) {
            if (name.startsWith(CONTEXT_PREFIX)) {
                apply(builder, name.substring(CONTEXT_PREFIX.length()), context.getInitParameter(name),
                        "context-param " + name);
            }
        }
        return builder;
    }

    private static void apply(ServerOptions.Builder builder, String option, String value, String where) {
        try {
            builder.set(option, value);
        } catch (IllegalArgumentException x) {
            throw new IllegalArgumentException(where + ": " + x.getMessage(), x);
        }
    }

    private static ServerOptions build(ServerOptions.Builder builder, String where) {
        try {
            return builder.build();
        } catch (IllegalArgumentException x) {
            throw new IllegalArgumentException(where + ": " + x.getMessage(), x);
        }
    }
}
