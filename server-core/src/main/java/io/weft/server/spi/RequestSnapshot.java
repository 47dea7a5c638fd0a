package io.weft.server.spi;

import io.weft.server.api.ClientRequest;
import java.net.InetSocketAddress;
import java.security.Principal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * The {@link ClientRequest} a transport builds from its container's request, copied while that request is live
 * ({@link #builder()}), for {@link Connection#request()}. Headers are kept as they came, in two arrays: a few hundred
 * bytes per request, looked up by a scan (a request has a few dozen headers at most, bounded by the container).
 */
public final class RequestSnapshot implements ClientRequest {
    private static final String[] NONE = new String[0];

    private final String[] names;
    private final String[] values;
    private final InetSocketAddress remoteAddress;
    private final boolean secure;
    private final Principal principal;
    private final String httpSessionId;
    private final Function<String, Object> httpSessionAttributes;

    private RequestSnapshot(Builder builder) {
        this.names = builder.names.toArray(NONE);
        this.values = builder.values.toArray(NONE);
        this.remoteAddress = builder.remoteAddress;
        this.secure = builder.secure;
        this.principal = builder.principal;
        this.httpSessionId = builder.httpSessionId;
        this.httpSessionAttributes = builder.httpSessionAttributes;
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public String getHeader(String name) {
        for (int i = 0; i < names.length; i++) {
            if (names[i].equalsIgnoreCase(name)) {
                return values[i];
            }
        }
        return null;
    }

    @Override
    public List<String> getHeaders(String name) {
        List<String> found = new ArrayList<>(1);
        for (int i = 0; i < names.length; i++) {
            if (names[i].equalsIgnoreCase(name)) {
                found.add(values[i]);
            }
        }
        return List.copyOf(found);
    }

    @Override
    public Set<String> getHeaderNames() {
        return Set.copyOf(Arrays.asList(names));
    }

    @Override
    public String getCookie(String name) {
        for (int i = 0; i < names.length; i++) {
            if (names[i].equalsIgnoreCase("Cookie")) {
                String value = BrowserCookies.valueIn(values[i], name);
                if (value != null) {
                    return value;
                }
            }
        }
        return null;
    }

    @Override
    public InetSocketAddress getRemoteAddress() {
        return remoteAddress;
    }

    @Override
    public boolean isSecure() {
        return secure;
    }

    @Override
    public Principal getUserPrincipal() {
        return principal;
    }

    @Override
    public String getHttpSessionId() {
        return httpSessionId;
    }

    @Override
    public Object getHttpSessionAttribute(String name) {
        return httpSessionAttributes == null ? null : httpSessionAttributes.apply(name);
    }

    @Override
    public String toString() {
        return "ClientRequest[" + remoteAddress + (secure ? " https" : "")
                + (principal == null ? "" : " " + principal.getName()) + ", " + names.length + " headers]";
    }

    /** Builds a {@link RequestSnapshot}; not thread-safe, used on the thread that handles the request. */
    public static final class Builder {
        private final List<String> names = new ArrayList<>();
        private final List<String> values = new ArrayList<>();
        private InetSocketAddress remoteAddress;
        private boolean secure;
        private Principal principal;
        private String httpSessionId;
        private Function<String, Object> httpSessionAttributes;

        private Builder() {
        }

        /** Adds one value of a header; call once per value, in the request's order. */
        public Builder header(String name, String value) {
            names.add(Objects.requireNonNull(name, "name"));
            values.add(Objects.requireNonNull(value, "value"));
            return this;
        }

        /** The client's address; an unresolved IP literal (a forwarded address) is made an IP address. */
        public Builder remoteAddress(InetSocketAddress address) {
            this.remoteAddress = Addresses.resolved(address);
            return this;
        }

        public Builder secure(boolean secure) {
            this.secure = secure;
            return this;
        }

        public Builder userPrincipal(Principal principal) {
            this.principal = principal;
            return this;
        }

        /**
         * The HTTP session the request belonged to: its id, and how to read one of its attributes later (returning
         * null once the HTTP session has ended).
         */
        public Builder httpSession(String id, Function<String, Object> attributes) {
            this.httpSessionId = Objects.requireNonNull(id, "id");
            this.httpSessionAttributes = Objects.requireNonNull(attributes, "attributes");
            return this;
        }

        public RequestSnapshot build() {
            return new RequestSnapshot(this);
        }
    }
}
