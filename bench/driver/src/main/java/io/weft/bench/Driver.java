package io.weft.bench;

/**
 * The fault runs of bench/faults.sh, which have not moved to the load tool (io.weft.load.bench.Bench): {@code restart},
 * {@code storm}, {@code slow} and {@code proxy}, each with {@code --flags}; see docs/benchmarks/faults.md.
 */
public final class Driver {
    private Driver() {
    }

    public static void main(String[] argv) throws Exception {
        if (argv.length == 0) {
            System.err.println("usage: Driver restart|storm|slow|proxy --flag=value ...");
            System.exit(2);
        }
        Faults.main(argv[0], new Args(argv, 1));
        System.exit(0);
    }
}
