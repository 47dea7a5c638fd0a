package io.weft.examples.chat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Bayeux clients from npm, installed with npm into the build folder for the tests that drive them (the official CometD
 * JavaScript client in Chromium and in Node, the Faye client in Node); never committed. Each is installed once per
 * build folder.
 */
public final class NpmPackage {
    /** The official CometD JavaScript client. */
    public static final String COMETD = "cometd@9.0.0";
    /** The CometD project's adapter that runs {@link #COMETD} in Node (its XMLHttpRequest and WebSocket). */
    public static final String COMETD_NODE = "cometd-nodejs-client@2.0.0";
    /** The Faye client, the other Bayeux client in the field. */
    static final String FAYE = "faye@1.4.3";

    private NpmPackage() {
    }

    /**
     * Installs {@code specs} ({@code name@version} each) together under {@code prefix} unless those versions are
     * all there; returns the {@code node_modules} folder. npm prunes from a prefix what it was not asked to install
     * there, so packages used together are installed in one call.
     */
    public static Path install(Path prefix, String... specs) throws IOException, InterruptedException {
        Path modules = prefix.resolve("node_modules");
        List<Path> manifests = new ArrayList<>();
        boolean installed = true;
        for (String spec : specs) {
            String name = spec.substring(0, spec.lastIndexOf('@'));
            String version = spec.substring(spec.lastIndexOf('@') + 1);
            Path manifest = modules.resolve(name).resolve("package.json");
            manifests.add(manifest);
            installed &= Files.isRegularFile(manifest)
                    && Files.readString(manifest).contains("\"version\": \"" + version + "\"");
        }
        if (installed) {
            return modules;
        }
        Files.createDirectories(prefix);
        String what = String.join(" ", specs);
        Path log = prefix.resolve("npm-install-" + specs[0].substring(0, specs[0].lastIndexOf('@')) + ".log");
        List<String> command = new ArrayList<>(List.of("npm", "install", "--prefix", prefix.toString(), "--no-save",
                "--no-package-lock", "--no-audit", "--no-fund"));
        command.addAll(List.of(specs));
        Process npm = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        if (!npm.waitFor(180, TimeUnit.SECONDS)) {
            npm.destroyForcibly();
            throw new IOException("npm install " + what + " took more than 180 s; see " + log);
        }
        if (npm.exitValue() != 0 || !manifests.stream().allMatch(Files::isRegularFile)) {
            throw new IOException("npm install " + what + " failed (exit " + npm.exitValue() + "): "
                    + Files.readString(log, StandardCharsets.UTF_8));
        }
        return modules;
    }
}
