package io.weft.examples.chat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Debian's nginx, started by a test on its own configuration, prefix and free port ({@code nginx -p DIR -c FILE -g
 * 'daemon off; ...'}), never the system's service, and stopped by {@link #close()}. The site it serves is the one the
 * user guide gives ({@code docs/user-guide.md}, "Behind a reverse proxy"), read from the guide at each start, so the
 * two cannot drift apart: only the port it listens on, the certificate's files and the backend's address are changed,
 * and each of those must be found in the guide exactly once. The test's own lines around it are those Debian's
 * {@code nginx.conf} has in their place (the {@code events} block, the {@code http} block the site is included in)
 * and where this nginx keeps its files.
 */
final class Nginx implements AutoCloseable {
    static final Path GUIDE = Path.of(System.getProperty("user.dir")).getParent().resolve("docs/user-guide.md");
    private static final Pattern SITE = Pattern.compile("<!-- nginx-site:[^>]*-->\\R```nginx\\R(.*?)```",
            Pattern.DOTALL);
    private static final String BINARY = System.getProperty("weft.nginx", "nginx");

    private final Process process;
    private final int port;
    private final Path prefix;

    private Nginx(Process process, int port, Path prefix) {
        this.process = process;
        this.port = port;
        this.prefix = prefix;
    }

    /** The guide's nginx site, as written there. */
    static String siteFromGuide() throws IOException {
        Matcher site = SITE.matcher(Files.readString(GUIDE));
        if (!site.find()) {
            throw new AssertionError(GUIDE + " has no <!-- nginx-site: ... --> marker followed by an nginx block");
        }
        return site.group(1);
    }

    /** The guide's site listening on 127.0.0.1:{@code port}, with this certificate, in front of {@code backend}. */
    static String site(int port, SelfSignedCertificate tls, int backend) throws IOException {
        String site = siteFromGuide();
        site = replaceOnce(site, "listen 443 ", "listen 127.0.0.1:" + port + " ");
        site = replaceOnce(site, "server 127.0.0.1:8080;", "server 127.0.0.1:" + backend + ";");
        site = replaceOnce(site, "/etc/nginx/tls/chat.example.com.crt", tls.certificate().toString());
        site = replaceOnce(site, "/etc/nginx/tls/chat.example.com.key", tls.privateKey().toString());
        return site;
    }

    private static String replaceOnce(String text, String what, String with) {
        int at = text.indexOf(what);
        if (at < 0 || text.indexOf(what, at + 1) >= 0) {
            throw new AssertionError("the user guide's nginx site should have '" + what + "' once, to be run here: "
                    + "change BehindNginxTest's Nginx with the guide");
        }
        return text.substring(0, at) + with + text.substring(at + what.length());
    }

    /** Starts nginx in {@code prefix} (created) with the guide's site in front of {@code backend}, on a free port. */
    static Nginx start(Path prefix, SelfSignedCertificate tls, int backend) throws Exception {
        Files.createDirectories(prefix.resolve("temp"));
        int port = freePort();
        Path site = prefix.resolve("weft.conf");
        Files.writeString(site, site(port, tls, backend));
        Path temp = prefix.resolve("temp");
        Path conf = prefix.resolve("nginx.conf");
        Files.writeString(conf, String.join("\n",
                "events {",
                "    worker_connections 256;",
                "}",
                "http {",
                "    access_log " + prefix.resolve("access.log") + ";",
                "    client_body_temp_path " + temp.resolve("client_body") + ";",
                "    proxy_temp_path " + temp.resolve("proxy") + ";",
                "    fastcgi_temp_path " + temp.resolve("fastcgi") + ";",
                "    uwsgi_temp_path " + temp.resolve("uwsgi") + ";",
                "    scgi_temp_path " + temp.resolve("scgi") + ";",
                "    include " + site + ";",
                "}",
                ""));
        // As root, workers would run as nobody, who cannot enter the test's temporary folder: they stay the same user.
        String user = "root".equals(System.getProperty("user.name")) ? " user root;" : "";
        Process process;
        try {
            process = new ProcessBuilder(BINARY, "-p", prefix.toString(), "-c", conf.toString(),
                    "-e", prefix.resolve("error.log").toString(),
                    "-g", "daemon off; master_process on; worker_processes 1; pid " + prefix.resolve("nginx.pid")
                            + ";" + user)
                    .redirectErrorStream(true)
                    .redirectOutput(prefix.resolve("output.log").toFile())
                    .start();
        } catch (IOException x) {
            throw new AssertionError("these tests need Debian's nginx (apt-get install nginx; .ci/run installs it) or "
                    + "-Dweft.nginx=/path/to/nginx: " + x.getMessage(), x);
        }
        Nginx nginx = new Nginx(process, port, prefix);
        nginx.awaitListening();
        return nginx;
    }

    /** Waits, at most 20 s, for nginx to accept connections; fails with its logs if it ends first. */
    private void awaitListening() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError("nginx ended (exit " + process.exitValue() + ") before it listened: "
                        + logs());
            }
            try (Socket probe = new Socket()) {
                probe.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
                return;
            } catch (IOException notYet) {
                process.waitFor(50, TimeUnit.MILLISECONDS);
            }
        }
        close();
        throw new AssertionError("nginx did not listen on " + port + " within 20 s: " + logs());
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    int port() {
        return port;
    }

    /** {@code https://127.0.0.1:<port>}: where a browser reaches the site. */
    String baseUrl() {
        return "https://127.0.0.1:" + port;
    }

    /** nginx's output and error log, to explain a failure. */
    String logs() {
        StringBuilder logs = new StringBuilder();
        for (String name : List.of("output.log", "error.log")) {
            Path log = prefix.resolve(name);
            try {
                if (Files.exists(log)) {
                    logs.append('\n').append(name).append(":\n").append(Files.readString(log, StandardCharsets.UTF_8));
                }
            } catch (IOException x) {
                logs.append('\n').append(name).append(": ").append(x);
            }
        }
        return logs.toString();
    }

    /** Stops nginx (SIGTERM: a fast shutdown, workers included), and kills it if it is still there after 10 s. */
    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
