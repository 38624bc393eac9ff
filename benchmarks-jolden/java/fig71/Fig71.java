package fig71;

import jolden.Alloc;
import jolden.Options;

/**
 * The running example of the thesis's chapter 7 (Fig 7.1), the memRq example: m1 builds arrays
 * through m3 in a loop and everything it makes dies before m0 calls m2(3*mc). Written here from
 * the figure; the numbered comments are the thesis's statement labels. `Fig71 <mc> [m0|m1|m2|m3]`
 * runs one method with argument mc (m0 by default).
 */
public final class Fig71 {
    public static void main(String[] args) {
        int mc = Options.positional(args, 0, 10);
        String entry = args.length > 1 ? args[1] : "m0";
        Fig71 f = new Fig71();
        Alloc.start();
        if (entry.equals("m1")) {
            f.m1(mc);
        } else if (entry.equals("m2")) {
            f.m2(mc);
        } else if (entry.equals("m3")) {
            f.m3(mc);
        } else {
            entry = "m0";
            f.m0(mc);
        }
        Alloc.report("fig71.Fig71." + entry);
    }

    void m0(int mc) {
        m1(mc);                                 // 1
        m2(3 * mc);                             // 2
    }

    void m1(int k) {
        B[][] dummyArr = new B[k][];            // 3
        Alloc.array(k);
        for (int i = 1; i <= k; i++) {          // 4
            dummyArr[i - 1] = m3(i);            // 5
        }
    }

    @SuppressWarnings("unused")
    void m2(int k2) {
        B[] m3Arr = m3(k2);                     // 6
    }

    B[] m3(int n) {
        B[] arrB = new B[n];                    // 7
        Alloc.array(n);
        N l = new N();                          // 8
        Alloc.object();
        for (int j = 1; j <= n; j++) {          // 9
            arrB[j - 1] = m4(l, j);             // 10
        }
        return arrB;                            // 11
    }

    B m4(N l, int v) {
        N c = new N();                          // 12
        Alloc.object();
        c.value = new B(v);                     // 13
        Alloc.object();
        c.next = l.next;                        // 14
        l.next = c;                             // 15
        return c.value;                         // 16
    }
}

final class B {
    final int v;

    B(int v) {
        this.v = v;
    }
}

final class N {
    B value;
    N next;
}
