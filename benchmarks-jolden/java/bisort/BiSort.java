package bisort;

import java.util.Random;

import jolden.Alloc;

/**
 * BiSort: bitonic sort of the values of a complete binary tree. The sequence sorted is the
 * in-order walk of the tree followed by one spare value, 2^k values in all; the first half of the
 * sequence of a subtree `t` with spare `s` is `(t.left, spare t)` and the second half is
 * `(t.right, spare s)`, which lets the sort recurse on the tree itself. Written here from the
 * algorithm (JOlden's bisort), not from any implementation.
 *
 * Analyzed methods: {@link #createTree(int)} allocates 2^floor(log2 size) - 1 nodes for size >= 2
 * (recursion; polynomial only at powers of two), {@link #sort(Value, Value, boolean)} allocates
 * nothing.
 */
public final class BiSort {
    static final int RANGE = 1 << 20;

    /** The random numbers of the run, from a fixed seed as in the original. */
    private static final Random random = new Random(7);
    private static int size = 1 << 15;

    public static void main(String[] args) {
        parseCmdLine(args);
        Alloc.start();
        Value tree = createTree(size);
        Alloc.report("bisort.BiSort.createTree");
        Value spare = new Value();
        spare.value = random.nextInt(RANGE);
        Alloc.start();
        sort(tree, spare, true);
        Alloc.report("bisort.BiSort.sort");
        boolean up = inOrder(tree, spare, true);
        sort(tree, spare, false);
        boolean down = inOrder(tree, spare, false);
        System.out.println("bisort: size " + size + " ascending " + up + " descending " + down);
    }

    /**
     * Reads the options, as the original does: `-h` or an option it does not know prints the
     * usage and ends the program.
     */
    private static void parseCmdLine(String[] args) {
        int i = 0;
        while (i < args.length && args[i].startsWith("-")) {
            String arg = args[i++];
            if (arg.equals("-s")) {
                if (i >= args.length) {
                    throw new IllegalArgumentException("-s requires the number of values to sort");
                }
                size = Integer.parseInt(args[i++]);
            } else if (arg.equals("-p") || arg.equals("-m")) {
                // The original's printing flags: the results are always printed.
            } else {
                usage();
            }
        }
    }

    /** Prints the options and their defaults and ends the program. */
    private static void usage() {
        System.err.println("usage: java bisort.BiSort [-s size] [-p] [-m] [-h]");
        System.err.println("    -s  the number of values to sort (1 << 15)");
        System.exit(0);
    }

    /** A complete tree of random values with 2^floor(log2 size) - 1 nodes (none below size 2). */
    static Value createTree(int size) {
        if (size <= 1) {
            return null;
        }
        Value v = new Value();
        Alloc.object();
        v.value = random.nextInt(RANGE);
        v.left = createTree(size / 2);
        v.right = createTree(size / 2);
        return v;
    }

    /** Sorts the sequence (in-order of `t`, then `spare`) ascending when `up`, else descending. */
    static void sort(Value t, Value spare, boolean up) {
        if (t == null) {
            return;
        }
        sort(t.left, t, up);
        sort(t.right, spare, !up);
        merge(t, spare, up);
    }

    /** Sorts the bitonic sequence (in-order of `t`, then `spare`) in direction `up`. */
    static void merge(Value t, Value spare, boolean up) {
        if (t == null) {
            return;
        }
        // Element i of the first half meets element i of the second half; the two subtrees have
        // the same shape, so walking them together pairs the elements.
        pair(t.left, t.right, up);
        exchange(t, spare, up);
        merge(t.left, t, up);
        merge(t.right, spare, up);
    }

    private static void pair(Value a, Value b, boolean up) {
        if (a == null) {
            return;
        }
        pair(a.left, b.left, up);
        exchange(a, b, up);
        pair(a.right, b.right, up);
    }

    private static void exchange(Value a, Value b, boolean up) {
        if ((a.value > b.value) == up) {
            int v = a.value;
            a.value = b.value;
            b.value = v;
        }
    }

    private static int last;

    /** Whether the sequence (in-order of `t`, then `spare`) is sorted in direction `up`. */
    private static boolean inOrder(Value t, Value spare, boolean up) {
        last = up ? Integer.MIN_VALUE : Integer.MAX_VALUE;
        return walk(t, up) && (up ? last <= spare.value : last >= spare.value);
    }

    private static boolean walk(Value t, boolean up) {
        if (t == null) {
            return true;
        }
        if (!walk(t.left, up)) {
            return false;
        }
        if (up ? t.value < last : t.value > last) {
            return false;
        }
        last = t.value;
        return walk(t.right, up);
    }
}

final class Value {
    int value;
    Value left;
    Value right;
}
