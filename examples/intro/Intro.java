/**
 * The introductory example of the thesis (its section 2.1): m1 allocates an A per iteration and
 * calls m2, which allocates i objects B. memAlloc(m1) = size(A)*k + size(B)*(k^2 + k)/2.
 *
 * Run it with `java -cp intro.jar Intro 10`.
 */
public class Intro {
    static class A {
    }

    static class B {
    }

    public static void main(String[] args) {
        int k = Integer.parseInt(args[0]);
        m1(k);
    }

    static void m1(int k) {
        for (int i = 1; i <= k; i++) {
            A a = new A();
            m2(i);
        }
    }

    static void m2(int n) {
        for (int j = 1; j <= n; j++) {
            B b = new B();
        }
    }
}
