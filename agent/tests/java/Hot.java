// A hot loop whose allocations do not escape: once the JIT compiles norm, escape analysis may
// replace the Point by its fields and never allocate it. run(n) allocates exactly n Points when
// nothing is eliminated.
public class Hot {
    static final class Point {
        final int x, y;
        Point(int x, int y) { this.x = x; this.y = y; }
    }

    static long norm(int i) {
        Point p = new Point(i, i + 1);
        return (long) p.x * p.x + (long) p.y * p.y;
    }

    static long run(int n) {
        long sum = 0;
        for (int i = 0; i < n; i++) {
            sum += norm(i);
        }
        return sum;
    }

    public static void main(String[] args) {
        System.out.println(run(Integer.parseInt(args[0])));
    }
}
