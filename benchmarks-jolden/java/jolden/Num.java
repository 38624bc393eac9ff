package jolden;

/**
 * Arithmetic the programs need without calling native code: `Math.sqrt` ends in a native method,
 * which an analysis must treat as unknown, so the programs take their square roots here.
 */
public final class Num {
    private Num() {
    }

    /** The square root of `x` (0 for x <= 0), to about the precision of a double. */
    public static double sqrt(double x) {
        if (x <= 0) {
            return 0;
        }
        // Scale into [1/4, 4) by powers of 4, where Newton's method from (1 + y) / 2 needs few
        // steps, and scale the root back by the matching powers of 2.
        double y = x;
        double scale = 1;
        while (y >= 4) {
            y /= 4;
            scale *= 2;
        }
        while (y < 0.25) {
            y *= 4;
            scale /= 2;
        }
        double r = (1 + y) / 2;
        for (int i = 0; i < 8; i++) {
            r = (r + y / r) / 2;
        }
        return r * scale;
    }
}
