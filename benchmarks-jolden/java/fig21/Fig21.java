package fig21;

import jolden.Alloc;
import jolden.Options;

/**
 * The running example of the thesis's chapter 2 (Fig 2.1): arrays whose length depends on the
 * loop variable, a modular branch, and an object stored through a parameter. Written here from
 * the figure; the numbered comments are the thesis's statement labels. `Fig21 <mc> [m0|m1|m2]`
 * runs one method with argument mc (m0 by default); m2 gets a fresh RefO from main.
 */
public final class Fig21 {
    public static void main(String[] args) {
        int mc = Options.positional(args, 0, 10);
        String entry = args.length > 1 ? args[1] : "m0";
        Fig21 f = new Fig21();
        RefO s = new RefO();
        Alloc.start();
        if (entry.equals("m1")) {
            f.m1(mc);
        } else if (entry.equals("m2")) {
            f.m2(mc, s);
        } else {
            entry = "m0";
            f.m0(mc);
        }
        Alloc.report("fig21.Fig21." + entry);
    }

    @SuppressWarnings("unused")
    void m0(int mc) {
        RefO h = new RefO();                    // 1
        Alloc.object();
        Object[] a = m1(mc);                    // 2
        Object[] e = m2(2 * mc, h);             // 3
    }

    Object[] m1(int k) {
        int i;                                  // 1
        RefO l = new RefO();                    // 2
        Alloc.object();
        Object[] b = new Object[k];             // 3
        Alloc.array(k);
        for (i = 1; i <= k; i++) {              // 4
            b[i - 1] = m2(i, l);                // 5
        }
        Object[] c = new Integer[9];            // 6
        Alloc.array(9);
        return b;                               // 7
    }

    @SuppressWarnings({"deprecation", "unused"})
    Object[] m2(int n, RefO s) {
        int j;                                  // 1
        Object c;                               // 2
        Object d;
        Object e;
        Object[] f = new Object[n];             // 3
        Alloc.array(n);
        for (j = 1; j <= n; j++) {              // 4
            if (j % 3 == 0) {                   // 5
                c = new Integer[j * 2 + 1];     // 6
                Alloc.array(j * 2 + 1);
            } else {
                c = new Integer(0);             // 7
                Alloc.object();
            }
            d = new Integer[4];                 // 8
            Alloc.array(4);
            f[j - 1] = c;                       // 9
        }
        e = new Integer[1];                     // 10
        Alloc.array(1);
        s.ref = e;                              // 11
        return f;                               // 12
    }
}

final class RefO {
    Object ref;
}
