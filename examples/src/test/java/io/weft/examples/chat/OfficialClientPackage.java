package io.weft.examples.chat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The official CometD JavaScript client (npm {@code cometd} 9.0.0), installed with npm into the build folder for the
 * browser test; never committed. Installed once per build folder.
 */
final class OfficialClientPackage {
    static final String VERSION = "9.0.0";

    private OfficialClientPackage() {
    }

    /** Installs the package under {@code prefix} unless it is there; returns its {@code node_modules} folder. */
    static Path install(Path prefix) throws IOException, InterruptedException {
        Path modules = prefix.resolve("node_modules");
        Path manifest = modules.resolve("cometd/package.json");
        if (Files.isRegularFile(manifest)
                && Files.readString(manifest).contains("\"version\": \"" + VERSION + "\"")) {
            return modules;
        }
        Files.createDirectories(prefix);
        Path log = prefix.resolve("npm-install.log");
        Process npm = new ProcessBuilder("npm", "install", "--prefix", prefix.toString(), "--no-save",
                "--no-package-lock", "--no-audit", "--no-fund", "cometd@" + VERSION)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        if (!npm.waitFor(180, TimeUnit.SECONDS)) {
            npm.destroyForcibly();
            throw new IOException("npm install cometd@" + VERSION + " took more than 180 s; see " + log);
        }
        if (npm.exitValue() != 0 || !Files.isRegularFile(manifest)) {
            throw new IOException("npm install cometd@" + VERSION + " failed (exit " + npm.exitValue() + "): "
                    + Files.readString(log, StandardCharsets.UTF_8));
        }
        return modules;
    }
}
