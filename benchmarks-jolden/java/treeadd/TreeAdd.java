package treeadd;

import jolden.Alloc;
import jolden.Options;

/**
 * TreeAdd: build a complete binary tree of a given depth and add up the values of its nodes.
 * Written here from the algorithm (JOlden's treeadd), not from any implementation.
 *
 * Analyzed methods: {@link #build(int)} allocates 2^levels - 1 nodes (recursion: no polynomial
 * bound exists), {@link #sum(Tree)} allocates nothing.
 */
public final class TreeAdd {
    public static void main(String[] args) {
        int levels = Options.intOption(args, "-l", 16);
        Alloc.start();
        Tree root = build(levels);
        Alloc.report("treeadd.TreeAdd.build");
        Alloc.start();
        int total = sum(root);
        Alloc.report("treeadd.TreeAdd.sum");
        System.out.println("treeadd: levels " + levels + " sum " + total);
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
