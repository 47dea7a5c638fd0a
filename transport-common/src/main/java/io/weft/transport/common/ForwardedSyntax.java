package io.weft.transport.common;

import io.weft.server.spi.Addresses;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The pieces of {@code Forwarded} (RFC 7239) and {@code X-Forwarded-*} values, read leniently: anything that is not
 * what it should be is null (or -1), never an exception, so a proxy's garbage costs the request only the forwarded
 * value. Each method runs once over its text (the container bounds a header's length). No name is ever looked up.
 */
final class ForwardedSyntax {
    /** The longest host name (RFC 1035), and so the longest forwarded host taken. */
    private static final int MAX_HOST = 253;

    private ForwardedSyntax() {
    }

    /** A forwarded host and its port (-1 if none was given); an IPv6 host without its brackets. */
    record Authority(String host, int port) {
    }

    /**
     * Adds the {@code separator}-separated parts of {@code line} to {@code into}, trimmed, leaving out empty ones; a
     * separator inside a quoted string (with its backslash escapes) does not separate.
     */
    static void split(String line, char separator, List<String> into) {
        if (line == null) {
            return;
        }
        boolean quoted = false;
        int start = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted && c == '\\') {
                i++; // an escaped character, whatever it is
            } else if (c == '"') {
                quoted = !quoted;
            } else if (c == separator && !quoted) {
                add(line.substring(start, i), into);
                start = i + 1;
            }
        }
        add(line.substring(start), into);
    }

    private static void add(String part, List<String> into) {
        String trimmed = part.trim();
        if (!trimmed.isEmpty()) {
            into.add(trimmed);
        }
    }

    /** The first value of a header (lines in order) before any comma, trimmed; null if there is none. */
    static String leftmost(List<String> lines) {
        if (lines == null || lines.isEmpty() || lines.get(0) == null) {
            return null;
        }
        String line = lines.get(0);
        int comma = line.indexOf(',');
        String first = (comma < 0 ? line : line.substring(0, comma)).trim();
        return first.isEmpty() ? null : first;
    }

    /**
     * The value of the parameter {@code name} (case-insensitive) in a {@code Forwarded} element
     * ({@code for=192.0.2.7;proto=https}), unquoted; the first if it is there more than once, null if not at all.
     */
    static String parameter(String element, String name) {
        if (element == null) {
            return null;
        }
        List<String> pairs = new ArrayList<>(4);
        split(element, ';', pairs);
        for (String pair : pairs) {
            int equals = pair.indexOf('=');
            if (equals > 0 && pair.substring(0, equals).trim().equalsIgnoreCase(name)) {
                return unquoted(pair.substring(equals + 1).trim());
            }
        }
        return null;
    }

    private static String unquoted(String value) {
        if (value.length() < 2 || value.charAt(0) != '"' || value.charAt(value.length() - 1) != '"') {
            return value;
        }
        StringBuilder text = new StringBuilder(value.length());
        for (int i = 1; i < value.length() - 1; i++) {
            char c = value.charAt(i);
            if (c == '\\' && i + 1 < value.length() - 1) {
                c = value.charAt(++i);
            }
            text.append(c);
        }
        return text.toString();
    }

    /**
     * The address part of a forwarded node, as written: {@code 192.0.2.7} of {@code 192.0.2.7:5000},
     * {@code 2001:db8::1} of {@code [2001:db8::1]:80}, a bare IPv6 address as it is; whatever else it is (a name,
     * {@code unknown}, {@code _hidden}), as it is. Null for null.
     */
    static String entryAddress(String node) {
        if (node == null) {
            return null;
        }
        String value = node.trim();
        if (value.startsWith("[")) {
            int close = value.indexOf(']');
            return close > 0 ? value.substring(1, close) : value;
        }
        int colon = value.indexOf(':');
        // one colon: IPv4 with a port; more: a bare IPv6 address
        return colon > 0 && colon == value.lastIndexOf(':') ? value.substring(0, colon) : value;
    }

    /**
     * A forwarded node as an address ({@code 192.0.2.7}, {@code 192.0.2.7:5000}, {@code [2001:db8::1]:80},
     * {@code 2001:db8::1}), with its port, or {@code otherwisePort} where it has none or an obfuscated one
     * ({@code _abc}). Null where it is no IP address: {@code unknown}, an obfuscated identifier, a name, garbage.
     */
    static InetSocketAddress node(String text, int otherwisePort) {
        if (text == null || text.isEmpty()) {
            return null;
        }
        String value = text.trim();
        String address;
        String port = null;
        if (value.startsWith("[")) {
            int close = value.indexOf(']');
            if (close < 0) {
                return null;
            }
            address = value.substring(0, close + 1);
            String rest = value.substring(close + 1);
            if (!rest.isEmpty()) {
                if (rest.charAt(0) != ':') {
                    return null;
                }
                port = rest.substring(1);
            }
        } else {
            int colon = value.indexOf(':');
            boolean withPort = colon >= 0 && colon == value.lastIndexOf(':');
            address = withPort ? value.substring(0, colon) : value;
            port = withPort ? value.substring(colon + 1) : null;
        }
        InetAddress ip = Addresses.literal(address);
        if (ip == null) {
            return null;
        }
        int number = otherwisePort;
        if (port != null && !port.startsWith("_")) {
            number = port(port);
            if (number < 0) {
                return null;
            }
        }
        return new InetSocketAddress(ip, Math.max(0, number));
    }

    /** {@code http} or {@code https} (in lower case) for either in any case; null for anything else. */
    static String scheme(String text) {
        if ("https".equalsIgnoreCase(text)) {
            return "https";
        }
        return "http".equalsIgnoreCase(text) ? "http" : null;
    }

    /** A port from 1 to 65535 written in decimal; -1 for anything else. */
    static int port(String text) {
        if (text == null || text.isEmpty() || text.length() > 5) {
            return -1;
        }
        int port = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            port = port * 10 + (c - '0');
        }
        return port >= 1 && port <= 65535 ? port : -1;
    }

    /**
     * A forwarded host as a request's {@code Host} names it: a host name or IPv4 address, or an IPv6 address in
     * brackets, with or without a port. Null for anything else, and for {@code unknown} and obfuscated identifiers.
     */
    static Authority authority(String text) {
        if (text == null || text.isEmpty() || text.length() > MAX_HOST + 8) {
            return null;
        }
        String host;
        String port = null;
        if (text.startsWith("[")) {
            int close = text.indexOf(']');
            if (close < 0 || Addresses.literal(text.substring(0, close + 1)) == null) {
                return null;
            }
            host = text.substring(1, close);
            if (close + 1 < text.length()) {
                if (text.charAt(close + 1) != ':') {
                    return null;
                }
                port = text.substring(close + 2);
            }
        } else {
            int colon = text.indexOf(':');
            if (colon >= 0 && colon != text.lastIndexOf(':')) {
                return null; // an IPv6 address without brackets: not how a Host header names one
            }
            host = colon < 0 ? text : text.substring(0, colon);
            port = colon < 0 ? null : text.substring(colon + 1);
            if (!isHostName(host)) {
                return null;
            }
        }
        int number = -1;
        if (port != null) {
            number = port(port);
            if (number < 0) {
                return null;
            }
        }
        return new Authority(host, number);
    }

    /** Letters, digits, dots, hyphens and underscores, not {@code unknown} and not an obfuscated identifier. */
    private static boolean isHostName(String host) {
        if (host.isEmpty() || host.length() > MAX_HOST || host.charAt(0) == '_' || host.equalsIgnoreCase("unknown")) {
            return false;
        }
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-'
                    || c == '_')) {
                return false;
            }
        }
        return true;
    }
}
