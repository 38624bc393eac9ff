package tsp;

import java.util.Random;

import jolden.Alloc;
import jolden.Num;

/**
 * TSP: a travelling-salesman tour by divide and conquer (Karp's partitioning idea). The cities
 * form a balanced binary tree that splits the unit square alternately along x and y; the tour
 * of a subtree joins the tours of its two halves and its own city, each join splicing two cycles
 * where the added length is least. Written here from the algorithm (JOlden's tsp), not from any
 * implementation.
 *
 * Analyzed methods: {@link #build(int)} allocates exactly `cities` nodes (recursion),
 * {@link #tour(City)} allocates nothing (the tour links the cities themselves).
 */
public final class TSP {
    /** The random numbers of the run, from a fixed seed as in the original. */
    private static final Random random = new Random(1993);
    private static int cities = 1024;

    public static void main(String[] args) {
        parseCmdLine(args);
        Alloc.start();
        City root = build(cities);
        Alloc.report("tsp.TSP.build");
        Alloc.start();
        City start = tour(root);
        Alloc.report("tsp.TSP.tour");
        int visited = 0;
        double length = 0;
        if (start != null) {
            City c = start;
            do {
                visited++;
                length += distance(c, c.next);
                c = c.next;
            } while (c != start);
        }
        System.out.println("tsp: cities " + cities + " visited " + visited + " length " + length);
    }

    /**
     * Reads the options, as the original does: `-h` or an option it does not know prints the
     * usage and ends the program.
     */
    private static void parseCmdLine(String[] args) {
        int i = 0;
        while (i < args.length && args[i].startsWith("-")) {
            String arg = args[i++];
            if (arg.equals("-c")) {
                if (i >= args.length) {
                    throw new IllegalArgumentException("-c requires the number of cities");
                }
                cities = Integer.parseInt(args[i++]);
            } else if (arg.equals("-p") || arg.equals("-m")) {
                // The original's printing flags: the results are always printed.
            } else {
                usage();
            }
        }
    }

    /** Prints the options and their defaults and ends the program. */
    private static void usage() {
        System.err.println("usage: java tsp.TSP [-c cities] [-p] [-m] [-h]");
        System.err.println("    -c  the number of cities (1024)");
        System.exit(0);
    }

    /** `cities` cities in the unit square, as a balanced tree of alternating splits. */
    static City build(int cities) {
        return make(cities, 0, 1, 0, 1, true);
    }

    private static City make(int n, double x0, double x1, double y0, double y1, boolean splitX) {
        if (n <= 0) {
            return null;
        }
        City c = new City();
        Alloc.object();
        int left = (n - 1) / 2;
        if (splitX) {
            c.x = (x0 + x1) / 2;
            c.y = y0 + random.nextDouble() * (y1 - y0);
            c.left = make(left, x0, c.x, y0, y1, false);
            c.right = make(n - 1 - left, c.x, x1, y0, y1, false);
        } else {
            c.x = x0 + random.nextDouble() * (x1 - x0);
            c.y = (y0 + y1) / 2;
            c.left = make(left, x0, x1, y0, c.y, true);
            c.right = make(n - 1 - left, x0, x1, c.y, y1, true);
        }
        return c;
    }

    /** A closed tour through the cities of `t`, as one of its cities (null for no city). */
    static City tour(City t) {
        if (t == null) {
            return null;
        }
        City a = tour(t.left);
        City b = tour(t.right);
        t.next = t;
        t.prev = t;
        return join(join(t, a), b);
    }

    /**
     * Splices cycle `b` into cycle `a`: for u in a and v in b the edges (u, u.next) and
     * (v, v.next) give way to (u, v.next) and (v, u.next); the cheapest pair is taken.
     */
    private static City join(City a, City b) {
        if (b == null) {
            return a;
        }
        City bestU = a;
        City bestV = b;
        double best = Double.MAX_VALUE;
        City u = a;
        do {
            City v = b;
            do {
                double cost = distance(u, v.next) + distance(v, u.next) - distance(u, u.next)
                        - distance(v, v.next);
                if (cost < best) {
                    best = cost;
                    bestU = u;
                    bestV = v;
                }
                v = v.next;
            } while (v != b);
            u = u.next;
        } while (u != a);
        City uNext = bestU.next;
        City vNext = bestV.next;
        bestU.next = vNext;
        vNext.prev = bestU;
        bestV.next = uNext;
        uNext.prev = bestV;
        return a;
    }

    static double distance(City a, City b) {
        double dx = a.x - b.x;
        double dy = a.y - b.y;
        return Num.sqrt(dx * dx + dy * dy);
    }
}

final class City {
    double x;
    double y;
    City left;
    City right;
    City next;
    City prev;
}
