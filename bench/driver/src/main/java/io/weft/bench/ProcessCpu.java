package io.weft.bench;

import java.nio.file.Files;
import java.nio.file.Path;

/** CPU time of another process on this machine (utime + stime from /proc/PID/stat), for any server: JVM or node. */
final class ProcessCpu {
    private static final long NANOS_PER_TICK = 10_000_000L; // USER_HZ is 100 on Linux

    private ProcessCpu() {
    }

    /** The process's CPU time in nanoseconds, or -1 if {@code pid} is negative or unreadable. */
    static long nanos(long pid) {
        if (pid < 0) {
            return -1;
        }
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // After "pid (comm) ", fields[0] is state (field 3); utime is field 14, stime field 15.
            return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * NANOS_PER_TICK;
        } catch (Exception x) {
            return -1;
        }
    }
}
