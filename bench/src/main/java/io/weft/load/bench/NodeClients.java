package io.weft.load.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The official CometD JavaScript client for Node, as the loss runs use it: npm {@code cometd} with the CometD
 * project's Node adapter {@code cometd-nodejs-client} (its XMLHttpRequest, and {@code ws} for WebSocket), installed
 * together with npm into a folder of the build's, once.
 */
final class NodeClients {
    static final List<String> PACKAGES = List.of("cometd@9.0.0", "cometd-nodejs-client@2.0.0");

    private NodeClients() {
    }

    /** Installs {@link #PACKAGES} under {@code prefix} unless those versions are there; returns {@code prefix}. */
    static Path install(Path prefix) throws IOException, InterruptedException {
        if (installed(prefix)) {
            return prefix;
        }
        Files.createDirectories(prefix);
        Path log = prefix.resolve("npm-install.log");
        List<String> command = new ArrayList<>(List.of("npm", "install", "--prefix", prefix.toString(), "--no-save",
                "--no-package-lock", "--no-audit", "--no-fund"));
        command.addAll(PACKAGES);
        Process npm = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!npm.waitFor(180, TimeUnit.SECONDS)) {
            npm.destroyForcibly();
            throw new IOException("npm install took more than 180 s; see " + log);
        }
        if (npm.exitValue() != 0 || !installed(prefix)) {
            throw new IOException("npm install " + PACKAGES + " failed: " + Files.readString(log));
        }
        return prefix;
    }

    private static boolean installed(Path prefix) throws IOException {
        for (String spec : PACKAGES) {
            int at = spec.lastIndexOf('@');
            Path manifest = prefix.resolve("node_modules").resolve(spec.substring(0, at)).resolve("package.json");
            if (!Files.isRegularFile(manifest)
                    || !Files.readString(manifest).contains("\"version\": \"" + spec.substring(at + 1) + "\"")) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code command} is an executable on the PATH. */
    static boolean onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, command))) {
                return true;
            }
        }
        return false;
    }
}
