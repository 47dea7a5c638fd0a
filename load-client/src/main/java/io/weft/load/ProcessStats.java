package io.weft.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time and resident memory of any process on this Linux machine, from {@code /proc/<pid>/stat} and
 * {@code /proc/<pid>/status}: a JVM or Node.js server alike, or this process. Elsewhere, or for a process that is
 * gone, the answer is -1.
 */
public final class ProcessStats {
    private static final long NANOS_PER_TICK = 10_000_000L; // USER_HZ is 100 on Linux

    private ProcessStats() {
    }

    /** This process's id. */
    public static long self() {
        return ProcessHandle.current().pid();
    }

    /** The process's CPU time (user and system) in nanoseconds, or -1 if {@code pid} is negative or unreadable. */
    public static long cpuNanos(long pid) {
        if (pid < 0) {
            return -1;
        }
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            // After "pid (comm) " comes field 3 (state); utime and stime are fields 14 and 15.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * NANOS_PER_TICK;
        } catch (IOException | RuntimeException x) {
            return -1;
        }
    }

    /** The process's resident set size in bytes, or -1 if {@code pid} is negative or unreadable. */
    public static long rssBytes(long pid) {
        if (pid < 0) {
            return -1;
        }
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
            return -1;
        } catch (IOException | RuntimeException x) {
            return -1;
        }
    }
}
