package jolden;

/**
 * The thesis examples' command line: one number first (the JOlden-style programs parse their
 * options themselves, as the originals do). It allocates nothing, so a `main` that is analyzed
 * gains no creation sites from it.
 */
public final class Options {
    private Options() {
    }

    /** The positional argument `index` as an integer (the thesis examples take one number). */
    public static int positional(String[] args, int index, int fallback) {
        return index < args.length ? Integer.parseInt(args[index]) : fallback;
    }
}
