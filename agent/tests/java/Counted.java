// A program that counts its own allocations in source, to check the agent against: work(n, seed)
// allocates along pseudo-random paths, and every allocation adds to the counter of its type.
// main prints the counters as `<type> <count>` lines, after work has returned.
public class Counted {
    static final class Point {
        final int x, y;
        Point(int x, int y) { this.x = x; this.y = y; }
    }

    static long points, intArrays, pointArrays, intGrids, boxedIntegers;
    static int[] template = {1, 2, 3};

    static Point[] pair(int i) {
        Point[] both = new Point[2];
        pointArrays++;
        both[0] = new Point(i, 0);
        both[1] = new Point(0, i);
        points += 2;
        return both;
    }

    static int work(int n, int seed) {
        int state = seed;
        int sum = 0;
        for (int i = 0; i < n; i++) {
            state = state * 1103515245 + 12345;
            switch ((state >>> 16) % 6) {
                case 0: {
                    Point p = new Point(i, state);
                    points++;
                    sum += p.x;
                    break;
                }
                case 1: {
                    int[] a = new int[i % 5];
                    intArrays++;
                    sum += a.length;
                    break;
                }
                case 2:
                    sum += pair(i).length;
                    break;
                case 3: {
                    // multianewarray: the outer int[][] and both rows.
                    int[][] grid = new int[2][i % 4];
                    intGrids++;
                    intArrays += 2;
                    sum += grid[1].length;
                    break;
                }
                case 4: {
                    // Integer.valueOf allocates only outside the cache of -128..127.
                    int value = i * 37 - 100;
                    Integer boxed = Integer.valueOf(value);
                    if (value < -128 || value > 127) {
                        boxedIntegers++;
                    }
                    sum += boxed;
                    break;
                }
                default: {
                    // Object.clone is native: the allocation happens in a native frame.
                    int[] copy = template.clone();
                    intArrays++;
                    sum += copy[0];
                    break;
                }
            }
        }
        return sum;
    }

    public static void main(String[] args) {
        int sum = work(Integer.parseInt(args[0]), Integer.parseInt(args[1]));
        System.out.println("Counted$Point " + points);
        System.out.println("int[] " + intArrays);
        System.out.println("Counted$Point[] " + pointArrays);
        System.out.println("int[][] " + intGrids);
        System.out.println("java.lang.Integer " + boxedIntegers);
        System.out.println("sum " + sum);
    }
}
