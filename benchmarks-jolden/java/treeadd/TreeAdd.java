package treeadd;

import jolden.Alloc;

/**
 * TreeAdd: build a complete binary tree of a given depth and add up the values of its nodes.
 * Written here from the algorithm (JOlden's treeadd), not from any implementation.
 *
 * Analyzed methods: {@link #build(int)} allocates 2^levels - 1 nodes (recursion: no polynomial
 * bound exists), {@link #sum(Tree)} allocates nothing.
 */
public final class TreeAdd {
    private static int levels = 16;

    public static void main(String[] args) {
        parseCmdLine(args);
        Alloc.start();
        Tree root = build(levels);
        Alloc.report("treeadd.TreeAdd.build");
        Alloc.start();
        int total = sum(root);
        Alloc.report("treeadd.TreeAdd.sum");
        System.out.println("treeadd: levels " + levels + " sum " + total);
    }

    /**
     * Reads the options, as the original does: `-h` or an option it does not know prints the
     * usage and ends the program.
     */
    private static void parseCmdLine(String[] args) {
        int i = 0;
        while (i < args.length && args[i].startsWith("-")) {
            String arg = args[i++];
            if (arg.equals("-l")) {
                if (i >= args.length) {
                    throw new IllegalArgumentException(
                            "-l requires the number of levels of the tree");
                }
                levels = Integer.parseInt(args[i++]);
            } else if (arg.equals("-p") || arg.equals("-m")) {
                // The original's printing flags: the results are always printed.
            } else {
                usage();
            }
        }
    }

    /** Prints the options and their defaults and ends the program. */
    private static void usage() {
        System.err.println("usage: java treeadd.TreeAdd [-l levels] [-p] [-m] [-h]");
        System.err.println("    -l  the number of levels of the tree (16)");
        System.exit(0);
    }

    /** A complete tree of `levels` levels whose every node holds 1 (none for levels <= 0). */
    static Tree build(int levels) {
        if (levels <= 0) {
            return null;
        }
        Tree node = new Tree();
        Alloc.object();
        node.value = 1;
        node.left = build(levels - 1);
        node.right = build(levels - 1);
        return node;
    }

    /** The sum of the values below and at `t`. */
    static int sum(Tree t) {
        if (t == null) {
            return 0;
        }
        return t.value + sum(t.left) + sum(t.right);
    }
}

final class Tree {
    int value;
    Tree left;
    Tree right;
}
