package jolden;

/**
 * The programs' deterministic random numbers: a 64-bit linear congruential generator held in a
 * static field, so drawing a number allocates nothing (unlike `java.util.Random`, which would add
 * a library creation site to every analyzed method that draws).
 */
public final class Lcg {
    private static long state = 1;

    private Lcg() {
    }

    /** Restarts the sequence: the same seed gives the same run. */
    public static void seed(long seed) {
        state = seed;
    }

    /** A number in [0, bound) for bound >= 1. */
    public static int nextInt(int bound) {
        step();
        return (int) ((state >>> 33) % bound);
    }

    /** A number in [0, 1). */
    public static double nextDouble() {
        step();
        return (state >>> 11) * 0x1.0p-53;
    }

    private static void step() {
        state = state * 6364136223846793005L + 1442695040888963407L;
    }
}
