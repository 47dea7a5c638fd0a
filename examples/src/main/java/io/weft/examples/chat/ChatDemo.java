package io.weft.examples.chat;

import java.io.PrintStream;

/**
 * Starts the chat demo: {@code java io.weft.examples.chat.ChatDemo [--port=8080] [--host=127.0.0.1]}.
 *
 * <p>Prints {@code READY port=<n>} on standard output once the server listens (scripts and tests wait for that
 * line), then the page's address, and runs until the process is stopped.
 */
public final class ChatDemo {
    static final int DEFAULT_PORT = 8080;
    static final String DEFAULT_HOST = "127.0.0.1";

    private ChatDemo() {
    }

    public static void main(String[] args) throws Exception {
        ChatServer.Settings settings;
        try {
            settings = parse(args);
        } catch (IllegalArgumentException x) {
            System.err.println(x.getMessage());
            usage(System.err);
            System.exit(2);
            return;
        }
        if (settings == null) {
            usage(System.out);
            return;
        }
        ChatServer server = ChatServer.start(settings);
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "chat-demo-shutdown"));
        System.out.println("READY port=" + server.port());
        System.out.println("Chat demo: open " + server.baseUrl() + "/ in two browser tabs (Ctrl-C stops it)");
        System.out.flush();
        server.join();
    }

    /** The settings the arguments ask for; null when they ask for help. */
    static ChatServer.Settings parse(String... args) {
        int port = DEFAULT_PORT;
        String host = DEFAULT_HOST;
        for (String arg : args) {
            if (arg.equals("--help") || arg.equals("-h")) {
                return null;
            } else if (arg.startsWith("--port=")) {
                port = port(arg.substring("--port=".length()));
            } else if (arg.startsWith("--host=") && arg.length() > "--host=".length()) {
                host = arg.substring("--host=".length());
            } else {
                throw new IllegalArgumentException("unknown argument: " + arg);
            }
        }
        return ChatServer.Settings.of(port).withHost(host);
    }

    private static int port(String value) {
        try {
            int port = Integer.parseInt(value);
            if (port >= 0 && port <= 65535) {
                return port;
            }
        } catch (NumberFormatException x) {
            // reported below
        }
        throw new IllegalArgumentException("--port must be a number from 0 to 65535: " + value);
    }

    private static void usage(PrintStream out) {
        out.println("usage: ChatDemo [--port=8080] [--host=127.0.0.1]");
        out.println("  --port=N   the port to listen on; 0 picks a free one (printed as READY port=N)");
        out.println("  --host=H   the address to listen on; 0.0.0.0 lets other machines in");
    }
}
