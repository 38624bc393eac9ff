package fig14;

import jolden.Alloc;
import jolden.Options;

/**
 * The running example of the thesis's chapter 1 (Fig 1.4): m0 calls m1, which calls m2 in a loop,
 * and m0 calls m2 once more. Written here from the figure; the numbered comments are the thesis's
 * statement labels. `Fig14 <mc> [m0|m1|m2]` runs one method with argument mc (m0 by default), so
 * each analyzed method can be measured on its own.
 */
public final class Fig14 {
    public static void main(String[] args) {
        int mc = Options.positional(args, 0, 10);
        String entry = args.length > 1 ? args[1] : "m0";
        Fig14 f = new Fig14();
        Alloc.start();
        if (entry.equals("m1")) {
            f.m1(mc);
        } else if (entry.equals("m2")) {
            f.m2(mc);
        } else {
            entry = "m0";
            f.m0(mc);
        }
        Alloc.report("fig14.Fig14." + entry);
    }

    void m0(int mc) {
        m1(mc);                             // 1
        B[] m2Arr = m2(2 * mc);             // 2
    }

    void m1(int k) {
        for (int i = 1; i <= k; i++) {      // 3
            A a = new A();                  // 4
            Alloc.object();
            B[] dummyArr = m2(i);           // 5
        }
    }

    B[] m2(int n) {
        B[] arrB = new B[n];                // 6
        Alloc.array(n);
        for (int j = 1; j <= n; j++) {      // 7
            arrB[j - 1] = new B();          // 8
            Alloc.object();
            C c = new C();                  // 9
            Alloc.object();
            c.value = arrB[j - 1];          // 10
        }
        return arrB;                        // 11
    }
}

final class A {
}

final class B {
}

final class C {
    Object value;
}
