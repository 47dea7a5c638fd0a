package io.weft.examples.chat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Bayeux clients from npm, installed with npm into the build folder for the tests that drive them (the official CometD
 * JavaScript client in Chromium, the Faye client in Node); never committed. Each is installed once per build folder.
 */
final class NpmPackage {
    /** The official CometD JavaScript client. */
    static final String COMETD = "cometd@9.0.0";
    /** The Faye client, the other Bayeux client in the field. */
    static final String FAYE = "faye@1.4.3";

    private NpmPackage() {
    }

    /**
     * Installs {@code spec} ({@code name@version}) under {@code prefix} unless that version is there; returns the
     * {@code node_modules} folder.
     */
    static Path install(Path prefix, String spec) throws IOException, InterruptedException {
        String name = spec.substring(0, spec.lastIndexOf('@'));
        String version = spec.substring(spec.lastIndexOf('@') + 1);
        Path modules = prefix.resolve("node_modules");
        Path manifest = modules.resolve(name).resolve("package.json");
        if (Files.isRegularFile(manifest)
                && Files.readString(manifest).contains("\"version\": \"" + version + "\"")) {
            return modules;
        }
        Files.createDirectories(prefix);
        Path log = prefix.resolve("npm-install-" + name + ".log");
        Process npm = new ProcessBuilder("npm", "install", "--prefix", prefix.toString(), "--no-save",
                "--no-package-lock", "--no-audit", "--no-fund", spec)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        if (!npm.waitFor(180, TimeUnit.SECONDS)) {
            npm.destroyForcibly();
            throw new IOException("npm install " + spec + " took more than 180 s; see " + log);
        }
        if (npm.exitValue() != 0 || !Files.isRegularFile(manifest)) {
            throw new IOException("npm install " + spec + " failed (exit " + npm.exitValue() + "): "
                    + Files.readString(log, StandardCharsets.UTF_8));
        }
        return modules;
    }
}
