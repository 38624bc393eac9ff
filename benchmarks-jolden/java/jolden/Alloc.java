package jolden;

/**
 * Allocation counters the benchmark programs bump next to each of their own `new`s, so that
 * `main` can print how much an analyzed method allocated and a test can compare it with the
 * closed forms of the README. Two units are kept: `objects` counts every allocation once (what
 * the JVMTI agent observes), `units` is the thesis's unit (one per object, the length of an
 * array for an array; the header is not counted). Allocations inside the JDK are not counted.
 * The counters are plain static fields: bumping them allocates nothing.
 */
public final class Alloc {
    private static long objects;
    private static long units;
    private static long objectsAtStart;
    private static long unitsAtStart;

    private Alloc() {
    }

    /** Records one object that is not an array. */
    public static void object() {
        objects++;
        units++;
    }

    /** Records one array of `length` cells. */
    public static void array(int length) {
        objects++;
        units += length;
    }

    /** Starts a measurement: {@link #report(String)} prints what was allocated since. */
    public static void start() {
        objectsAtStart = objects;
        unitsAtStart = units;
    }

    /**
     * Prints what `method` allocated since the last {@link #start()}, as the line
     * `alloc <method> objects <n> units <u>` that the tests parse.
     */
    public static void report(String method) {
        System.out.println("alloc " + method + " objects " + (objects - objectsAtStart) + " units "
                + (units - unitsAtStart));
    }
}
