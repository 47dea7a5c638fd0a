package io.weft.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/** {@code --key=value} flags, and CSV rows appended under a header written once. */
final class Args {
    private final Map<String, String> values = new HashMap<>();

    Args(String[] args, int from) {
        for (int i = from; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("--")) {
                throw new IllegalArgumentException("not a --flag: " + arg);
            }
            int eq = arg.indexOf('=');
            values.put(eq < 0 ? arg.substring(2) : arg.substring(2, eq), eq < 0 ? "true" : arg.substring(eq + 1));
        }
    }

    String get(String key, String fallback) {
        return values.getOrDefault(key, fallback);
    }

    int getInt(String key, int fallback) {
        return values.containsKey(key) ? Integer.parseInt(values.get(key)) : fallback;
    }

    long getLong(String key, long fallback) {
        return values.containsKey(key) ? Long.parseLong(values.get(key)) : fallback;
    }

    double getDouble(String key, double fallback) {
        return values.containsKey(key) ? Double.parseDouble(values.get(key)) : fallback;
    }

    String[] list(String key, String fallback) {
        return Arrays.stream(get(key, fallback).split(",")).map(String::trim).filter(s -> !s.isEmpty())
                .toArray(String[]::new);
    }

    static void appendCsv(Path csv, String header, String row) {
        try {
            if (csv.getParent() != null) {
                Files.createDirectories(csv.getParent());
            }
            if (!Files.exists(csv) || Files.size(csv) == 0) {
                Files.writeString(csv, header + "\n", StandardCharsets.UTF_8);
            }
            Files.writeString(csv, row + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        } catch (IOException x) {
            throw new UncheckedIOException(x);
        }
    }

    static double loadAverage() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }
}
