package jolden;

/**
 * Command-line options in the JOlden style: `-x value` for integers (the
 * originals' printing flags `-p` and `-m` are accepted and ignored: results are always printed).
 * Only `main` methods use this class; it allocates nothing, so a `main` that is analyzed gains no
 * creation sites from it.
 */
public final class Options {
    private Options() {
    }

    /** The integer after `name` in `args`, or `fallback` when the option is absent. */
    public static int intOption(String[] args, String name, int fallback) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return Integer.parseInt(args[i + 1]);
            }
        }
        return fallback;
    }

    /** The positional argument `index` as an integer (the thesis examples take one number). */
    public static int positional(String[] args, int index, int fallback) {
        return index < args.length ? Integer.parseInt(args[index]) : fallback;
    }
}
