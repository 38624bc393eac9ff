// The example of Fig 1.4 of Garbervetsky's thesis (notes/thesis-ch2-counting.md §12.2), with a
// main that reads mc from the command line. Counts under m0(mc), by creation site:
//   m0 -> m1 -> new A                 mc
//   m0 -> m1 -> m2 -> new B[]         mc
//   m0 -> m1 -> m2 -> new B           mc(mc+1)/2
//   m0 -> m1 -> m2 -> new C           mc(mc+1)/2
//   m0 -> m2 -> new B[]               1
//   m0 -> m2 -> new B                 2mc
//   m0 -> m2 -> new C                 2mc
public class Fig14 {
    static class A {}
    static class B {}
    static class C { B value; }

    static void m0(int mc) {
        m1(mc);
        B[] m2Arr = m2(2 * mc);
    }

    static void m1(int k) {
        for (int i = 1; i <= k; i++) {
            A a = new A();
            B[] dummyArr = m2(i);
        }
    }

    static B[] m2(int n) {
        B[] arrB = new B[n];
        for (int j = 1; j <= n; j++) {
            arrB[j - 1] = new B();
            C c = new C();
            c.value = arrB[j - 1];
        }
        return arrB;
    }

    public static void main(String[] args) {
        m0(Integer.parseInt(args[0]));
    }
}
