package opaque;

import jolden.Alloc;
import jolden.Options;

/**
 * The thesis's opaque-branch example (§2.6.3, Fig 2.5): each iteration allocates one array whose
 * length depends on a test the analysis cannot see through (here the non-linear i*i > 25). A
 * bound that counts both branches in every iteration gives n^2 + 11n cells; a run allocates
 * max(2i, 10) cells in iteration i (62 for n = 6). Written here from the text.
 * `OpaqueBranch <n>` runs test(n, a) on a fresh array.
 */
public final class OpaqueBranch {
    public static void main(String[] args) {
        int n = Options.positional(args, 0, 6);
        Object[] a = new Object[n + 1];
        Alloc.start();
        test(n, a);
        Alloc.report("opaque.OpaqueBranch.test");
    }

    static void test(int n, Object[] a) {
        for (int i = 1; i <= n; i++) {
            if (t(i)) {
                a[i] = new Integer[2 * i];
                Alloc.array(2 * i);
            } else {
                a[i] = new Integer[10];
                Alloc.array(10);
            }
        }
    }

    /** True from i = 6 on: the branch taken is the larger allocation in every iteration. */
    static boolean t(int i) {
        return i * i > 25;
    }
}
